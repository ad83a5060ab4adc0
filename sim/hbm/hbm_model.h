// Cycle-level HBM model: pseudo-channels, bank groups, banks, open rows, JEDEC timing, refresh,
// FR-FCFS scheduling with bounded queues, and a sparse backing store. Plain C++, ticked per core cycle.
#ifndef STRATA_SIM_HBM_HBM_MODEL_H_
#define STRATA_SIM_HBM_HBM_MODEL_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hbm/hbm_address_map.h"
#include "hbm/hbm_config.h"
#include "hbm/hbm_stats.h"
#include "hbm/sparse_memory.h"
#include "strata/regmap.h"  // STRATA_DMA_LINE_BYTES

namespace strata::hbm {

// Largest request the model takes: one DMA line beat (rtl/regmap.json DMA_LINE_BYTES); it must not
// cross a line boundary. Bigger transfers are split by the caller (see SplitTransfer), as a DMA
// engine would split them into bus beats.
inline constexpr uint32_t kMaxRequestBytes = STRATA_DMA_LINE_BYTES;
static_assert(kMaxRequestBytes <= 64, "a request's byte enables are one 64-bit mask");

struct HbmRequest {
  uint64_t tag = 0;   // returned in the response; the model does not interpret it
  uint64_t addr = 0;  // byte address
  uint32_t len = 0;   // 1..64, and addr..addr+len-1 within one 64-byte block
  bool is_write = false;
  uint64_t byte_enable = ~0ull;                  // writes: bit i enables data[i]
  std::array<uint8_t, kMaxRequestBytes> data{};  // writes: data[0..len)
};

struct HbmResponse {
  uint64_t tag = 0;
  uint64_t addr = 0;
  uint32_t len = 0;
  bool is_write = false;
  uint64_t submit_cycle = 0;
  uint64_t completion_cycle = 0;                 // the cycle the last data beat left the data bus
  std::array<uint8_t, kMaxRequestBytes> data{};  // reads: data[0..len)
  uint64_t Latency() const { return completion_cycle - submit_cycle; }
};

enum class HbmCommandKind { kActivate, kPrecharge, kRead, kWrite, kRefreshAll, kRefreshBank };
const char* HbmCommandName(HbmCommandKind kind);

// One DRAM command as the controller issued it, for tracing and for protocol checks in tests.
struct HbmCommand {
  HbmCommandKind kind;
  uint64_t cycle;        // core cycle of issue
  uint64_t milli_cycle;  // exact issue time in 1/1000 cycle (column commands may sit between cycles)
  uint32_t pc_index;     // channel * pseudo_channels + pseudo_channel
  uint32_t bank_index;   // bank within the pseudo-channel (bank_group * banks_per_group + bank); 0 for REFab
  uint64_t row;          // ACT, RD, WR
  uint32_t column;       // RD, WR (in 32-byte bursts)
};

// Splits [addr, addr+len) into requests the model accepts: chunks up to 64 bytes that do not cross
// a 64-byte boundary. Calls fn(chunk_addr, chunk_len, offset_in_transfer) in address order.
template <typename Fn>
void SplitTransfer(uint64_t addr, uint64_t len, Fn&& fn) {
  uint64_t offset = 0;
  while (offset < len) {
    uint64_t a = addr + offset;
    uint64_t chunk = kMaxRequestBytes - (a % kMaxRequestBytes);
    if (chunk > len - offset) chunk = len - offset;
    fn(a, static_cast<uint32_t>(chunk), offset);
    offset += chunk;
  }
}

// HbmModel: one HBM device (a stack, or several if the config says so) with its memory controller.
//
// Use: Submit() requests (false = back-pressure: a target queue is full, nothing was queued), call
// Tick() once per core cycle, and collect responses with PopResponse() or a response callback.
// A request is split into 32-byte column accesses ("atoms"), each queued at the pseudo-channel its
// address maps to; the response comes when its last atom's data has crossed the bus. Responses may
// complete out of order; accesses to the same 32-byte atom keep their submission order when either
// is a write, so a read always returns the data of every write accepted before it.
//
// Per pseudo-channel and per cycle the controller issues at most one row command (ACT, PRE, PREA,
// REF) and one or more column commands (RD/WR; as many as the data bus allows, usually one), chosen
// FR-FCFS-Cap: the oldest row hit first, then row commands for the oldest request that needs one. A
// row with queued hits is not closed for an older request to another row of the bank, unless
// `row_hit_cap` columns counted as `row_hit_count` says have been served from it (then the younger
// hits wait and that request goes first), or that request is the pseudo-channel's oldest and has
// been so for `starvation_cycles` (the guard promotes it alone).
// Open-page policy: rows stay open until a conflict or a refresh closes them.
//
// Liveness: the oldest access of a pseudo-channel issues within HeadWaitBound() cycles of becoming
// the oldest, so every access within RequestWaitBound() of its submission. Tick checks the first and
// throws std::logic_error, naming the pseudo-channel's and the bank's state, if it is ever exceeded.
//
// Not modelled (accuracy boundary):
//  - the command/address bus shared by the two pseudo-channels of a channel, and command-bus
//    bandwidth in general (separate row and column command slots each core cycle);
//  - HBM3 stack IDs (SIDs), which behave like extra bank groups, and the 2-cycle ACT command;
//  - refresh postponement/pull-in, tRREFD (REFsb is paced by tRRD_S/tFAW like an ACT), temperature-
//    dependent refresh rates, refresh management (RFM), self refresh and power-down;
//  - write data buffering in the controller: a write occupies a queue slot until its column command;
//  - ECC, data bus inversion, parity, training, power and energy;
//  - clock-domain crossing: the DRAM runs in core cycles, with timing rounded up to whole cycles
//    (data-bus burst and tCCD kept in 1/1000 cycle, see HbmCycles).
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
  bool Idle() const { return queued_atoms_ == 0 && completions_pending_ == 0; }

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

