// HbmModel as it was before the event-driven rewrite (commit b61a9dd): the per-cycle whole-queue
// statement of the scheduler's rules, which the differential test (hbm_equivalence_test.cc) compares
// the optimized model against, request by request and command by command. Test-only. Its behaviour
// changes only when a rule changes on purpose, in the same commit as the model's (issue [T]: the
// starvation guard's clock starts when an access becomes the oldest and the promoted access turns
// the bus; the row-hit cap counts as `row_hit_count` says). It asks for a row command every cycle
// (no row_wake), so a stale wake-up time in the optimized model shows up as a difference.
// The request/response/command types are the model's own.
#ifndef STRATA_TESTS_HBM_REFERENCE_HBM_MODEL_H_
#define STRATA_TESTS_HBM_REFERENCE_HBM_MODEL_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "hbm/hbm_model.h"

namespace strata::hbm::reference {

class HbmModel {
 public:
  // Throws std::invalid_argument if config.Validate() reports a problem.
  explicit HbmModel(const HbmConfig& config);

  // Queues a request. Returns false, changing nothing, when a pseudo-channel queue it needs is full.
  // Throws std::invalid_argument for a malformed request (see CheckRequest): that is a caller bug,
  // e.g. a DMA engine that did not range-check a descriptor.
  bool Submit(const HbmRequest& request);
  // Empty if Submit would take the request (queue space aside); otherwise what is wrong with it.
  std::string CheckRequest(const HbmRequest& request) const;
  // True if the queues have room for a request at [addr, addr+len) right now.
  bool CanAccept(uint64_t addr, uint32_t len) const;

  // Advances one core cycle: issues the commands of cycle Now(), delivers the responses that
  // complete in it, then Now() becomes Now()+1. Cheap when idle (no queued work, no refresh due).
  void Tick();
  // Ticks until nothing is queued or in flight, or max_cycles pass; returns cycles ticked.
  uint64_t RunUntilIdle(uint64_t max_cycles = ~0ull);

  bool PopResponse(HbmResponse* out);
  size_t ResponsesReady() const { return ready_.size(); }
  // With a callback set, responses go to it (from inside Tick) instead of the PopResponse queue.
  void SetResponseCallback(std::function<void(const HbmResponse&)> callback) { on_response_ = std::move(callback); }
  void SetCommandObserver(std::function<void(const HbmCommand&)> observer) { on_command_ = std::move(observer); }

  uint64_t Now() const { return now_; }
  // Requests accepted whose response has not been delivered yet (queued, in flight or ready).
  uint64_t Outstanding() const { return outstanding_; }
  bool Idle() const { return queued_atoms_ == 0 && completions_.empty(); }

  // Functional (zero-time) access for loaders and debuggers, like TLM transport_dbg: reads and
  // writes the backing store directly, touching no timing state and no statistics. Queued writes
  // that have not reached their column command are not visible yet. False if out of range.
  bool ReadDebug(uint64_t addr, void* dst, uint64_t len) const { return memory_.Read(addr, dst, len); }
  bool WriteDebug(uint64_t addr, const void* src, uint64_t len) { return memory_.Write(addr, src, len); }

  const HbmConfig& config() const { return config_; }
  const HbmCycles& cycles() const { return cyc_; }
  const HbmAddressMap& address_map() const { return map_; }
  const SparseMemory& memory() const { return memory_; }
  uint64_t capacity() const { return config_.capacity_bytes; }

  HbmStats Stats() const;
  void ResetStats();

  // Latencies (in cycles) an isolated 32-byte access sees with this configuration.
  uint64_t RowHitLatency(bool write = false) const;
  uint64_t RowMissLatency(bool write = false) const { return cyc_.rcd + RowHitLatency(write); }
  uint64_t RowConflictLatency(bool write = false) const { return cyc_.rp + RowMissLatency(write); }

 private:
  static constexpr uint64_t kM = HbmCycles::kMilli;

