// Thin MMIO layer: the only way firmware touches device registers. Host builds route every
// access through a mock that a unit test can script and inspect (OpenTitan's MOCK_MMIO idea):
// hal/mock_mmio.h's MockMmio, or a model of the chip (docs/firmware-testing.md).
#ifndef STRATA_FW_HAL_MMIO_H_
#define STRATA_FW_HAL_MMIO_H_

#include <stdint.h>

namespace strata::hal {

#if defined(__riscv)

class MmioRegion {
 public:
  constexpr explicit MmioRegion(uintptr_t base) : base_(base) {}
  uint32_t Read32(uint32_t offset) const { return *reinterpret_cast<volatile const uint32_t*>(base_ + offset); }
  void Write32(uint32_t offset, uint32_t value) const { *reinterpret_cast<volatile uint32_t*>(base_ + offset) = value; }

 private:
  uintptr_t base_;
};

#else  // host: a mock device

// A test installs a MockDevice; without one, reads return 0 and writes are dropped.
class MockDevice {
 public:
  virtual ~MockDevice() = default;
  virtual uint32_t Read32(uintptr_t address) = 0;
  virtual void Write32(uintptr_t address, uint32_t value) = 0;
};

void SetMockDevice(MockDevice* device);
MockDevice* GetMockDevice();

class MmioRegion {
 public:
  constexpr explicit MmioRegion(uintptr_t base) : base_(base) {}
  uint32_t Read32(uint32_t offset) const {
    MockDevice* d = GetMockDevice();
    return d ? d->Read32(base_ + offset) : 0;
  }
  void Write32(uint32_t offset, uint32_t value) const {
    if (MockDevice* d = GetMockDevice()) d->Write32(base_ + offset, value);
  }

 private:
  uintptr_t base_;
};

#endif

}  // namespace strata::hal

#endif  // STRATA_FW_HAL_MMIO_H_
