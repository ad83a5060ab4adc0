// Seeded random-operation harness for the HBM allocator, shared by the stress tests, the fuzzer and the
// benchmarks: drives alloc/free/pin/compact against a reference model and a shadow copy of device memory.
#ifndef STRATA_TESTS_FIRMWARE_ALLOC_HARNESS_H_
#define STRATA_TESTS_FIRMWARE_ALLOC_HARNESS_H_

#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "alloc/allocator.h"

namespace strata::alloc::testing {

// Where the harness takes its decisions from: a seeded generator or the fuzzer's bytes.
class OpSource {
 public:
  virtual ~OpSource() = default;
  virtual uint32_t Next(uint32_t bound) = 0;  // uniform-ish in [0, bound)
  virtual bool Exhausted() const { return false; }
};

class RandomSource : public OpSource {
 public:
  explicit RandomSource(uint64_t seed) : rng_(seed) {}
  uint32_t Next(uint32_t bound) override { return bound <= 1 ? 0 : static_cast<uint32_t>(rng_() % bound); }

 private:
  std::mt19937_64 rng_;
};

class BytesSource : public OpSource {
 public:
  BytesSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint32_t Next(uint32_t bound) override {
    if (bound <= 1) return 0;
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) v = (v << 8) | (pos_ < size_ ? data_[pos_++] : 0);
    return v % bound;
  }
  bool Exhausted() const override { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct HarnessConfig {
  uint64_t capacity_bytes = 1 << 20;
  uint32_t granule_bytes = 64;
  Policy policy = Policy::kTlsf;
  uint32_t max_live = 256;
  uint32_t max_moves = 32;         // scratch moves per compaction round
  uint64_t max_request_bytes = 0;  // 0: capacity / 8
  bool verify_contents = true;     // shadow copy of device memory
  bool check_every_op = true;      // Check() + model comparison after every operation
  bool fast_paths = true;          // Options::fast_paths: false drives the generic code alone
};

template <typename A>
class Harness {
 public:
  explicit Harness(const HarnessConfig& config) : config_(config), nodes_(A::NodesForLiveBuffers(config.max_live)) {
    Options options;
    options.capacity_bytes = config.capacity_bytes;
    options.granule_bytes = config.granule_bytes;
    options.policy = config.policy;
    options.fast_paths = config.fast_paths;
    init_status_ = alloc_.Init(nodes_.data(), static_cast<uint32_t>(nodes_.size()), options);
    if (config.verify_contents) memory_.assign(alloc_.capacity_bytes(), 0xee);
    moves_.resize(config.max_moves);
    if (config_.max_request_bytes == 0) config_.max_request_bytes = std::max<uint64_t>(1, config.capacity_bytes / 8);
  }

  A& allocator() { return alloc_; }
  const std::string& error() const { return error_; }
  size_t live_count() const { return live_.size(); }
  uint64_t ops() const { return ops_; }

  // One operation chosen by `src`. Returns false (and sets error()) on the first violation.
  bool Step(OpSource& src) {
    if (init_status_ != STRATA_OK) return Fail("Init failed: ", strata_status_name(init_status_));
    ++ops_;
    const uint32_t op = src.Next(100);
    bool ok;
    if (op < 40) {
      ok = DoAllocate(src, /*with_compaction=*/false);
    } else if (op < 50) {
      ok = DoAllocate(src, /*with_compaction=*/true);
    } else if (op < 82) {
      ok = DoFree(src);
    } else if (op < 90) {
      ok = DoPin(src);
    } else if (op < 95) {
      ok = DoCompact(src);
    } else {
      ok = DoMisuse(src);
    }
    if (!ok) return false;
    return config_.check_every_op ? Verify() : true;
  }

  // Check(), the model, exact stats and (optionally) every live buffer's contents.
  bool Verify() {
    const CheckResult check = alloc_.Check();
    if (!check.ok()) return Fail("Check() failed: ", check.invariant);
    uint64_t in_use = 0, requested = 0, largest_free = 0, free_bytes = 0, last_end = 0;
    size_t live_seen = 0;
    std::string err;
    alloc_.ForEachBlock([&](uint64_t offset, uint64_t size, bool live, Handle h) {
      if (!err.empty()) return;
      if (offset != last_end) err = "blocks do not tile the range";
      last_end = offset + size;
      if (!live) {
        free_bytes += size;
        largest_free = std::max(largest_free, size);
        return;
      }
      ++live_seen;
      auto it = index_.find(h.value);
      if (it == index_.end()) {
        err = "allocator holds a live block the model does not know";
        return;
      }
      const Live& b = live_[it->second];
      if (b.offset != offset || b.allocated != size) err = "live block moved or resized outside a commit";
      in_use += size;
      requested += b.requested;
    });
    if (!err.empty()) return Fail(err);
    if (last_end != alloc_.capacity_bytes()) return Fail("blocks do not cover the capacity");
    if (live_seen != live_.size()) return Fail("live buffer count differs from the model");
    const Stats s = alloc_.GetStats();
    if (s.bytes_in_use != in_use || s.requested_bytes_in_use != requested) return Fail("stats: bytes_in_use");
    if (s.live_buffers != live_.size()) return Fail("stats: live_buffers");
    if (s.num_allocs != num_allocs_ || s.num_frees != num_frees_) return Fail("stats: num_allocs/num_frees");
    if (s.bytes_free != free_bytes || s.largest_free_block_bytes != largest_free) return Fail("stats: free bytes");
    if (s.bytes_limit != alloc_.capacity_bytes()) return Fail("stats: bytes_limit");
    if (s.peak_bytes_in_use != peak_) return Fail("stats: peak_bytes_in_use");
    const double frag = free_bytes == 0 ? 0.0 : double(free_bytes - largest_free) / double(free_bytes);
    if (s.fragmentation != frag) return Fail("stats: fragmentation");
    if (s.compaction_bytes_moved != bytes_moved_ || s.compaction_moves != moves_done_) return Fail("stats: compaction");
    return VerifyContents();
  }

  bool VerifyContents() {
    if (!config_.verify_contents) return true;
    for (const Live& b : live_) {
      for (uint64_t j = 0; j < b.requested; ++j) {
        if (memory_[b.offset + j] != Pattern(b.seed, j)) return Fail("buffer contents lost at offset ", b.offset + j);
      }
    }
    return true;
  }

  uint64_t bytes_moved() const { return bytes_moved_; }

  static bool SameStats(const Stats& a, const Stats& b) {
    return a.bytes_in_use == b.bytes_in_use && a.requested_bytes_in_use == b.requested_bytes_in_use &&
           a.peak_bytes_in_use == b.peak_bytes_in_use && a.bytes_limit == b.bytes_limit &&
           a.bytes_free == b.bytes_free && a.largest_free_block_bytes == b.largest_free_block_bytes &&
           a.num_allocs == b.num_allocs && a.num_frees == b.num_frees && a.num_failed_allocs == b.num_failed_allocs &&
           a.live_buffers == b.live_buffers && a.free_blocks == b.free_blocks &&
           a.fragmentation_ppm == b.fragmentation_ppm && a.compactions == b.compactions &&
           a.compaction_moves == b.compaction_moves && a.compaction_bytes_moved == b.compaction_bytes_moved;
  }

 private:
  struct Live {
    Handle handle;
    uint64_t offset, allocated, requested, alignment;
    uint32_t pins;
    uint32_t seed;
  };

  static uint8_t Pattern(uint32_t seed, uint64_t j) { return static_cast<uint8_t>(seed * 7 + j * 131 + (j >> 8)); }

  template <typename... Args>
  bool Fail(Args&&... args) {
    std::ostringstream os;
    os << "op " << ops_ << ": ";
    (os << ... << args);
    error_ = os.str();
    return false;
  }

  uint64_t RandomSize(OpSource& src) {
    // Mostly small, sometimes large: the mix that fragments a heap.
    const uint32_t kind = src.Next(10);
    uint64_t max = config_.max_request_bytes;
    if (kind < 6) max = std::min<uint64_t>(max, 16ull * config_.granule_bytes);
    return 1 + src.Next(static_cast<uint32_t>(std::min<uint64_t>(max, UINT32_MAX)));
  }

  uint64_t RandomAlignment(OpSource& src) {
    const uint32_t k = src.Next(8);
    if (k < 5) return 0;
    return uint64_t{config_.granule_bytes} << src.Next(6);
  }

  bool DoAllocate(OpSource& src, bool with_compaction) {
    const uint64_t bytes = RandomSize(src);
    const uint64_t alignment = RandomAlignment(src);
    Handle h;
    strata_status st;
    const uint64_t moved_before = alloc_.GetStats().compaction_bytes_moved;
    if (with_compaction) {
      st = alloc_.AllocateWithCompaction(bytes, alignment, CompactionBudget{}, moves_.data(),
                                         static_cast<uint32_t>(moves_.size()), &Harness::Copy, this, &h);
      const Stats s = alloc_.GetStats();
      bytes_moved_ += s.compaction_bytes_moved - moved_before;
      moves_done_ = s.compaction_moves;
      if (!VerifyMovedModel()) return false;
    } else {
      st = alloc_.Allocate(bytes, alignment, &h);
    }
    if (st == STRATA_RESOURCE_EXHAUSTED) {
      if (!h.IsNull()) return Fail("failed allocation returned a handle");
      if (live_.size() >= alloc_.max_live_buffers()) return true;
      if (!with_compaction && FitExists(bytes, alignment)) return Fail("allocation failed although a free block fits");
      if (with_compaction && CompactionMustServe(bytes, alignment)) {
        return Fail("defragment-on-OOM failed although free space suffices and nothing is pinned");
      }
      return true;
    }
    if (st != STRATA_OK) return Fail("Allocate returned ", strata_status_name(st));
    BufferInfo info;
    if (alloc_.GetInfo(h, &info) != STRATA_OK) return Fail("GetInfo on a fresh handle");
    const uint64_t g = config_.granule_bytes;
    const uint64_t want_align = std::max<uint64_t>(alignment == 0 ? g : alignment, g);
    if (info.offset % want_align != 0) return Fail("offset ", info.offset, " not aligned to ", want_align);
    if (info.requested_bytes != bytes || info.allocated_bytes != (bytes + g - 1) / g * g) {
      return Fail("requested/allocated size wrong");
    }
    if (info.offset + info.allocated_bytes > alloc_.capacity_bytes()) return Fail("buffer beyond capacity");
    Live b{h, info.offset, info.allocated_bytes, bytes, want_align, 0, next_seed_++};
    if (config_.verify_contents) {
      for (uint64_t j = 0; j < bytes; ++j) memory_[b.offset + j] = Pattern(b.seed, j);
    }
    index_[h.value] = live_.size();
    live_.push_back(b);
    ++num_allocs_;
    uint64_t in_use = 0;
    for (const Live& l : live_) in_use += l.allocated;
    peak_ = std::max(peak_, in_use);
    return true;
  }

  bool FitExists(uint64_t bytes, uint64_t alignment) {
    const uint64_t g = config_.granule_bytes;
    const uint64_t size = (bytes + g - 1) / g * g;
    const uint64_t a = std::max<uint64_t>(alignment == 0 ? g : alignment, g);
    bool fits = false;
    alloc_.ForEachBlock([&](uint64_t offset, uint64_t block, bool live, Handle) {
      if (live) return;
      const uint64_t start = (offset + a - 1) / a * a;
      if (start + size <= offset + block) fits = true;
    });
    return fits;
  }

  bool CompactionMustServe(uint64_t bytes, uint64_t alignment) {
    for (const Live& b : live_) {
      if (b.pins != 0 || b.alignment > config_.granule_bytes) return false;  // pinned or aligned: may be stuck
    }
    const uint64_t g = config_.granule_bytes;
    const uint64_t size = (bytes + g - 1) / g * g;
    const uint64_t a = std::max<uint64_t>(alignment == 0 ? g : alignment, g);
    const Stats s = alloc_.GetStats();
    return s.bytes_free >= size + a - g;
  }

  bool DoFree(OpSource& src) {
    if (live_.empty()) return true;
    const size_t k = src.Next(static_cast<uint32_t>(live_.size()));
    Live b = live_[k];
    const strata_status st = alloc_.Free(b.handle);
    if (b.pins != 0) {
      if (st != STRATA_FAILED_PRECONDITION) return Fail("freeing a pinned buffer did not fail");
      return true;
    }
    if (st != STRATA_OK) return Fail("Free returned ", strata_status_name(st));
    stale_.push_back(b.handle);
    if (stale_.size() > 64) stale_.erase(stale_.begin());
    Remove(k);
    ++num_frees_;
    return true;
  }

  void Remove(size_t k) {
    index_.erase(live_[k].handle.value);
    if (k + 1 != live_.size()) {
      live_[k] = live_.back();
      index_[live_[k].handle.value] = k;
    }
    live_.pop_back();
  }

  bool DoPin(OpSource& src) {
    if (live_.empty()) return true;
    Live& b = live_[src.Next(static_cast<uint32_t>(live_.size()))];
    // Pins are released more often than taken so that not everything ends up pinned.
    if (b.pins > 0 && src.Next(3) != 0) {
      if (alloc_.Unpin(b.handle) != STRATA_OK) return Fail("Unpin failed");
      --b.pins;
    } else if (b.pins == 0) {
      if (alloc_.Pin(b.handle) != STRATA_OK) return Fail("Pin failed");
      ++b.pins;
    }
    return true;
  }

  static strata_status Copy(void* context, const Move* moves, uint32_t n) {
    auto* self = static_cast<Harness*>(context);
    return self->Apply(moves, n);
  }

  strata_status Apply(const Move* moves, uint32_t n) {
    for (uint32_t k = 0; k < n; ++k) {
      const Move& m = moves[k];
      auto it = index_.find(m.handle.value);
      if (it == index_.end() || live_[it->second].pins != 0 || live_[it->second].offset != m.src_offset ||
          live_[it->second].allocated != m.bytes || m.dst_offset % live_[it->second].alignment != 0 ||
          m.dst_offset + m.bytes > alloc_.capacity_bytes()) {
        apply_error_ = "plan moves a pinned, unknown, misdescribed or misaligned buffer";
        return STRATA_INTERNAL;
      }
      // Destination must be free (or the buffer's own old range) at the time the move runs.
      for (const Live& other : live_) {
        if (other.handle == m.handle) continue;
        if (other.offset < m.dst_offset + m.bytes && m.dst_offset < other.offset + other.allocated) {
          apply_error_ = "move destination overlaps another live buffer";
          return STRATA_INTERNAL;
        }
      }
      if (config_.verify_contents) memmove(&memory_[m.dst_offset], &memory_[m.src_offset], m.bytes);
      live_[it->second].offset = m.dst_offset;
    }
    return STRATA_OK;
  }

  bool VerifyMovedModel() {
    if (!apply_error_.empty()) return Fail(apply_error_);
    return true;
  }

  bool DoCompact(OpSource& src) {
    CompactionBudget budget;
    if (src.Next(2) == 0) budget.max_bytes = uint64_t{config_.granule_bytes} * (1 + src.Next(256));
    if (src.Next(2) == 0) budget.max_moves = src.Next(8);
    CompactionPlan plan;
    strata_status st;
    if (src.Next(2) == 0) {
      st = alloc_.PlanCompaction(budget, moves_.data(), static_cast<uint32_t>(moves_.size()), &plan);
    } else {
      st = alloc_.PlanCompactionFor(RandomSize(src), RandomAlignment(src), budget, moves_.data(),
                                    static_cast<uint32_t>(moves_.size()), &plan);
      if (st == STRATA_RESOURCE_EXHAUSTED) return true;
    }
    if (st != STRATA_OK) return Fail("Plan returned ", strata_status_name(st));
    if (plan.num_moves > budget.max_moves || plan.bytes > budget.max_bytes) return Fail("plan exceeds its budget");
    // While a plan is pending, the allocator refuses changes.
    Handle h;
    if (alloc_.Allocate(64, 0, &h) != STRATA_FAILED_PRECONDITION) return Fail("Allocate during a pending plan");
    if (!live_.empty() && alloc_.Free(live_[0].handle) != STRATA_FAILED_PRECONDITION) {
      return Fail("Free during a pending plan");
    }
    if (src.Next(8) == 0) {
      if (alloc_.AbortCompaction() != STRATA_OK) return Fail("Abort failed");
      return true;
    }
    if (Apply(plan.moves, plan.num_moves) != STRATA_OK) return Fail(apply_error_);
    if (alloc_.CommitCompaction(plan) != STRATA_OK) return Fail("Commit failed");
    bytes_moved_ += plan.bytes;
    moves_done_ += plan.num_moves;
    if (alloc_.CommitCompaction(plan) != STRATA_FAILED_PRECONDITION) return Fail("second commit accepted");
    return VerifyContents();
  }

  bool DoMisuse(OpSource& src) {
    const Stats before = alloc_.GetStats();
    const uint32_t kind = src.Next(3);
    strata_status st;
    if (kind == 0 && !stale_.empty()) {
      const Handle h = stale_[src.Next(static_cast<uint32_t>(stale_.size()))];
      if (index_.count(h.value) != 0) return true;  // (cannot happen before 2^22 reuses)
      st = alloc_.Free(h);
      if (st != STRATA_NOT_FOUND) return Fail("double free / stale handle not rejected: ", strata_status_name(st));
      if (alloc_.Pin(h) == STRATA_OK) return Fail("pin of a stale handle accepted");
    } else {
      Handle forged{(uint64_t{src.Next(1u << 30)} << 32) | src.Next(UINT32_MAX)};
      if (index_.count(forged.value) != 0) return true;
      st = alloc_.Free(forged);
      if (st == STRATA_OK) return Fail("forged handle accepted");
    }
    if (!SameStats(before, alloc_.GetStats())) return Fail("rejected handle changed the allocator");
    return true;
  }

  HarnessConfig config_;
  std::vector<typename A::Node> nodes_;
  A alloc_;
  strata_status init_status_ = STRATA_OK;
  std::vector<uint8_t> memory_;
  std::vector<Move> moves_;
  std::vector<Live> live_;
  std::unordered_map<uint64_t, size_t> index_;
  std::vector<Handle> stale_;
  std::string error_, apply_error_;
  uint64_t ops_ = 0, num_allocs_ = 0, num_frees_ = 0, peak_ = 0, bytes_moved_ = 0, moves_done_ = 0;
  uint32_t next_seed_ = 1;
};

}  // namespace strata::alloc::testing

#endif  // STRATA_TESTS_FIRMWARE_ALLOC_HARNESS_H_