  struct Entry {
    uint64_t seq;
    uint64_t submit_cycle;
    uint64_t atom_addr;
    uint64_t row;
    uint32_t tracker;  // the request this access belongs to (holds its write data)
    uint32_t column;
    uint16_t bank;  // bank index within the pseudo-channel
    uint8_t bank_group;
    bool is_write;
    uint8_t row_cause;  // 0 hit, 1 this access needed an ACT, 2 it needed PRE + ACT
    uint16_t deps;      // older queued accesses to the same atom it must wait for
  };
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    uint64_t act_ok = 0;       // earliest ACT / REF (milli-cycles)
    uint64_t pre_ok = 0;       // earliest PRE
    uint64_t col_ok = 0;       // earliest RD/WR (tRCD)
    uint32_t queued = 0;       // queued accesses for this bank
    uint32_t queued_hits = 0;  // ... of which target the open row
    uint32_t cap_count = 0;    // columns from the open row the row-hit cap counts (row_hit_count)
  };
  struct BankGroup {
    uint64_t act_ok = 0;  // tRRD_L
    uint64_t rd_ok = 0;   // tCCD_L, tWTR_L
    uint64_t wr_ok = 0;   // tCCD_L
  };
  struct PseudoChannel {
    std::vector<Entry> queue;  // oldest first
    std::vector<Bank> banks;
    std::vector<BankGroup> groups;
    uint64_t act_ok = 0;  // tRRD_S
    uint64_t rd_ok = 0;   // tCCD_S, tWTR_S
    uint64_t wr_ok = 0;   // tCCD_S, read-to-write turnaround
    uint64_t bus_free = 0;
    uint64_t non_hits = 0;         // queued accesses whose row is not open: they need row commands
    uint64_t head_since = 0;       // the cycle the oldest queued access became the oldest
    bool last_write = false;       // direction of the last column command
    uint32_t direction_count = 0;  // column commands since the direction last changed
    uint64_t last_column_cycle = 0;
    std::array<uint64_t, 4> faw{};  // last four ACT times, ring
    uint32_t faw_next = 0;
    uint32_t faw_count = 0;
    // Refresh.
    uint64_t next_refresh = 0;  // cycle the next refresh is due
    bool refresh_pending = false;
    int refresh_bank = -1;        // per-bank target while pending
    uint64_t refreshed_mask = 0;  // banks refreshed in the current per-bank round
    uint32_t refresh_rr = 0;
    HbmChannelStats stats;
  };
  struct Tracker {
    HbmResponse response;
    uint64_t byte_enable = 0;  // writes: data[i] is written if bit i is set
    std::array<uint8_t, kMaxRequestBytes> write_data{};
    uint32_t atoms_left = 0;
    uint64_t completion_mc = 0;
  };

  void TickPseudoChannel(uint32_t pc_index, uint64_t now);
  bool HandleRefresh(uint32_t pc_index, uint64_t now);  // true if it used the row-command slot
  bool TryColumn(uint32_t pc_index, uint64_t now);
  void TryRowCommand(uint32_t pc_index, uint64_t now);
  void IssueColumn(uint32_t pc_index, size_t qi, uint64_t t_mc, bool bypasses);
  void Activate(uint32_t pc_index, uint32_t bank, uint64_t row, uint64_t now);
  void Precharge(uint32_t pc_index, uint32_t bank, uint64_t now);
  bool FawAllows(const PseudoChannel& pc, uint64_t t_mc) const;
  void RecordAct(PseudoChannel& pc, uint64_t t_mc);
  void ChooseRefreshBank(PseudoChannel& pc);
  void UpdateNextRefresh();
  void Emit(HbmCommandKind kind, uint64_t t_mc, uint32_t pc, uint32_t bank, uint64_t row, uint32_t column);

  HbmConfig config_;
  HbmCycles cyc_;
  HbmAddressMap map_;
  SparseMemory memory_;
  uint64_t refi_bank_ = 0;  // per-bank refresh interval in cycles
  std::vector<PseudoChannel> pcs_;
  std::vector<Tracker> trackers_;
  std::vector<uint32_t> free_trackers_;
  std::priority_queue<std::pair<uint64_t, uint32_t>, std::vector<std::pair<uint64_t, uint32_t>>,
                      std::greater<std::pair<uint64_t, uint32_t>>>
      completions_;  // (completion cycle, tracker)
  std::deque<HbmResponse> ready_;
  std::function<void(const HbmResponse&)> on_response_;
  std::function<void(const HbmCommand&)> on_command_;
  uint64_t now_ = 0;
  uint64_t stats_start_ = 0;
  uint64_t seq_ = 0;
  uint64_t queued_atoms_ = 0;
  uint64_t outstanding_ = 0;
  uint64_t next_refresh_min_ = ~0ull;
};

}  // namespace strata::hbm::reference

#endif  // STRATA_TESTS_HBM_REFERENCE_HBM_MODEL_H_
