// The XLA/TSL best-fit-with-coalescing (BFC) allocator core over a GpuDriver, rule for rule from
// docs/gpu-policies.md "The BFC's rules, by source". Citations "bfc_allocator.{h,cc}:N" are lines of
// xla/tsl/framework/bfc_allocator.{h,cc} at ROCm/xla @183fa00c.
//
// What is left out, and why:
//  * Timestamped chunks (SetTimingCounter / freed_at_count, steps 3 and 6 of the allocation path) and
//    spatial partitioning: GPU device allocators in JAX and TF never set a timing counter, and the
//    partitioned mode is off unless xla_gpu_enable_allocator_spatial_partitioning is set.
//  * The retry helper's 10 s wait (allocator_retry.cc): in a single-threaded replay no other thread can free
//    anything meanwhile, so the wait is skipped and only its passes are made.
//  * Region coalescing: the XLA DeviceMemAllocator's SupportsCoalescing() is false
//    (device_mem_allocator.h:76), so regions are never merged, even when the driver hands out adjacent VAs.
#ifndef STRATA_HOST_GPU_BFC_ALLOCATOR_H_
#define STRATA_HOST_GPU_BFC_ALLOCATOR_H_

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "emu_gpu.h"

namespace strata::gpu {

// tsl BFCAllocator::Options with the tsl defaults (bfc_allocator.h:98-114).
struct BfcOptions {
  bool allow_growth = true;            // bfc_allocator.h:98
  bool allow_retry_on_failure = true;  // bfc_allocator.h:106
  bool garbage_collection = false;     // bfc_allocator.h:110 (TF's GPUBFCAllocator turns it on, JAX does not)
  double fragmentation_fraction = 0;   // bfc_allocator.h:114; 0 = the 128 MiB split threshold
  // Not a tsl option: the size of the first region when nonzero (rounded to 256 B). Models the newest
  // XLA "START+" / "START-CAP" memory fractions (xla/pjrt/gpu/allocator_config.cc @09e3c08d): preallocate START,
  // grow to the limit (CAP). 0 = the tsl rule (.cc:94-101).
  uint64_t initial_region_bytes = 0;
};

// tsl AllocatorStats (allocator.h:97-133) as the BFC fills it, plus the requested bytes of live chunks.
struct BfcStats {
  uint64_t num_allocs = 0;
  uint64_t bytes_in_use = 0;  // chunk sizes, not requests (.cc:881-891)
  uint64_t peak_bytes_in_use = 0;
  uint64_t largest_alloc_size = 0;
  uint64_t bytes_limit = 0;
  uint64_t pool_bytes = 0;  // bytes received from the sub-allocator
  uint64_t peak_pool_bytes = 0;
  uint64_t largest_free_block_bytes = 0;
  uint64_t requested_bytes = 0;  // sum of the live chunks' requested_size
};

// One region (a sub-allocator allocation) and one chunk, for tests and reports.
struct BfcRegionInfo {
  uint64_t ptr = 0, size = 0;
};
struct BfcChunkInfo {
  uint64_t ptr = 0, size = 0, requested_size = 0, region = 0;  // region = its region's ptr
  bool in_use = false;
  int bin = -1;  // -1 while in use
};

class BfcAllocator {
 public:
  static constexpr uint64_t kMinAllocationBits = 8;                           // bfc_allocator.h:152
  static constexpr uint64_t kMinAllocationSize = 1ull << kMinAllocationBits;  // bfc_allocator.h:153
  static constexpr int kNumBins = 21;                                         // bfc_allocator.h:246
  static constexpr uint64_t kDefaultMaxInternalFragmentation = 128ull << 20;  // .cc:112-117, 816-821
  static constexpr float kBackpedalFactor = 0.9f;                             // .cc:193-212
  // AllocateRawInternal passes for an allocation that keeps failing with one thread: the fast path, the retry
  // helper's pass before its 10 s wait, one after it, and its last (logging) pass (allocator_retry.cc).
  static constexpr int kPassesWithRetry = 4;

  // `total_memory` is the memory limit (tsl's constructor argument). Nothing is taken from the driver
  // until the first allocation (.cc:99-101: the constructor does not call Extend).
  BfcAllocator(GpuDriver& driver, uint64_t total_memory, std::string name, const BfcOptions& opts);
  ~BfcAllocator();  // returns every region to the driver
  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  // tsl AllocateRaw: 0 for num_bytes == 0 (not a failure) or when out of memory. alignment 0 or anything
  // below 256 means 256; otherwise a power of two.
  uint64_t AllocateRaw(uint64_t alignment, uint64_t num_bytes);
  // `ptr` must be a live address from AllocateRaw; false (nothing changed) otherwise.
  bool DeallocateRaw(uint64_t ptr);

