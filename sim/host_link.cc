// Host link: BAR accesses, doorbell and the PCIe-paced bulk copy engine.
#include "host_link.h"

#include <algorithm>
#include <cstring>

#include "hbm/hbm_model.h"
#include "hbm_bridge.h"
#include "strata/regmap.h"

namespace strata::sim {

// Effective payload bandwidth = raw rate x encoding x ~85% for TLP headers and DLLPs with
// 256-byte payloads; one-way latencies of ~0.8-0.9 us are typical measured device-to-host
// round trips halved (Neugebauer et al., "Understanding PCIe performance for end host
// networking", SIGCOMM 2018). Raw rates: PCIe 4.0 16 GT/s, PCIe 5.0 32 GT/s, 128b/130b.
PcieConfig PcieConfig::Gen4x16() { return {"gen4x16", 16.0 * 16 / 8 * 128.0 / 130.0 * 0.85, 900}; }
PcieConfig PcieConfig::Gen5x16() { return {"gen5x16", 32.0 * 16 / 8 * 128.0 / 130.0 * 0.85, 800}; }

bool PcieConfig::FromName(const std::string& name, PcieConfig* out) {
  if (name == "gen4x16" || name == "gen4")
    *out = Gen4x16();
  else if (name == "gen5x16" || name == "gen5")
    *out = Gen5x16();
  else
    return false;
  return true;
}

HostLink::HostLink(Device& device, const PcieConfig& config) : device_(device), config_(config) {
  hook_ = device_.AddCycleHook([this] { Tick(); });
}

HostLink::~HostLink() { device_.RemoveCycleHook(hook_); }

uint32_t HostLink::Read32(uint32_t address) {
  // A non-posted read: request and completion each cross the link.
  for (uint32_t i = 0; i < config_.latency_cycles; ++i) device_.Tick();
  const uint32_t v = device_.HostRead32(address);
  for (uint32_t i = 0; i < config_.latency_cycles; ++i) device_.Tick();
  return v;
}

void HostLink::ReadBlock(uint32_t address, uint32_t* out, uint32_t words) {
  for (uint32_t i = 0; i < config_.latency_cycles; ++i) device_.Tick();
  for (uint32_t w = 0; w < words; ++w) out[w] = device_.HostRead32(address + 4 * w);
  for (uint32_t i = 0; i < config_.latency_cycles; ++i) device_.Tick();
}

void HostLink::WriteBlock(uint32_t address, const uint32_t* in, uint32_t words) {
  for (uint32_t w = 0; w < words; ++w) device_.HostWrite32(address + 4 * w, in[w]);
}

void HostLink::Write32(uint32_t address, uint32_t value) { device_.HostWrite32(address, value); }

void HostLink::RingDoorbell(uint32_t value) { Write32(STRATA_CTRL_BASE + STRATA_CTRL_DOORBELL, value); }

uint64_t HostLink::StartCopy(bool to_device, uint64_t hbm_address, uint64_t bytes, const void* host) {
  const uint64_t cap = device_.hbm().capacity();
  if (hbm_address > cap || bytes > cap - hbm_address || (bytes != 0 && host == nullptr)) return 0;
  Copy c;
  c.id = next_id_++;
  c.to_device = to_device;
  c.hbm = hbm_address;
  c.bytes = bytes;
  c.start_cycle = device_.edges() + config_.latency_cycles;
  copies_.push_back(std::move(c));
  return copies_.back().id;
}

uint64_t HostLink::CopyToDevice(const void* host, uint64_t hbm_address, uint64_t bytes) {
  const uint64_t id = StartCopy(true, hbm_address, bytes, host);
  if (id != 0) copies_.back().data.assign(static_cast<const uint8_t*>(host), static_cast<const uint8_t*>(host) + bytes);
  return id;
}

uint64_t HostLink::CopyFromDevice(uint64_t hbm_address, void* host, uint64_t bytes) {
  const uint64_t id = StartCopy(false, hbm_address, bytes, host);
  if (id != 0) {
    copies_.back().host_dst = static_cast<uint8_t*>(host);
    copies_.back().data.resize(bytes);
  }
  return id;
}

bool HostLink::Done(uint64_t id) const {
  if (id == 0 || id >= next_id_) return false;
  for (const Copy& c : copies_) {
    if (c.id == id) return false;
  }
  return true;
}

uint64_t HostLink::Wait(uint64_t id) {
  const uint64_t start = device_.edges();
  if (id == 0 || id >= next_id_) return 0;
  while (!Done(id)) device_.Tick();
  return device_.edges() - start;
}

// Copies move in order, one at a time per direction (a DMA channel each way), paced by credit.
void HostLink::Tick() {
  const uint64_t now = device_.edges();
  const double cap = 4 * config_.bytes_per_cycle + 64;
  to_credit_ = std::min(to_credit_ + config_.bytes_per_cycle, cap);
  from_credit_ = std::min(from_credit_ + config_.bytes_per_cycle, cap);
  bool to_busy = false, from_busy = false;
  for (Copy& c : copies_) {
    bool& busy = c.to_device ? to_busy : from_busy;
    double& credit = c.to_device ? to_credit_ : from_credit_;
    if (busy || now < c.start_cycle) {
      busy = true;
      continue;
    }
    busy = true;
    while (c.issued < c.bytes) {
      const uint64_t a = c.hbm + c.issued;
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(64 - a % 64, c.bytes - c.issued));
      if (credit < n) break;
      hbm::HbmRequest r;
      r.addr = a;
      r.len = n;
      r.is_write = c.to_device;
      const uint64_t offset = c.issued;
      if (c.to_device) std::memcpy(r.data.data(), c.data.data() + offset, n);
      const uint64_t id = c.id;
      const bool ok = device_.bridge().SubmitForeign(r, [this, id, offset](const hbm::HbmResponse& resp) {
        for (Copy& x : copies_) {
          if (x.id != id) continue;
          if (!x.to_device) std::memcpy(x.data.data() + offset, resp.data.data(), resp.len);
          x.completed += resp.len;
          if (x.completed == x.bytes) {
            // The last data still has to cross the link (reads) or be acknowledged (writes).
            x.finish_cycle = device_.edges() + config_.latency_cycles;
          }
        }
      });
      if (!ok) break;
      credit -= n;
      c.issued += n;
    }
  }
  for (auto it = copies_.begin(); it != copies_.end();) {
    if (it->completed == it->bytes && it->finish_cycle != 0 && now >= it->finish_cycle) {
      if (!it->to_device && it->bytes) std::memcpy(it->host_dst, it->data.data(), it->bytes);
      if (sink_ != nullptr) {
        Event e{"pcie",
                it->to_device ? "to_device" : "from_device",
                it->start_cycle - config_.latency_cycles,
                now,
                static_cast<int64_t>(it->bytes),
                it->id};
        e.has_address = true;
        e.address = e.to_address = it->hbm;  // the device side
        sink_->OnEvent(e);
      }
      it = copies_.erase(it);
    } else if (it->bytes == 0 && now >= it->start_cycle) {
      it = copies_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace strata::sim
