// HBM-side bridge of the DMA engine: row commands in, 64-byte HBM requests out, data moved.
#include "hbm_bridge.h"

#include <algorithm>
#include <cstring>

#include "Vtpu_top.h"

namespace strata::sim {
namespace {

constexpr size_t kMaxCommands = 32;   // accepted and unfinished row commands
constexpr uint32_t kReadWindow = 32;  // READ: lines in flight or waiting for the RTL (64 B/cycle port)

uint8_t WideByte(const VlWide<16>& w, unsigned i) { return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4))); }

void SetWideByte(VlWide<16>& w, unsigned i, uint8_t v) {
  const unsigned shift = 8 * (i % 4);
  w[i / 4] = (w[i / 4] & ~(0xffu << shift)) | (uint32_t{v} << shift);
}

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

void HbmBridge::Queue(const hbm::HbmRequest& request, uint64_t command, uint64_t offset) {
  hbm::HbmRequest r = request;
  r.tag = next_request_++;
  pending_[r.tag] = Pending{command, offset};
  to_submit_.push_back(r);
}

void HbmBridge::BeforeRisingEdge(Vtpu_top& top) {
  // Row commands.
  top.mem_cmd_ready_i = 0;
  if (top.mem_cmd_valid_o && commands_.size() < kMaxCommands) {
    top.mem_cmd_ready_i = 1;
    Command c{};
    c.id = next_command_++;
    c.op = static_cast<Op>(top.mem_cmd_op_o);
    c.tag = top.mem_cmd_tag_o;
    c.src = top.mem_cmd_src_o;
    c.dst = top.mem_cmd_dst_o;
    c.len = top.mem_cmd_len_o;
    c.tier = top.mem_cmd_chip_tier_o;
    c.backward = c.op == Op::kCopy && c.dst > c.src && c.dst < c.src + c.len;
    commands_.push_back(c);
    ++stats_.commands;
  }

  // WRITE beats: they belong to the oldest WRITE of their queue that still expects bytes.
  top.mem_wr_ready_i = 0;
  if (top.mem_wr_valid_o && to_submit_.size() < max_queued_) {
    const bool tag = top.mem_wr_tag_o;
    for (Command& c : commands_) {
      if (c.op == Op::kWrite && c.tag == tag && c.received < c.len) {
        top.mem_wr_ready_i = 1;
        uint8_t data[64];
        for (unsigned i = 0; i < 64; ++i) data[i] = WideByte(top.mem_wr_data_o, i);
        AcceptWriteBeat(c, top.mem_wr_be_o, data);
        break;
      }
    }
  }

  // READ beats to the RTL, one per cycle.
  top.mem_rd_valid_i = 0;
  if (!beats_.empty()) {
    const Beat& b = beats_.front();
    top.mem_rd_valid_i = 1;
    top.mem_rd_tier_i = b.tier;
    top.mem_rd_addr_i = b.addr;
    top.mem_rd_be_i = b.be;
    for (unsigned i = 0; i < 64; ++i) SetWideByte(top.mem_rd_data_i, i, b.data[i]);
    if (top.mem_rd_ready_o) {
      if (Command* c = Find(b.command)) --c->undelivered;
      beats_.pop_front();
    }
  }

  // One completion per cycle.
  top.mem_done_valid_i = 0;
  if (!done_.empty()) {
    top.mem_done_valid_i = 1;
    top.mem_done_tag_i = done_.front();
    done_.pop_front();
  }

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

bool HbmBridge::SubmitForeign(const hbm::HbmRequest& request,
                              std::function<void(const hbm::HbmResponse&)> done) {
  if (to_submit_.size() >= max_queued_) return false;
  hbm::HbmRequest r = request;
  r.tag = next_request_++;
  foreign_[r.tag] = std::move(done);
  to_submit_.push_back(r);
  return true;
}

void HbmBridge::OnResponse(const hbm::HbmResponse& response) {
  if (auto f = foreign_.find(response.tag); f != foreign_.end()) {
    auto done = std::move(f->second);
    foreign_.erase(f);
    done(response);
    return;
  }
  auto it = pending_.find(response.tag);
  if (it == pending_.end()) return;
  const Pending p = it->second;
  pending_.erase(it);
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
    const bool finished = c.in_flight == 0 && c.undelivered == 0 &&
                          (c.op == Op::kWrite ? c.received == c.len : c.issued == c.len);
    if (finished) {
      done_.push_back(c.tag);
      it = commands_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace strata::sim
