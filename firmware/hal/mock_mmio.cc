// Host-side holder of the mock device behind hal::MmioRegion.
#include "hal/mmio.h"

namespace strata::hal {
namespace {
MockDevice* g_device = nullptr;
}  // namespace

void SetMockDevice(MockDevice* device) { g_device = device; }
MockDevice* GetMockDevice() { return g_device; }

}  // namespace strata::hal
