// Per-address FIFO pairing of allocations and frees.
#include "lifetimes.h"

#include <algorithm>
#include <numeric>

namespace strata::workload {

uint32_t Lifetimes::Open(uint64_t addr, uint64_t size, uint64_t time) {
  records_.push_back(Record{time, 0, size, 0, true, false});
  const uint32_t index = static_cast<uint32_t>(records_.size() - 1);
  open_[addr].push_back(index);
  return index;
}

void Lifetimes::Alloc(uint64_t addr, uint64_t size, uint64_t time) { Open(addr, size, time); }

void Lifetimes::FreeRequested(uint64_t addr, uint64_t size, uint64_t time) {
  auto it = open_.find(addr);
  if (it != open_.end()) {
    for (uint32_t index : it->second) {
      if (!records_[index].requested) {
        records_[index].requested = true;
        records_[index].request_time = time;
        return;
      }
    }
  }
  Record& r = records_[Open(addr, size, 0)];
  r.requested = true;
  r.request_time = time;
}

void Lifetimes::Free(uint64_t addr, uint64_t size, uint64_t time) {
  auto it = open_.find(addr);
  if (it == open_.end() || it->second.empty()) {
    records_.push_back(Record{0, time, size, 0, false, false});
    return;
  }
  Record& r = records_[it->second.front()];
  it->second.pop_front();
  if (it->second.empty()) open_.erase(it);
  r.upper = time;
  r.open = false;
}

bool Lifetimes::IsOpen(uint64_t addr) const {
  auto it = open_.find(addr);
  return it != open_.end() && !it->second.empty();
}

void Lifetimes::Initial(uint64_t addr, uint64_t size) { Open(addr, size, 0); }

void Lifetimes::Finish(uint64_t end_time, replay::Trace* trace, ImportStats* stats) {
  for (Record& r : records_) {
    if (!r.open) continue;
    r.open = false;
    if (r.requested) {
      r.upper = r.request_time;
      ++stats->closed_by_request;
    } else {
      r.upper = end_time;
    }
  }
  std::vector<uint32_t> order(records_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return records_[a].lower < records_[b].lower; });
  trace->buffers.clear();
  for (uint32_t index : order) {
    const Record& r = records_[index];
    if (r.size == 0) {
      ++stats->zero_size_dropped;
      continue;
    }
    replay::TraceBuffer b;
    b.id = static_cast<int64_t>(trace->buffers.size());
    b.lower = r.lower;
    b.upper = r.upper;
    b.size = r.size;
    b.line = static_cast<uint32_t>(trace->buffers.size() + 2);  // after the header, when exported
    if (b.lower == 0) ++stats->initially_live;
    if (b.upper == end_time) ++stats->never_freed;
    trace->buffers.push_back(b);
  }
  records_.clear();
  open_.clear();
}

}  // namespace strata::workload
