// Host link: the PCIe-like connection between a host process and the device. A BAR for 32-bit
// register and SMEM accesses, the doorbell that interrupts the control core, and a bulk copy
// engine between host memory and HBM with the bandwidth and latency of a PCIe preset.
//
// Accuracy boundary: a transfer costs a fixed start latency plus its bytes at the preset's
// effective bandwidth (TLP/DLLP overhead folded into one efficiency figure); no link training,
// flow-control credits, replay, or host-memory (IOMMU, DRAM) timing. BAR reads cost one round
// trip of device cycles; BAR writes are posted. HBM traffic is real: the copy engine's 64-byte
// requests contend with the DMA engine's in the HBM model.
#ifndef STRATA_SIM_HOST_LINK_H_
#define STRATA_SIM_HOST_LINK_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "device.h"
#include "event_sink.h"

namespace strata::sim {

struct PcieConfig {
  std::string name;
  double bytes_per_cycle;   // effective payload bandwidth per direction at the 1 GHz core clock
  uint32_t latency_cycles;  // one-way latency of a transfer start / MMIO request
  static PcieConfig Gen4x16();
  static PcieConfig Gen5x16();
  static bool FromName(const std::string& name, PcieConfig* out);
};

class HostLink {
 public:
  HostLink(Device& device, const PcieConfig& config);
  ~HostLink();
  HostLink(const HostLink&) = delete;
  HostLink& operator=(const HostLink&) = delete;

  // BAR: device addresses (SMEM window and registers). Each call advances the device clock.
  uint32_t Read32(uint32_t address);
  void Write32(uint32_t address, uint32_t value);
  // One non-posted read request for `words` consecutive words (a multi-dword PCIe completion): one
  // round trip for the whole block, the words read in address order.
  void ReadBlock(uint32_t address, uint32_t* out, uint32_t words);
  // Posted writes of consecutive words, in address order.
  void WriteBlock(uint32_t address, const uint32_t* in, uint32_t words);
  // Writes `value` to the CTRL doorbell, which interrupts the control core.
  void RingDoorbell(uint32_t value);

  // Bulk copies; they run while the device clock advances. The host bytes are read when the
  // copy starts (to device) or written when it completes (from device). Returns a copy id, or
  // 0 (nothing started) if the HBM range lies outside the device.
  uint64_t CopyToDevice(const void* host, uint64_t hbm_address, uint64_t bytes);
  uint64_t CopyFromDevice(uint64_t hbm_address, void* host, uint64_t bytes);
  bool Done(uint64_t id) const;
  // Advances the device clock until copy `id` is done; returns the cycles it waited.
  uint64_t Wait(uint64_t id);

  const PcieConfig& config() const { return config_; }
  // Each finished copy is reported as a span on track "pcie" ("to_device" / "from_device", bytes, its HBM
  // address in both address fields). Null: none.
  void set_event_sink(EventSink* sink) { sink_ = sink; }

 private:
  struct Copy {
    uint64_t id;
    bool to_device;
    uint64_t hbm;
    uint64_t bytes;
    uint8_t* host_dst = nullptr;  // from device
    std::vector<uint8_t> data;    // staging: host bytes (to device) or device bytes (from)
    uint64_t start_cycle;         // first cycle after the start latency (asked for latency_cycles before)
    uint64_t issued = 0;          // bytes whose HBM request was queued
    uint64_t completed = 0;       // bytes whose HBM response arrived
    uint64_t finish_cycle = 0;    // from device: the cycle the last byte reaches the host
    bool finished = false;
  };
  // Checks the range and queues a copy without its data; returns its id or 0.
  uint64_t StartCopy(bool to_device, uint64_t hbm_address, uint64_t bytes, const void* host);
  void Tick();

  Device& device_;
  PcieConfig config_;
  std::deque<Copy> copies_;
  double to_credit_ = 0;    // bytes the link may carry toward the device now (full duplex:
  double from_credit_ = 0;  // each direction has its own)
  uint64_t next_id_ = 1;
  int hook_ = -1;
  EventSink* sink_ = nullptr;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_HOST_LINK_H_