  BfcStats GetStats() const;  // .cc:1601-1606
  void ClearStats();          // .cc:1608-1614
  uint64_t LargestFreeChunk() const;
  double GetFragmentation() const;  // .cc:645-652; 0 when nothing is free (tsl divides 0 by 0)

  static uint64_t RoundedBytes(uint64_t bytes);
  static int BinNumForSize(uint64_t bytes);  // bfc_allocator.h:742-745
  static uint64_t BinNumToSize(int bin) { return 256ull << bin; }
  // Bytes skipped at the low end of a free chunk so that an allocation starts aligned; a multiple of 256
  // so the prefix can be a chunk of its own (LowEndAlignmentPadding, .cc:796-810).
  static uint64_t LowEndAlignmentPadding(uint64_t chunk_start, uint64_t alignment);

  // Introspection.
  const std::string& name() const { return name_; }
  uint64_t memory_limit() const { return memory_limit_; }
  uint64_t curr_region_allocation_bytes() const { return curr_region_allocation_bytes_; }
  uint64_t retries() const { return retries_; }                          // allocations that entered the retry helper
  uint64_t regions_deallocated() const { return regions_deallocated_; }  // by garbage collection
  uint64_t garbage_collections() const { return garbage_collections_; }
  std::vector<BfcRegionInfo> Regions() const;  // address order
  uint64_t RegionCount() const { return regions_.size(); }
  std::vector<BfcChunkInfo> Chunks() const;    // address order, every region
  uint64_t RequestedSize(uint64_t ptr) const;  // 0 if not a live allocation
  uint64_t AllocatedSize(uint64_t ptr) const;
  // Checks the structure: chunks tile each region, no two free neighbours, bins hold exactly the free
  // chunks, stats agree with the chunks. False with the first violation in *why.
  bool CheckInvariants(std::string* why) const;

 private:
  struct Chunk {
    uint64_t size = 0;
    uint64_t requested_size = 0;
    int64_t allocation_id = -1;  // -1 = free (Chunk::in_use(), bfc_allocator.h)
    uint64_t region = 0;
    int bin = -1;
    bool in_use() const { return allocation_id != -1; }
  };
  using ChunkMap = std::map<uint64_t, Chunk>;  // ptr -> chunk, every region
  // Bin::FreeChunkSet ordered by (size, ptr) (ChunkComparator, bfc_allocator.h:373-392).
  using FreeSet = std::set<std::pair<uint64_t, uint64_t>>;

  uint64_t AllocateRawInternal(uint64_t alignment, uint64_t num_bytes);
  uint64_t FindChunkPtr(int bin_num, uint64_t rounded_bytes, uint64_t num_bytes, uint64_t alignment);
  bool Extend(uint64_t alignment, uint64_t rounded_bytes);
  bool DeallocateFreeRegions(uint64_t rounded_bytes);
  // Splits chunk `it` at `num_bytes`: the tail becomes a free chunk in its bin. Returns the tail.
  ChunkMap::iterator SplitChunk(ChunkMap::iterator it, uint64_t num_bytes);
  ChunkMap::iterator TryToCoalesce(ChunkMap::iterator it);
  // The physical neighbours inside the same region, or chunks_.end().
  ChunkMap::iterator Next(ChunkMap::iterator it);
  ChunkMap::iterator Prev(ChunkMap::iterator it);
  void InsertFreeChunkIntoBin(ChunkMap::iterator it);
  void RemoveFreeChunkFromBin(ChunkMap::iterator it);
  uint64_t SubAllocatorAlloc(uint64_t bytes, uint64_t* bytes_received);

  GpuDriver& driver_;
  const BfcOptions opts_;
  const std::string name_;
  const uint64_t memory_limit_;
  uint64_t curr_region_allocation_bytes_;
  ChunkMap chunks_;
  std::map<uint64_t, uint64_t> regions_;  // ptr -> memory_size (bytes received)
  std::array<FreeSet, kNumBins> bins_;
  int64_t next_allocation_id_ = 1;
  BfcStats stats_;
  uint64_t retries_ = 0, regions_deallocated_ = 0, garbage_collections_ = 0;
};

// tsl strings::HumanReadableNumBytes (tsl/platform/numbers.cc): "1023B", "1.5KiB", "2.00MiB".
std::string HumanReadableNumBytes(uint64_t num_bytes);

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_BFC_ALLOCATOR_H_
