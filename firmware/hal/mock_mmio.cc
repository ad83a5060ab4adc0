// Host side of hal::MmioRegion: the installed mock device, and MockMmio, the scripted test double.
#include "hal/mock_mmio.h"

#include <stdio.h>

namespace strata::hal {
namespace {
MockDevice* g_device = nullptr;
}  // namespace

void SetMockDevice(MockDevice* device) { g_device = device; }
MockDevice* GetMockDevice() { return g_device; }

std::string ToString(const MmioAccess& a) {
  char s[64];
  snprintf(s, sizeof s, "%s 0x%08llx = 0x%08x", a.write ? "write" : "read", static_cast<unsigned long long>(a.address),
           a.value);
  return s;
}

MockMmio::MockMmio(MockDevice* backing) : backing_(backing), previous_(GetMockDevice()) { SetMockDevice(this); }
MockMmio::~MockMmio() { SetMockDevice(previous_); }

void MockMmio::ExpectWrite(uintptr_t address, uint32_t value) { expected_.push_back({true, address, value}); }
void MockMmio::ExpectRead(uintptr_t address, uint32_t value) { expected_.push_back({false, address, value}); }

std::string MockMmio::Problems() const {
  std::string p = problems_;
  for (const MmioAccess& e : expected_) p += "expected " + ToString(e) + ", never happened\n";
  return p;
}

void MockMmio::Mismatch(const MmioAccess& got, const char* why) {
  problems_ += "access " + std::to_string(log_.size()) + ": " + ToString(got) + ": " + why;
  if (!expected_.empty()) problems_ += " (expected " + ToString(expected_.front()) + ")";
  problems_ += "\n";
}

uint32_t MockMmio::Read32(uintptr_t address) {
  MmioAccess a{false, address, 0};
  if (!expected_.empty() && !expected_.front().write && expected_.front().address == address) {
    a.value = expected_.front().value;
    expected_.pop_front();
  } else if (backing_ != nullptr) {
    a.value = backing_->Read32(address);
  } else {
    Mismatch(a, "unexpected read");
  }
  log_.push_back(a);
  return a.value;
}

void MockMmio::Write32(uintptr_t address, uint32_t value) {
  const MmioAccess a{true, address, value};
  if (!expected_.empty() && expected_.front() == a) {
    expected_.pop_front();
  } else if (backing_ == nullptr) {
    Mismatch(a, "unexpected write");
  }
  if (backing_ != nullptr) backing_->Write32(address, value);
  log_.push_back(a);
}

}  // namespace strata::hal
