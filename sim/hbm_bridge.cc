// HBM-side bridge of the DMA engine: row commands in, 64-byte HBM requests out, data moved.
#include "hbm_bridge.h"

#include <algorithm>
#include <cstring>

namespace strata::sim {
namespace {

constexpr uint32_t kReadWindow = 32;  // READ: lines in flight or waiting for the RTL (64 B/cycle port)

}  // namespace

// The bridge keeps enough 64-byte requests in flight to cover the HBM's bandwidth-delay product:
// a copy issues a read and a write per 64 bytes, and a loaded HBM answers in ~150-250 cycles.
HbmBridge::HbmBridge(hbm::HbmModel& hbm) : hbm_(hbm) {
  const uint32_t per_cycle = static_cast<uint32_t>(hbm_.config().PeakBytesPerCycle() / 64 + 1);
  submits_per_cycle_ = 2 * per_cycle + 2;
  copy_window_ = std::max<uint32_t>(256, 2 * per_cycle * 200);
  max_queued_ = copy_window_ / 4;
  hbm_.SetResponseCallback([this](const hbm::HbmResponse& r) { OnResponse(r); });
}

bool HbmBridge::Idle() const {
  return commands_.empty() && to_submit_.empty() && beats_.empty() && done_.empty() && foreign_.empty();
}

HbmBridge::Command* HbmBridge::Find(uint64_t id) {
  for (Command& c : commands_) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

uint64_t HbmBridge::NewTag(const Pending& pending) {
  if (free_tags_.empty()) {
    pending_.push_back(pending);
    return pending_.size() - 1;
  }
  const uint32_t tag = free_tags_.back();
  free_tags_.pop_back();
  pending_[tag] = pending;
  return tag;
}

void HbmBridge::Queue(const hbm::HbmRequest& request, uint64_t command, uint64_t offset) {
  to_submit_.push_back(request);
  to_submit_.back().tag = NewTag(Pending{command, offset, false});
}

void HbmBridge::AcceptCommand(uint8_t op, bool tag, uint64_t src, uint64_t dst, uint64_t len, uint8_t tier) {
  Command c{};
  c.id = next_command_++;
  c.op = static_cast<Op>(op);
  c.tag = tag;
  c.src = src;
  c.dst = dst;
  c.len = len;
  c.tier = tier;
  c.accepted_cycle = hbm_.Now();
  c.backward = c.op == Op::kCopy && c.dst > c.src && c.dst < c.src + c.len;
  commands_.push_back(c);
  ++stats_.commands;
}

void HbmBridge::BeatDelivered() {
  if (Command* c = Find(beats_.front().command)) --c->undelivered;
  beats_.pop_front();
}

HbmBridge::Command* HbmBridge::FindWriteTarget(bool tag) {
  for (Command& c : commands_) {
    if (c.op == Op::kWrite && c.tag == tag && c.received < c.len) return &c;
  }
  return nullptr;
}

void HbmBridge::AdvanceHbm() {
  Generate();
  for (uint32_t n = 0; n < submits_per_cycle_ && !to_submit_.empty(); ++n) {
    if (!hbm_.Submit(to_submit_.front())) break;
    to_submit_.pop_front();
  }
  hbm_.Tick();
  Retire();
}

// Queues HBM reads for READ and COPY rows, oldest command first, within each one's window. A COPY
// waits for older commands of its queue so rows of one descriptor move in order (memmove).
void HbmBridge::Generate() {
  bool copy_blocked[2] = {false, false};
  for (Command& c : commands_) {
    const bool wait = c.op == Op::kCopy && copy_blocked[c.tag];
    copy_blocked[c.tag] = true;
    if (c.op == Op::kWrite || wait) continue;
    const uint32_t window = c.op == Op::kCopy ? copy_window_ : kReadWindow;
    while (c.issued < c.len && to_submit_.size() < max_queued_ && c.in_flight + c.undelivered < window) {
      hbm::HbmRequest r;
      uint64_t offset;
      if (!c.backward) {
        const uint64_t a = c.src + c.issued;
        r.addr = a;
        r.len = static_cast<uint32_t>(std::min<uint64_t>(64 - a % 64, c.len - c.issued));
        offset = c.issued;
      } else {
        const uint64_t end = c.src + c.len - c.issued;
        const uint64_t start = std::max(c.src, (end - 1) & ~uint64_t{63});
        r.addr = start;
        r.len = static_cast<uint32_t>(end - start);
        offset = start - c.src;
      }
      r.is_write = false;
      c.issued += r.len;
      ++c.in_flight;
      Queue(r, c.id, offset);
    }
  }
}

bool HbmBridge::SubmitForeign(const hbm::HbmRequest& request, std::function<void(const hbm::HbmResponse&)> done) {
  if (to_submit_.size() >= max_queued_) return false;
  hbm::HbmRequest r = request;
  r.tag = NewTag(Pending{0, 0, true});
  foreign_[r.tag] = std::move(done);
  to_submit_.push_back(r);
  return true;
}

void HbmBridge::OnResponse(const hbm::HbmResponse& response) {
  if (response.tag >= pending_.size()) return;
  const Pending p = pending_[response.tag];
  free_tags_.push_back(static_cast<uint32_t>(response.tag));
  if (p.foreign) {
    auto f = foreign_.find(response.tag);
    auto done = std::move(f->second);
    foreign_.erase(f);
    done(response);
    return;
  }
  Command* c = Find(p.command);
  if (c == nullptr) return;
  --c->in_flight;
  if (response.is_write) return;

  if (c->op == Op::kRead) {
    // Into on-chip lines at dst + offset (a response can straddle two lines).
    const uint64_t chip = c->dst + p.offset;
    hbm::SplitTransfer(chip, response.len, [&](uint64_t a, uint32_t n, uint64_t off) {
      Beat b{};
      b.tier = c->tier;
      b.addr = static_cast<uint32_t>(a & ~uint64_t{63});
      b.command = c->id;
      for (uint32_t i = 0; i < n; ++i) {
        const unsigned lane = static_cast<unsigned>((a + i) % 64);
        b.data[lane] = response.data[off + i];
        b.be |= uint64_t{1} << lane;
      }
      beats_.push_back(b);
      ++c->undelivered;
    });
    stats_.bytes_read_to_chip += response.len;
  } else {  // COPY: write the bytes at dst + offset
    hbm::SplitTransfer(c->dst + p.offset, response.len, [&](uint64_t a, uint32_t n, uint64_t off) {
      hbm::HbmRequest w;
      w.addr = a;
      w.len = n;
      w.is_write = true;
      std::memcpy(w.data.data(), response.data.data() + off, n);
      ++c->in_flight;
      Queue(w, c->id, p.offset + off);
    });
    stats_.bytes_copied += response.len;
  }
}

// A WRITE beat carries the on-chip line after the previous one of its row; its enabled bytes
// are contiguous and go to dst + (chip address - src).
void HbmBridge::AcceptWriteBeat(Command& c, uint64_t be, const uint8_t* data) {
  if (be == 0) return;
  const unsigned first = static_cast<unsigned>(__builtin_ctzll(be));
  const unsigned last = 63 - static_cast<unsigned>(__builtin_clzll(be));
  // Chip address of the first enabled byte: beats arrive in order, so it is src + received.
  const uint64_t chip = c.src + c.received;
  const uint32_t n = last - first + 1;
  hbm::SplitTransfer(c.dst + (chip - c.src), n, [&](uint64_t a, uint32_t len, uint64_t off) {
    hbm::HbmRequest w;
    w.addr = a;
    w.len = len;
    w.is_write = true;
    std::memcpy(w.data.data(), data + first + off, len);
    ++c.in_flight;
    Queue(w, c.id, c.received + off);
  });
  c.received += n;
  stats_.bytes_written_from_chip += n;
}

void HbmBridge::Retire() {
  for (auto it = commands_.begin(); it != commands_.end();) {
    const Command& c = *it;
    const bool finished =
        c.in_flight == 0 && c.undelivered == 0 && (c.op == Op::kWrite ? c.received == c.len : c.issued == c.len);
    if (finished) {
      if (sink_ != nullptr) {
        const char* name = c.op == Op::kRead ? "hbm_read" : c.op == Op::kWrite ? "hbm_write" : "hbm_copy";
        Event e{"dma", name, c.accepted_cycle, hbm_.Now(), static_cast<int64_t>(c.len), c.id};
        e.has_address = true;  // READ: HBM -> on-chip; WRITE: on-chip -> HBM; COPY: HBM -> HBM
        e.address = c.src;
        e.to_address = c.dst;
        sink_->OnEvent(e);
      }
      done_.push_back(c.tag);
      it = commands_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace strata::sim
