// The Verilated Strata device (core, SMEM, registers) with clocking, loading and FST tracing.
// Kept free of SystemC headers: Verilator's headers change behaviour when SystemC is visible.
#ifndef STRATA_SIM_DEVICE_H_
#define STRATA_SIM_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chip_model.h"
#include "elf_loader.h"
#include "hbm/hbm_config.h"

class VerilatedContext;
class VerilatedFstC;

namespace strata::hbm {
class HbmModel;
}

namespace strata::sim {

class HbmBridge;

struct TraceOptions {
  std::string path;  // empty: no waveform; *.fst, or *.vcd (converted with GTKWave's fst2vcd)
  uint64_t start = 0;
  uint64_t end = UINT64_MAX;
  int depth = 0;  // hierarchy levels; 0 = all
};

// The chip (Verilated RTL) with its HBM stack (cycle-level model) behind the DMA bridge.
class Device {
 public:
  static constexpr int kDefaultMxuN = 16;
  // The chip with an mxu_n x mxu_n matrix unit; throws std::invalid_argument (naming the built
  // sizes, BuiltMxuSizesText()) when this build has no such chip.
  Device(const TraceOptions& trace, const hbm::HbmConfig& hbm, int mxu_n = kDefaultMxuN);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // One full clock cycle (falling then rising edge).
  void Tick();
  // Holds the core in reset for a few cycles and writes every segment into SMEM through the
  // host port; the core starts at the reset vector on the next Tick().
  void ResetAndLoad(const ElfImage& image);
  // Resets the chip and keeps the control core held in reset (for loading, and for tests that
  // drive the device through the host port only).
  void HoldInReset();

  // Host port: one 32-bit access by device address (SMEM or registers). Ticks the clock until
  // the device grants the access (the core has priority), then once more for read data.
  void HostWrite32(uint32_t address, uint32_t value, uint8_t byte_enable = 0xf);
  uint32_t HostRead32(uint32_t address);

  // Outputs sampled after the last rising edge.
  bool console_valid() const { return chip_->console_valid(); }
  char console_char() const { return chip_->console_char(); }
  bool tohost_valid() const { return chip_->tohost_valid(); }
  uint32_t tohost_value() const { return chip_->tohost_value(); }
  uint64_t instret() const { return chip_->instret(); }
  bool sleeping() const { return chip_->sleeping(); }
  void set_irq(uint32_t lines);
  int mxu_n() const { return chip_->mxu_n(); }

  // Models that must act every cycle (before the rising edge) register here; returns an id.
  int AddCycleHook(std::function<void()> hook);
  void RemoveCycleHook(int id);

  uint64_t edges() const { return cycle_; }
  hbm::HbmModel& hbm() { return *hbm_; }
  HbmBridge& bridge() { return *bridge_; }
  // Finishes the waveform file (also done by the destructor); returns false if a conversion failed.
  bool CloseTrace();

 private:
  uint32_t HostAccess(bool write, uint32_t address, uint32_t value, uint8_t byte_enable);

  TraceOptions trace_opts_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<ChipModel> chip_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::string trace_fst_path_;
  std::unique_ptr<hbm::HbmModel> hbm_;
  std::unique_ptr<HbmBridge> bridge_;
  std::vector<std::function<void()>> hooks_;
  uint64_t cycle_ = 0;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_DEVICE_H_
