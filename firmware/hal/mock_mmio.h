// Host only: MockMmio, the test double behind hal::MmioRegion (OpenTitan's mock_mmio): a test states the register
// writes it expects and scripts the values reads return, in order; every access is also logged. An access the
// script does not expect is a mismatch (kept as a message) unless a backing device is given, which then serves it
// (a model of the hardware, so a test can script a few registers and let the model answer the rest).
#ifndef STRATA_FW_HAL_MOCK_MMIO_H_
#define STRATA_FW_HAL_MOCK_MMIO_H_

#include <stdint.h>

#include <deque>
#include <string>
#include <vector>

#include "hal/mmio.h"

namespace strata::hal {

struct MmioAccess {
  bool write = false;
  uintptr_t address = 0;
  uint32_t value = 0;
  bool operator==(const MmioAccess& o) const { return write == o.write && address == o.address && value == o.value; }
};
std::string ToString(const MmioAccess& a);

class MockMmio : public MockDevice {
 public:
  // Installs itself as the mock device (SetMockDevice) for its lifetime.
  explicit MockMmio(MockDevice* backing = nullptr);
  ~MockMmio() override;
  MockMmio(const MockMmio&) = delete;
  MockMmio& operator=(const MockMmio&) = delete;

  // The next access must be a write of `value` to `address`.
  void ExpectWrite(uintptr_t address, uint32_t value);
  // The next access must be a read of `address`; it returns `value`.
  void ExpectRead(uintptr_t address, uint32_t value);

  // Mismatches so far, one line each, and expectations not yet met: empty when the script was followed exactly.
  std::string Problems() const;
  const std::vector<MmioAccess>& log() const { return log_; }
  void ClearLog() { log_.clear(); }

  uint32_t Read32(uintptr_t address) override;
  void Write32(uintptr_t address, uint32_t value) override;

 private:
  void Mismatch(const MmioAccess& got, const char* why);

  MockDevice* backing_;
  MockDevice* previous_;
  std::deque<MmioAccess> expected_;
  std::vector<MmioAccess> log_;
  std::string problems_;
};

}  // namespace strata::hal

#endif  // STRATA_FW_HAL_MOCK_MMIO_H_
