// PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator), rule for
// rule as docs/gpu-policies.md P5 (native segments) and P6 (expandable segments) state it, over
// a GpuDriver. Function names below are PyTorch's; read at commit 001074d2 of pytorch/pytorch.
//
// Deliberate simplifications (each says why):
//  * One stream. PyTorch keys its pools by (stream, size, ptr); a replay of a single-stream trace never
//    meets another stream, so the key is (size, ptr) and there are no cross-stream events
//    (process_events / record_stream / synchronize_and_free_events only count the sync).
//  * No CUDA graphs (private pools) and no free-memory callbacks (trigger_free_memory_callbacks finds
//    nothing to free without them).
//  * An `alignment` above 512 B (the Policy interface has one; PyTorch has none) is honoured by padding
//    the request by alignment - 512 and returning an aligned address inside the block.
#ifndef STRATA_HOST_GPU_CACHING_ALLOCATOR_H_
#define STRATA_HOST_GPU_CACHING_ALLOCATOR_H_

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "policy.h"

namespace strata::gpu {

// Constants of CUDACachingAllocator.cpp (docs/gpu-policies.md P5).
inline constexpr uint64_t kTorchLargeBuffer = 20ull << 20;    // kLargeBuffer: 20 MiB
inline constexpr uint64_t kTorchMinBlockSize = 512;           // kMinBlockSize
inline constexpr uint64_t kTorchSmallSize = 1ull << 20;       // kSmallSize: largest "small" request
inline constexpr uint64_t kTorchSmallBuffer = 2ull << 20;     // kSmallBuffer: small-pool segment
inline constexpr uint64_t kTorchMinLargeAlloc = 10ull << 20;  // kMinLargeAlloc
inline constexpr uint64_t kTorchRoundLarge = 2ull << 20;      // kRoundLarge
// CUDAAllocatorConfig: kRoundUpPowerOfTwoIntervals = 16 intervals, 1 MiB ... 64 GiB.
inline constexpr size_t kTorchRoundUpIntervals = 16;

// The CUDAAllocatorConfig settings (PYTORCH_CUDA_ALLOC_CONF) plus set_per_process_memory_fraction.
struct CachingConfig {
  bool expandable_segments = false;
  uint64_t max_split_size = std::numeric_limits<uint64_t>::max();  // SIZE_MAX = unlimited (snapshot: -1)
  // Newer PyTorch (max_non_split_rounding_mb): how much larger than a >= max_split_size request a cached
  // block may be; commit 001074d2 hard-codes kLargeBuffer there.
  uint64_t max_non_split_rounding = kTorchLargeBuffer;
  double garbage_collection_threshold = 0;  // 0 = off; only acts with a memory fraction set
  std::array<uint64_t, kTorchRoundUpIntervals> roundup_power2_divisions{};  // 0 = plain 512 B rounding
  double memory_fraction = -1;  // < 0: set_per_process_memory_fraction never called (no cap)
};

// PyTorch counters that PolicyStats has no field for (torch.cuda.memory_stats() names, "all" pool).
struct TorchCounters {
  uint64_t num_alloc_retries = 0;
  uint64_t num_ooms = 0;
  uint64_t num_sync_all_streams = 0;
  uint64_t num_device_alloc = 0;  // cudaMalloc / segment map calls
  uint64_t num_device_free = 0;   // cudaFree / segment unmap calls
  uint64_t oversize_allocations = 0;
  uint64_t oversize_segments = 0;
  uint64_t inactive_split = 0;  // count of inactive split blocks
  uint64_t active_bytes = 0;
  uint64_t allocation = 0;  // live allocations
};

class CachingAllocator final : public Policy {
 public:
  CachingAllocator(std::string name, GpuDriver& driver, const CachingConfig& config);
  ~CachingAllocator() override;  // gives every segment back to the driver (PyTorch never does)
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  const char* name() const override { return name_.c_str(); }
  uint64_t Allocate(uint64_t bytes, uint64_t alignment, Oom* oom) override;
  void Deallocate(uint64_t ptr) override;
  PolicyStats Stats() const override;
  // empty_cache() = release_cached_blocks(): sync, then free every non-split cached block / unmap every
  // whole free page.
  void ReleaseCache() override;
  // torch.cuda.reset_peak_memory_stats(): every peak := its current value (counters keep counting).
  void ResetPeak() override;

  const CachingConfig& config() const { return config_; }
  const TorchCounters& torch_counters() const { return counters_; }

  // Introspection for tests and reports.
  struct BlockInfo {
    uint64_t ptr = 0, size = 0, requested = 0;
    bool allocated = false, mapped = true, small_pool = false, expandable = false, split = false;
  };
  std::vector<BlockInfo> Blocks() const;  // every block of every segment, by address
  // Segments as the driver sees them: cudaMalloc'd ranges, or the mapped pages of expandable segments.
  struct MappedRange {
    uint64_t va = 0, bytes = 0;
  };
  std::vector<MappedRange> MappedRanges() const;

  // round_size / get_allocation_size, exposed for tests.
  static uint64_t RoundSize(uint64_t size, const CachingConfig& config);
  static uint64_t AllocationSize(uint64_t size);

