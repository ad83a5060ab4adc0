// HBM-side bridge: the memory end of the DMA engine. Takes the RTL DMA's row commands, splits
// them into 64-byte HBM requests, and moves the bytes: HBM lines back to the RTL as on-chip line
// beats (READ), RTL line beats into HBM writes (WRITE), HBM to HBM through its own staging
// (COPY, memmove order). Timing comes from the cycle-level HBM model; the bridge adds none.
//
// Accuracy boundary: the bridge's own buffering is bounded (commands, staged bytes, queued
// requests) but costs no cycles; a real NoC/bridge would add a few cycles of latency per hop.
#ifndef STRATA_SIM_HBM_BRIDGE_H_
#define STRATA_SIM_HBM_BRIDGE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "event_sink.h"
#include "hbm/hbm_model.h"
#include "strata/regmap.h"

namespace strata::sim {

struct BridgeStats {
  uint64_t commands = 0;
  uint64_t bytes_read_to_chip = 0;
  uint64_t bytes_written_from_chip = 0;
  uint64_t bytes_copied = 0;
};

class HbmBridge {
 public:
  explicit HbmBridge(hbm::HbmModel& hbm);

  // Called between the falling and the rising clock edge: samples the DMA's outputs, drives the
  // handshake inputs that the rising edge will see, then advances the HBM model one cycle.
  // Defined in hbm_bridge_ports.h for any Verilated tpu_top class (one per matrix-unit size), so
  // the ports cost no calls; the chip model (verilated_chip.h) calls it.
  template <class Top>
  void BeforeRisingEdge(Top& top);
  // Whether the last BeforeRisingEdge drove a handshake (accepted a command or a write beat,
  // offered a read beat or a completion): the chip's inputs differed from an idle cycle's.
  bool ports_active() const { return ports_active_; }
  // A cycle in which the chip is not evaluated (Device's quiescent cycles): allowed only while the
  // bridge has nothing to hand the chip (no read beat, no completion); advances the HBM model.
  bool HasBeatOrCompletion() const { return !beats_.empty() || !done_.empty(); }
  void AdvanceWithoutChip() { AdvanceHbm(); }
  bool Idle() const;
  const BridgeStats& stats() const { return stats_; }
  // Each finished DMA row command is reported as a span on track "dma" ("hbm_read": HBM to the chip,
  // "hbm_write": the chip to HBM, "hbm_copy": HBM to HBM; value = bytes; source and destination address,
  // the on-chip side as the DMA addresses it). Null: none.
  void set_event_sink(EventSink* sink) { sink_ = sink; }

  // Another HBM client (the host link's copy engine) queues a request through the same
  // submission order; `done` runs when its response arrives. False when the queue is full.
  bool SubmitForeign(const hbm::HbmRequest& request, std::function<void(const hbm::HbmResponse&)> done);

 private:
  // The DMA's row-command encoding (rtl/regmap.json BRIDGE_OP; tpu_dma's mem_cmd_op_o).
  enum class Op : uint8_t {
    kRead = STRATA_BRIDGE_OP_READ,
    kWrite = STRATA_BRIDGE_OP_WRITE,
    kCopy = STRATA_BRIDGE_OP_COPY
  };
  struct Command {
    uint64_t id;
    Op op;
    bool tag;
    uint64_t src, dst, len;
    uint8_t tier;
    uint64_t accepted_cycle = 0;
    bool backward = false;     // COPY: highest chunk first
    uint64_t issued = 0;       // bytes whose HBM read was queued (READ, COPY)
    uint64_t received = 0;     // bytes of beats received (WRITE)
    uint32_t in_flight = 0;    // HBM requests queued or outstanding
    uint32_t undelivered = 0;  // READ beats not yet taken by the RTL
  };
  struct Beat {
    uint8_t tier;
    uint32_t addr;
    uint64_t be;
    std::array<uint8_t, 64> data;
    uint64_t command;
  };
  struct Pending {     // what an HBM request belongs to; indexed by the request's tag
    uint64_t command;  // (DMA requests)
    uint64_t offset;   // byte offset of the request within the command's row
    bool foreign;      // the host link's: its callback is in foreign_
  };

  static constexpr size_t kMaxCommands = 32;  // accepted and unfinished row commands

  Command* Find(uint64_t id);
  void AcceptCommand(uint8_t op, bool tag, uint64_t src, uint64_t dst, uint64_t len, uint8_t tier);
  void BeatDelivered();  // the RTL took beats_.front()
  // WRITE beats belong to the oldest WRITE of their queue that still expects bytes.
  Command* FindWriteTarget(bool tag);
  // The cycle's work after the ports: queue reads, submit to the HBM, tick it, retire commands.
  void AdvanceHbm();
  void Generate();
  void Queue(const hbm::HbmRequest& request, uint64_t command, uint64_t offset);
  // A tag for a new request (a free index into pending_, which it then describes).
  uint64_t NewTag(const Pending& pending);
  void OnResponse(const hbm::HbmResponse& response);
  void AcceptWriteBeat(Command& c, uint64_t be, const uint8_t* data);
  void Retire();

  hbm::HbmModel& hbm_;
  EventSink* sink_ = nullptr;
  std::deque<Command> commands_;  // in arrival order
  std::deque<hbm::HbmRequest> to_submit_;
  // Requests in flight, by tag: a vector with a free list rather than a hash map, as tags are the
  // bridge's own to choose (the HBM model only returns them).
  std::vector<Pending> pending_;
  std::vector<uint32_t> free_tags_;
  std::unordered_map<uint64_t, std::function<void(const hbm::HbmResponse&)>> foreign_;  // by tag
  std::deque<Beat> beats_;
  std::deque<bool> done_;
  uint32_t submits_per_cycle_;
  uint32_t copy_window_;
  size_t max_queued_;
  uint64_t next_command_ = 1;
  bool ports_active_ = false;
  BridgeStats stats_;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_HBM_BRIDGE_H_
