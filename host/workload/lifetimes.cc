// Per-address FIFO pairing of allocations and frees.
#include "lifetimes.h"

#include <algorithm>
#include <numeric>

namespace strata::workload {

const char* Lifetimes::TotalError() {
  return "the buffers' sizes add up to more than 2^63 bytes (the most a trace CSV holds)";
}

bool Lifetimes::Add(const Record& r) {
  // Each size is at most replay::kMaxTraceBytes (the importers check), so the sum is checked by difference.
  if (r.size > replay::kMaxTraceTotalBytes - total_bytes_ || records_.size() >= kNone) return false;
  total_bytes_ += r.size;
  records_.push_back(r);
  return true;
}

bool Lifetimes::Open(uint64_t addr, uint64_t size, uint64_t time, bool requested, uint64_t request_time,
                     uint32_t label) {
  if (!Add(Record{time, requested ? request_time : 0, size, kNone, true, requested})) return false;
  const uint32_t index = static_cast<uint32_t>(records_.size() - 1);
  if (label != kNoLabel || !labels_.empty()) {
    labels_.resize(index, kNoLabel);
    labels_.push_back(label);
  }
  Queue& q = open_[addr];
  if (q.tail != kNone) {
    records_[q.tail].next = index;
  } else {
    q.head = index;
  }
  q.tail = index;
  if (!requested && q.unrequested == kNone) q.unrequested = index;
  return true;
}

bool Lifetimes::Alloc(uint64_t addr, uint64_t size, uint64_t time, uint32_t label) {
  return Open(addr, size, time, false, 0, label);
}

bool Lifetimes::FreeRequested(uint64_t addr, uint64_t size, uint64_t time) {
  auto it = open_.find(addr);
  if (it != open_.end() && it->second.unrequested != kNone) {
    Record& r = records_[it->second.unrequested];
    r.requested = true;
    r.upper = time;
    it->second.unrequested = r.next;
    return true;
  }
  return Open(addr, size, 0, true, time);
}

bool Lifetimes::Free(uint64_t addr, uint64_t size, uint64_t time) {
  auto it = open_.find(addr);
  if (it == open_.end()) return Add(Record{0, time, size, kNone, false, false});
  Queue& q = it->second;
  const uint32_t index = q.head;
  Record& r = records_[index];
  if (q.unrequested == index) q.unrequested = r.next;
  q.head = r.next;
  if (q.head == kNone) open_.erase(it);
  r.upper = time;
  r.open = false;
  r.next = kNone;
  return true;
}

bool Lifetimes::IsOpen(uint64_t addr) const { return open_.find(addr) != open_.end(); }

bool Lifetimes::Initial(uint64_t addr, uint64_t size, uint32_t label) { return Open(addr, size, 0, false, 0, label); }

void Lifetimes::Finish(uint64_t end_time, replay::Trace* trace, ImportStats* stats,
                       const std::vector<std::string_view>* labels) {
  size_t kept = 0;
  for (Record& r : records_) {
    if (r.size != 0) ++kept;
    if (!r.open) continue;
    r.open = false;
    if (r.requested) {
      ++stats->closed_by_request;  // upper holds the request's time
    } else {
      r.upper = end_time;
    }
  }
  std::vector<uint32_t> order(records_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return records_[a].lower < records_[b].lower; });
  trace->buffers.clear();
  trace->buffers.reserve(kept);
  trace->labels.clear();
  const bool labelled = labels != nullptr && !labels_.empty();
  if (labelled) trace->labels.reserve(kept);
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
    if (labelled) {
      const uint32_t label = index < labels_.size() ? labels_[index] : kNoLabel;
      trace->labels.push_back(label < labels->size() ? (*labels)[label] : std::string_view());
    }
  }
  records_ = {};
  labels_ = {};  // their memory too: the import's peak is while the trace is filled in
  open_ = {};
  total_bytes_ = 0;
}

}  // namespace strata::workload