  // The longest an access waits as its pseudo-channel's oldest before its column command issues:
  // `starvation_cycles`, then what the promoted access may still have to wait for, each once: a
  // refresh (tRFC, or tRFCsb per bank, after the row's tRAS), the open row's closing (tWR after write
  // data, tRP), its own ACT behind other banks' (tRRD_L, tFAW), tRCD, and the data bus turning to it
  // (tWTR_L after write data or the read-to-write gap, a burst). In cycles; docs/hbm.md states it.
  uint64_t HeadWaitBound() const;
  // The longest any access waits from Submit to its column command: at most queue_depth - 1 older
  // accesses of its pseudo-channel are served before it, each within HeadWaitBound() of becoming
  // the oldest, then it: queue_depth * HeadWaitBound().
  uint64_t RequestWaitBound() const { return static_cast<uint64_t>(config_.queue_depth) * HeadWaitBound(); }

 private:
  static constexpr uint64_t kM = HbmCycles::kMilli;

  // A queued 32-byte access. It lives in one slot of its pseudo-channel's slot array from Submit
  // to its column command, and is listed (by slot index) in its bank's queue, oldest first. The
  // scheduler's rules are stated in submission order over the whole pseudo-channel queue, but
  // every rule looks only at accesses of one bank (row hits, bypasses, same-atom hazards, the
  // oldest access of a bank), so per-bank queues give the same choices; across banks the oldest
  // candidate (smallest seq) wins, as the whole-queue scan would have found it first.
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
    uint8_t row_cause;    // 0 hit, 1 this access needed an ACT, 2 it needed PRE + ACT
    uint16_t deps;        // older queued accesses to the same atom it must wait for
    uint16_t dependents;  // younger queued accesses that wait for it (their deps count it)
  };
  // What one bank offers the column scheduler in one direction: its oldest row hit with no
  // same-atom hazard that the row-hit cap lets through (seq ~0: none).
  struct Offer {
    uint64_t seq = ~0ull;
    uint32_t pos = 0;       // position in the bank's queue
    bool bypasses = false;  // an older access to another row of the bank is queued
  };
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    uint64_t act_ok = 0;                  // earliest ACT / REF (milli-cycles)
    uint64_t pre_ok = 0;                  // earliest PRE
    uint64_t col_ok = 0;                  // earliest RD/WR (tRCD)
    uint32_t queued = 0;                  // queued accesses for this bank
    uint32_t queued_hits = 0;             // ... of which target the open row
    uint32_t cap_count = 0;               // columns from the open row the row-hit cap counts (row_hit_count)
    std::array<uint32_t, 2> unblocked{};  // queued accesses with no same-atom hazard: [0] reads, [1] writes
    std::vector<uint32_t> queue;          // slots of the queued accesses, oldest first
    // [0] reads, [1] writes. A function of this bank's queue and row state only, so recomputed
    // (FindOffers) only after they change: IssueColumn, Activate and Precharge mark the bank in
    // PseudoChannel::stale_banks; Submit updates it in place.
    std::array<Offer, 2> offers;
  };
  struct BankGroup {
    uint64_t act_ok = 0;  // tRRD_L
    uint64_t rd_ok = 0;   // tCCD_L, tWTR_L
    uint64_t wr_ok = 0;   // tCCD_L
  };
  struct PseudoChannel {
    std::vector<Entry> slots;          // queue_depth of them; a queued access holds one
    std::vector<uint32_t> free_slots;  // slots holding no access
    uint32_t queued = 0;               // accesses queued (slots in use)
    // bit b: bank b's oldest access needs a row command (its row is not the open one): the banks
    // TryRowCommand looks at. Kept by UpdateRowAsker wherever a bank's front access or open row changes.
    uint64_t row_askers = 0;
    std::array<uint32_t, 2> unblocked{};    // the banks' unblocked counts, summed
    uint64_t stale_banks = 0;               // bit b: bank b's offers need FindOffers
    std::array<uint64_t, 2> offer_banks{};  // bit b: bank b (not stale) has an offer, [0] read, [1] write
    // Queued accesses by AtomBucket of their address: Submit looks for older accesses to the same
    // atom only when its bucket is not empty (in a stream, almost never).
    std::array<uint16_t, 256> atom_buckets{};
    // The accesses in submission order; an issued access stays until OldestSlot finds it at the
    // front (its slot then holds another seq, or seq 0 when free).
    struct Age {
      uint64_t seq;
      uint32_t slot;
    };
    std::deque<Age> age;
    // No column command can issue before bus_wake: the data bus and tCCD/tWTR allow none (it
    // depends only on the last column command, so it is set when one issues). TryColumn cannot
    // issue before column_wake either unless the pseudo-channel's state changes (a Submit, a row
    // or refresh command); set when it fails, from the times its checks depend on.
    uint64_t bus_wake = 0;
    uint64_t column_wake = 0;
    // Nothing in TickPseudoChannel can act before this cycle (no column, row or refresh command
    // may issue) unless a Submit changes the queue; Tick then only counts busy_cycles.
    uint64_t sleep_until = 0;
    // The cycle the oldest queued access became the oldest (the starvation guard's clock).
    uint64_t head_since = 0;
    std::vector<Bank> banks;
    std::vector<BankGroup> groups;
    uint64_t act_ok = 0;  // tRRD_S
    uint64_t rd_ok = 0;   // tCCD_S, tWTR_S
    uint64_t wr_ok = 0;   // tCCD_S, read-to-write turnaround
    uint64_t bus_free = 0;
    uint64_t non_hits = 0;         // queued accesses whose row is not open: they need row commands
    uint64_t row_wake = 0;         // no row command can issue before this time (milli-cycles), unless the queue changes
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
  // Whether the row-hit cap holds back the bank's hits that are younger than an access to another row.
  bool Capped(const Bank& bank) const { return config_.row_hit_cap != 0 && bank.cap_count >= config_.row_hit_cap; }
  // The liveness check's message: the pseudo-channel's oldest access, its bank's state and queue.
  std::string DescribeStall(uint32_t pc_index, uint64_t now);
  bool HandleRefresh(uint32_t pc_index, uint64_t now);  // true if it used the row-command slot
  bool TryColumn(uint32_t pc_index, uint64_t now);
  void TryRowCommand(uint32_t pc_index, uint64_t now);
  // Issues the access at position `pos` of bank `bank`'s queue at time t_mc.
  void IssueColumn(uint32_t pc_index, uint32_t bank, size_t pos, uint64_t t_mc, bool bypasses);
  void FindOffers(PseudoChannel& pc, uint32_t bank) const;
  // Bank b's offer in direction w: the first eligible hit of that direction at or after position
  // `from` of its queue, given whether an access to another row comes before `from`.
  void ResumeOffer(PseudoChannel& pc, uint32_t b, int w, size_t from, bool behind_other_row) const;
  // Sets bank b's offer in direction w and its bit in offer_banks.
  static void SetOffer(PseudoChannel& pc, uint32_t b, int w, const Offer& offer);
  // A hash of a 32-byte atom's address, 0..255 (PseudoChannel::atom_buckets).
  static uint32_t AtomBucket(uint64_t atom_addr) {
    return static_cast<uint32_t>(((atom_addr >> HbmAddressMap::kBurstBits) * 0x9E3779B97F4A7C15ull) >> 56);
  }
  // The locations of the one or two 32-byte atoms of [addr, addr+len) (len 1..64, within a
  // 64-byte block); returns how many.
  uint32_t PlaceAtoms(uint64_t addr, uint32_t len, HbmPlace* atoms) const;
  // Whether the queues have room for those atoms.
  bool RoomFor(const HbmPlace* atoms, uint32_t n) const;
  // Slot of the oldest queued access of a pseudo-channel (its queue must not be empty).
  uint32_t OldestSlot(PseudoChannel& pc);
  // Sets or clears bank b's bit in pc.row_askers.
  void UpdateRowAsker(PseudoChannel& pc, uint32_t b) const;
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
  uint64_t refi_bank_ = 0;    // per-bank refresh interval in cycles
  uint32_t group_shift_ = 0;  // log2(banks_per_group): a bank index's bank group is index >> group_shift_
  uint64_t head_bound_ = 0;   // HeadWaitBound()
  std::vector<PseudoChannel> pcs_;
  std::vector<Tracker> trackers_;
  std::vector<uint32_t> free_trackers_;
  // The trackers whose last atom has issued, by the cycle their response completes: a ring of one
  // bucket per cycle. A column command completes at most CL or WL plus a burst after the cycle it
  // issues in, so the ring only needs to be that long (sized in the constructor) and no heap is kept;
  // each Tick delivers its own cycle's bucket in tracker order, the order a (cycle, tracker) heap
  // would pop it.
  std::vector<std::vector<uint32_t>> completion_ring_;
  uint64_t completion_mask_ = 0;      // ring size - 1 (a power of two)
  uint64_t completions_pending_ = 0;  // trackers in the ring
  std::deque<HbmResponse> ready_;
  std::function<void(const HbmResponse&)> on_response_;
  std::function<void(const HbmCommand&)> on_command_;
  uint64_t now_ = 0;
  uint64_t stats_start_ = 0;
  uint64_t seq_ = 0;
  uint64_t queued_atoms_ = 0;
  uint64_t outstanding_ = 0;
  uint64_t next_refresh_min_ = ~0ull;
  uint64_t columns_issued_ = 0;  // column commands since construction: queue room is freed only by one
  // The last request Submit rejected for want of room, and when (see Submit).
  struct Rejected {
    uint64_t addr = ~0ull;
    uint32_t len = 0;
    uint64_t columns_issued = 0;
    uint32_t pc_index = 0;
  } rejected_;
};

}  // namespace strata::hbm

#endif  // STRATA_SIM_HBM_HBM_MODEL_H_