 private:
  struct Segment;
  struct BlockPool;
  struct Block {
    uint64_t size = 0;
    uint64_t requested_size = 0;
    uint64_t ptr = 0;
    BlockPool* pool = nullptr;
    bool allocated = false;
    bool mapped = true;     // false only for the unmapped tail of an expandable segment
    Block* prev = nullptr;  // neighbours inside the segment (split blocks)
    Block* next = nullptr;
    Segment* expandable = nullptr;  // the ExpandableSegment, or null for a cudaMalloc segment
    uint64_t gc_count_base = 0;     // pool.get_free_blocks_call_count when cached
    bool is_split() const { return prev != nullptr || next != nullptr; }
  };
  struct BySizeThenPtr {
    bool operator()(const Block* a, const Block* b) const {
      return a->size != b->size ? a->size < b->size : a->ptr < b->ptr;
    }
  };
  struct ByPtr {
    bool operator()(const Block* a, const Block* b) const { return a->ptr < b->ptr; }
  };
  struct BlockPool {
    bool is_small = false;
    std::set<Block*, BySizeThenPtr> blocks;  // free, mapped blocks: best fit = lower_bound
    std::set<Block*, ByPtr> unmapped;        // unmapped ranges of expandable segments, by address
    uint64_t get_free_blocks_call_count = 0;
    void Insert(Block* b) {
      b->gc_count_base = get_free_blocks_call_count;
      blocks.insert(b);
    }
  };
  // ExpandableSegment: a VA reservation of ceil(1 1/8 total / page) pages mapped page by page.
  struct Segment {
    uint64_t base = 0;
    uint64_t page = 0;  // segment_size: 2 MiB small, 20 MiB large
    uint64_t pages = 0;
    std::vector<bool> mapped;  // per page ("handles_")
    bool is_small = false;
  };
  struct AllocParams {
    uint64_t size = 0;        // round_size(request)
    uint64_t alloc_size = 0;  // get_allocation_size(size)
    BlockPool* pool = nullptr;
    Block* block = nullptr;
  };

  // orig_size: what round_size() sees (the request plus any alignment padding); requested: as asked.
  Block* Malloc(uint64_t orig_size, uint64_t requested, Oom* oom);
  void Free(Block* block);
  bool GetFreeBlock(AllocParams& p);
  void GarbageCollectCachedBlocks();
  bool AllocBlock(AllocParams& p, bool is_retry);
  bool ReleaseAvailableCachedBlocks(const AllocParams& p);
  bool ReleaseCachedBlocks();
  void ReleaseBlocks(BlockPool& pool);
  void ReleaseBlock(Block* block);
  bool ShouldSplit(const Block* block, uint64_t size) const;
  Block* AllocFoundBlock(AllocParams& p, uint64_t requested, bool split_remainder);
  void FreeBlock(Block* block);
  uint64_t TryMergeBlocks(Block* dst, Block* src, BlockPool& pool);
  // Expandable segments.
  Block* TryAllocateExpandableBlock(BlockPool* pool, uint64_t size);
  Block* FindExpandableBlock(BlockPool* pool, uint64_t size);
  bool MapBlock(Block* to_map, uint64_t size);
  void UnmapBlock(Block* block);
  uint64_t SegmentMap(Segment* s, uint64_t ptr, uint64_t size);  // returns mapped bytes (0 = failed)
  MappedRange SegmentUnmap(Segment* s, uint64_t ptr, uint64_t size);
  void ReleaseExpandableSegment(Block* block);

  void FillOom(uint64_t requested, const AllocParams& p, Oom* oom);
  uint64_t LargestFreeBlock() const;
  void SetReserved(int64_t delta);
  void SetAllocated(int64_t delta);

  std::string name_;
  GpuDriver& driver_;
  CachingConfig config_;
  bool set_fraction_ = false;
  uint64_t allowed_memory_maximum_ = 0;
  BlockPool large_blocks_, small_blocks_;
  // PyTorch's active_blocks is a hash set (ska::flat_hash_set<Block*>): nothing walks it in order (Blocks() sorts).
  std::unordered_set<Block*> active_blocks_;
  std::unordered_map<uint64_t, Block*> live_;     // returned address -> block
  std::map<uint64_t, uint64_t> malloc_segments_;  // cudaMalloc base -> bytes
  std::vector<Segment*> expandable_segments_;
  uint64_t total_allocated_memory_ = 0;  // reserved bytes
  // Stats ("all" pool).
  uint64_t allocated_bytes_ = 0, peak_allocated_bytes_ = 0, peak_reserved_bytes_ = 0;
  uint64_t requested_bytes_ = 0, inactive_split_bytes_ = 0, largest_alloc_ = 0;
  uint64_t num_allocs_ = 0, num_frees_ = 0, num_failed_ = 0, segment_count_ = 0;
  OomCounts ooms_;
  TorchCounters counters_;
};

// format_size() of CUDACachingAllocator.cpp: "512 bytes", "2.00 MiB", "1.50 GiB".
std::string TorchFormatSize(uint64_t size);

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_CACHING_ALLOCATOR_H_
