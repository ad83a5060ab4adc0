// PyTorch's DeviceCachingAllocator (c10/cuda/CUDACachingAllocator.cpp), docs/gpu-policies.md P5-P6.
// Each method names the PyTorch function it follows; the control flow and the statistics updates keep
// PyTorch's order, because the order decides when segments are created, released and when an OOM happens.
#include "caching_allocator.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <sstream>

namespace strata::gpu {
namespace {

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }
uint64_t Log2Floor(uint64_t x) { return 63 - static_cast<uint64_t>(std::countl_zero(x)); }

// CUDAAllocatorConfig::roundup_power2_divisions(size): the divisions configured for the power-of-two
// interval holding `size`; intervals start at 1 MiB (index 0 covers everything below 2 MiB) and the last
// one (index 15) covers 32 GiB and above.
uint64_t RoundupDivisions(uint64_t size, const CachingConfig& config) {
  const int64_t log_size = static_cast<int64_t>(Log2Floor(size));
  const int64_t interval_start = 20;  // log2(1 MiB)
  int64_t index = std::max<int64_t>(0, log_size - interval_start);
  index = std::min<int64_t>(index, static_cast<int64_t>(kTorchRoundUpIntervals) - 1);
  return config.roundup_power2_divisions[static_cast<size_t>(index)];
}

// roundup_power2_next_division(size, divisions) of CUDACachingAllocator.cpp.
uint64_t RoundupPower2NextDivision(uint64_t size, uint64_t divisions) {
  if (std::has_single_bit(size)) return size;
  const uint64_t power2_floor = uint64_t{1} << Log2Floor(size);
  const uint64_t power2_division = power2_floor >> Log2Floor(divisions);
  if (power2_division == 0) return power2_floor << 1;
  const uint64_t round_size_floor = size & ~(power2_division - 1);
  return round_size_floor == size ? size : round_size_floor + power2_division;
}

}  // namespace

std::string TorchFormatSize(uint64_t size) {
  // format_size(): precision 2, fixed; "bytes" up to 1024, KiB up to 1 MiB, MiB up to 1 GiB, else GiB.
  std::ostringstream os;
  os.precision(2);
  os << std::fixed;
  if (size <= 1024) {
    os << size << " bytes";
  } else if (size <= 1048576) {
    os << static_cast<double>(size) / 1024.0 << " KiB";
  } else if (size <= 1073741824ULL) {
    os << static_cast<double>(size) / 1048576.0 << " MiB";
  } else {
    os << static_cast<double>(size) / 1073741824.0 << " GiB";
  }
  return os.str();
}

uint64_t CachingAllocator::RoundSize(uint64_t size, const CachingConfig& config) {
  // round_size(): < 512 -> 512; pow2 divisions when configured for this interval and size > 512 * d;
  // else a multiple of 512.
  if (size < kTorchMinBlockSize) return kTorchMinBlockSize;
  const uint64_t divisions = RoundupDivisions(size, config);
  if (divisions > 1 && size > kTorchMinBlockSize * divisions) return RoundupPower2NextDivision(size, divisions);
  return RoundUp(size, kTorchMinBlockSize);
}

uint64_t CachingAllocator::AllocationSize(uint64_t size) {
  // get_allocation_size(): <= 1 MiB -> 2 MiB; < 10 MiB -> 20 MiB; else round up to 2 MiB.
  if (size <= kTorchSmallSize) return kTorchSmallBuffer;
  if (size < kTorchMinLargeAlloc) return kTorchLargeBuffer;
  return RoundUp(size, kTorchRoundLarge);
}

CachingAllocator::CachingAllocator(std::string name, GpuDriver& driver, const CachingConfig& config)
    : name_(std::move(name)), driver_(driver), config_(config) {
  small_blocks_.is_small = true;
  if (config_.memory_fraction >= 0) {
    // setMemoryFraction(): allowed_memory_maximum = fraction x total from cudaMemGetInfo (of total).
    set_fraction_ = true;
    allowed_memory_maximum_ =
        static_cast<uint64_t>(config_.memory_fraction * static_cast<double>(driver_.total_bytes()));
  }
}

CachingAllocator::~CachingAllocator() {
  std::vector<Block*> all;
  for (BlockPool* pool : {&large_blocks_, &small_blocks_}) {
    all.insert(all.end(), pool->blocks.begin(), pool->blocks.end());
    all.insert(all.end(), pool->unmapped.begin(), pool->unmapped.end());
  }
  all.insert(all.end(), active_blocks_.begin(), active_blocks_.end());
  for (Block* b : all) delete b;
  for (const auto& [va, bytes] : malloc_segments_) driver_.Free(va);
  for (Segment* s : expandable_segments_) {
    for (uint64_t i = 0; i < s->pages; ++i) {
      if (s->mapped[i]) driver_.Unmap(s->base + i * s->page, s->page);
    }
    delete s;
  }
}

// ---------------------------------------------------------------------------------------------------
// Policy interface.

uint64_t CachingAllocator::Allocate(uint64_t bytes, uint64_t alignment, Oom* oom) {
  if (bytes == 0) {  // PyTorch returns nullptr for 0 bytes without touching the pools
    if (oom != nullptr) *oom = Oom{};
    return 0;
  }
  const uint64_t align = std::max(alignment, kTorchMinBlockSize);
  const uint64_t pad = align - kTorchMinBlockSize;  // every block is 512-aligned
  Block* block = Malloc(bytes + pad, bytes, oom);
  if (block == nullptr) return 0;
  const uint64_t address = RoundUp(block->ptr, align);
  live_[address] = block;
  return address;
}

void CachingAllocator::Deallocate(uint64_t ptr) {
  const auto it = live_.find(ptr);
  if (it == live_.end()) return;
  Block* block = it->second;
  live_.erase(it);
  Free(block);
}

void CachingAllocator::ReleaseCache() { ReleaseCachedBlocks(); }

void CachingAllocator::ResetPeak() {
  peak_allocated_bytes_ = allocated_bytes_;
  peak_reserved_bytes_ = total_allocated_memory_;
}

PolicyStats CachingAllocator::Stats() const {
  PolicyStats s;
  s.bytes_in_use = allocated_bytes_;  // allocated_bytes.all.current: block sizes, not requests
  s.peak_bytes_in_use = peak_allocated_bytes_;
  s.requested_bytes = requested_bytes_;
  s.bytes_limit = set_fraction_ ? allowed_memory_maximum_ : 0;
  s.pool_bytes = total_allocated_memory_;  // reserved_bytes.all.current
  s.peak_pool_bytes = peak_reserved_bytes_;
  s.largest_free_block_bytes = LargestFreeBlock();
  s.largest_alloc_size = largest_alloc_;
  s.inactive_split_bytes = inactive_split_bytes_;
  s.num_allocs = num_allocs_;
  s.num_frees = num_frees_;
  s.num_failed_allocs = num_failed_;
  ooms_.CopyTo(&s);
  s.num_alloc_retries = counters_.num_alloc_retries;
  s.num_device_alloc = counters_.num_device_alloc;
  s.num_device_free = counters_.num_device_free;
  // segment.all.current for cudaMalloc segments; an expandable segment counts while it has mapped pages
  // (PyTorch's segment stat does not follow map/unmap; this is the number a segment plot would show).
  s.segments = segment_count_;
  for (const Segment* seg : expandable_segments_) {
    if (std::find(seg->mapped.begin(), seg->mapped.end(), true) != seg->mapped.end()) ++s.segments;
  }
  const uint64_t free_bytes = s.pool_bytes - s.bytes_in_use;
  if (free_bytes > 0) {
    s.fragmentation = static_cast<double>(free_bytes - s.largest_free_block_bytes) / static_cast<double>(free_bytes);
  }
  return s;
}

std::vector<CachingAllocator::BlockInfo> CachingAllocator::Blocks() const {
  std::vector<BlockInfo> out;
  auto add = [&](const Block* b) {
    BlockInfo info;
    info.ptr = b->ptr;
    info.size = b->size;
    info.requested = b->allocated ? b->requested_size : 0;
    info.allocated = b->allocated;
    info.mapped = b->mapped;
    info.small_pool = b->pool->is_small;
    info.expandable = b->expandable != nullptr;
    info.split = b->is_split();
    out.push_back(info);
  };
  for (const BlockPool* pool : {&large_blocks_, &small_blocks_}) {
    for (const Block* b : pool->blocks) add(b);
    for (const Block* b : pool->unmapped) add(b);
  }
  for (const Block* b : active_blocks_) add(b);
  std::sort(out.begin(), out.end(), [](const BlockInfo& a, const BlockInfo& b) { return a.ptr < b.ptr; });
  return out;
}

std::vector<CachingAllocator::MappedRange> CachingAllocator::MappedRanges() const {
  std::vector<MappedRange> out;
  for (const auto& [va, bytes] : malloc_segments_) out.push_back({va, bytes});
  for (const Segment* s : expandable_segments_) {
    for (uint64_t i = 0; i < s->pages; ++i) {
      if (s->mapped[i]) out.push_back({s->base + i * s->page, s->page});
    }
  }
  std::sort(out.begin(), out.end(), [](const MappedRange& a, const MappedRange& b) { return a.va < b.va; });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// malloc / free.

CachingAllocator::Block* CachingAllocator::Malloc(uint64_t orig_size, uint64_t requested, Oom* oom) {
  // DeviceCachingAllocator::malloc(). process_events() has nothing to do with one stream.
  AllocParams p;
  p.size = RoundSize(orig_size, config_);
  p.pool = p.size <= kTorchSmallSize ? &small_blocks_ : &large_blocks_;  // get_pool()
  p.alloc_size = AllocationSize(p.size);

  // Search the pool; trigger_free_memory_callbacks() has no callbacks registered, so no second search.
  bool block_found = GetFreeBlock(p);
  if (!block_found) {
    // garbage_collect_cached_blocks() only with a memory fraction and a threshold.
    if (set_fraction_ && config_.garbage_collection_threshold > 0.0) GarbageCollectCachedBlocks();
    block_found = AllocBlock(p, false) ||
                  // Free enough available cached (oversize) blocks to satisfy alloc and retry.
                  (ReleaseAvailableCachedBlocks(p) && AllocBlock(p, false)) ||
                  // Free all non-split cached blocks and retry (counts num_alloc_retries).
                  (ReleaseCachedBlocks() && AllocBlock(p, true));
  }
  if (!block_found) {
    FillOom(requested, p, oom);
    return nullptr;
  }
  const bool split_remainder = ShouldSplit(p.block, p.size);
  if (oom != nullptr) *oom = Oom{};
  return AllocFoundBlock(p, requested, split_remainder);
}

bool CachingAllocator::GetFreeBlock(AllocParams& p) {
  // get_free_block().
  BlockPool& pool = *p.pool;
  if (set_fraction_ && config_.garbage_collection_threshold > 0.0) {
    ++pool.get_free_blocks_call_count;  // block ages for garbage_collect_cached_blocks()
  }
  Block key;
  key.size = p.size;
  key.ptr = 0;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end()) return false;
  if ((*it)->expandable != nullptr) {
    // Best fit sees an expandable block as its size plus the unmapped block after it.
    auto expandable_size = [](const Block* b) {
      return b->size + (b->next != nullptr && !b->next->mapped ? b->next->size : 0);
    };
    auto next = std::next(it);
    while ((*it)->expandable != nullptr && next != pool.blocks.end() && expandable_size(*next) < expandable_size(*it)) {
      it = next++;
    }
  }
  const uint64_t max_split = config_.max_split_size;
  // Do not return an oversized block for a small request.
  if (p.size < max_split && (*it)->size >= max_split) return false;
  // Do not return an oversized block for a large request (kLargeBuffer; max_non_split_rounding newer).
  if (p.size >= max_split && (*it)->size >= p.size + config_.max_non_split_rounding) return false;
  p.block = *it;
  pool.blocks.erase(it);
  return true;
}

void CachingAllocator::GarbageCollectCachedBlocks() {
  // garbage_collect_cached_blocks(): no synchronisation; frees non-split large blocks of at least the
  // average age until total_allocated_memory is back under threshold x allowed_memory_maximum.
  const auto gc_threshold =
      static_cast<uint64_t>(config_.garbage_collection_threshold * static_cast<double>(allowed_memory_maximum_));
  if (total_allocated_memory_ <= gc_threshold) return;
  const uint64_t target_size = total_allocated_memory_ - gc_threshold;
  uint64_t gc_reclaimed = 0;
  uint64_t total_age = 0;
  int64_t freeable_block_count = 0;
  auto gc_count = [this](const Block* b) { return large_blocks_.get_free_blocks_call_count - b->gc_count_base; };
  for (const Block* b : large_blocks_.blocks) {
    if (!b->is_split()) {
      total_age += gc_count(b);
      ++freeable_block_count;
    }
  }
  if (freeable_block_count == 0) return;
  bool block_freed = true;
  while (gc_reclaimed < target_size && block_freed && freeable_block_count > 0) {
    const double age_threshold = static_cast<double>(total_age) / static_cast<double>(freeable_block_count);
    block_freed = false;
    auto it = large_blocks_.blocks.begin();
    while (it != large_blocks_.blocks.end()) {
      Block* block = *it;
      ++it;
      if (!block->is_split() && block->expandable == nullptr && static_cast<double>(gc_count(block)) >= age_threshold) {
        block_freed = true;
        gc_reclaimed += block->size;
        total_age -= gc_count(block);
        --freeable_block_count;
        ReleaseBlock(block);
      }
    }
  }
}

bool CachingAllocator::AllocBlock(AllocParams& p, bool is_retry) {
  // alloc_block().
  const uint64_t size = p.alloc_size;
  if (is_retry) {
    ++counters_.num_alloc_retries;
    ++driver_.counters().retries;
  }
  // The fraction cap is checked against reserved bytes before cudaMalloc is called (also for
  // expandable segments, with alloc_size although fewer pages may be mapped).
  if (set_fraction_ && total_allocated_memory_ + size > allowed_memory_maximum_) return false;
  if (config_.expandable_segments) {
    p.block = TryAllocateExpandableBlock(p.pool, p.size);
    return p.block != nullptr;
  }
  const uint64_t ptr = driver_.Malloc(size);  // cudaMalloc
  if (ptr == 0) return false;
  SetReserved(static_cast<int64_t>(size));
  auto* block = new Block;
  block->size = size;
  block->ptr = ptr;
  block->pool = p.pool;
  malloc_segments_[ptr] = size;
  ++segment_count_;
  ++counters_.num_device_alloc;
  if (size >= config_.max_split_size) ++counters_.oversize_segments;
  p.block = block;
  return true;
}

bool CachingAllocator::ReleaseAvailableCachedBlocks(const AllocParams& p) {
  // release_available_cached_blocks(): only with max_split_size set. Free one oversize block that is
  // large enough, else oversize blocks from the largest down until the request is covered.
  // Deviation: blocks that are split (PyTorch would cudaFree an interior pointer) are skipped.
  const uint64_t max_split = config_.max_split_size;
  if (max_split == std::numeric_limits<uint64_t>::max()) return false;
  BlockPool& pool = *p.pool;
  Block key;
  key.size = std::max(p.size, max_split);
  key.ptr = 0;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->expandable != nullptr) {
    if (it == pool.blocks.begin()) return false;
    uint64_t total_released = 0;
    --it;  // the largest block
    while (total_released < key.size && (*it)->size >= max_split) {
      auto cur = it;
      const bool is_first = cur == pool.blocks.begin();
      if (!is_first) --it;
      Block* b = *cur;
      if (b->expandable == nullptr && !b->is_split()) {
        total_released += b->size;
        ReleaseBlock(b);
      }
      if (is_first) break;
    }
    return total_released >= key.size;
  }
  if ((*it)->is_split()) return false;
  ReleaseBlock(*it);
  return true;
}

bool CachingAllocator::ReleaseCachedBlocks() {
  // release_cached_blocks(): synchronize_and_free_events() (num_sync_all_streams; the emulation has no
  // events, so the sync is counted on the driver as a full-device sync), then release_blocks() of the
  // large and the small pool.
  ++counters_.num_sync_all_streams;
  driver_.DeviceSynchronize();
  ReleaseBlocks(large_blocks_);
  ReleaseBlocks(small_blocks_);
  return true;
}

void CachingAllocator::ReleaseBlocks(BlockPool& pool) {
  // release_blocks(): free all non-split blocks; unmap the whole free pages of expandable blocks.
  std::vector<Block*> to_unmap;
  auto it = pool.blocks.begin();
  while (it != pool.blocks.end()) {
    Block* block = *it;
    ++it;
    if (block->expandable != nullptr) {
      to_unmap.push_back(block);  // unmapping mutates the pool; gather first
    } else if (!block->is_split()) {
      ReleaseBlock(block);
    }
  }
  for (Block* block : to_unmap) {
    UnmapBlock(block);
    // A segment that became wholly unmapped is released (PR #134338 behaviour; the older code asserted).
    if (!block->mapped && !block->is_split()) ReleaseExpandableSegment(block);
  }
}

void CachingAllocator::ReleaseBlock(Block* block) {
  // release_block(): cudaFree of a whole cached segment.
  ++counters_.num_device_free;
  driver_.Free(block->ptr);
  SetReserved(-static_cast<int64_t>(block->size));
  malloc_segments_.erase(block->ptr);
  --segment_count_;
  if (block->size >= config_.max_split_size) --counters_.oversize_segments;
  block->pool->blocks.erase(block);
  delete block;
}

bool CachingAllocator::ShouldSplit(const Block* block, uint64_t size) const {
  // should_split(): small pool or expandable segments: remainder >= 512; large pool: request below
  // max_split_size and remainder > 1 MiB (kSmallSize).
  const uint64_t remaining = block->size - size;
  if (block->pool->is_small || config_.expandable_segments) return remaining >= kTorchMinBlockSize;
  return size < config_.max_split_size && remaining > kTorchSmallSize;
}

CachingAllocator::Block* CachingAllocator::AllocFoundBlock(AllocParams& p, uint64_t requested, bool split_remainder) {
  // alloc_found_block().
  const uint64_t size = p.size;
  Block* block = p.block;
  BlockPool* pool = p.pool;
  const bool already_split = block->is_split();
  if (split_remainder) {
    Block* remaining = block;
    block = new Block;
    block->size = size;
    block->ptr = remaining->ptr;
    block->pool = pool;
    block->expandable = remaining->expandable;
    block->prev = remaining->prev;
    if (block->prev != nullptr) block->prev->next = block;
    block->next = remaining;
    remaining->prev = block;
    remaining->ptr += size;
    remaining->size -= size;
    pool->Insert(remaining);
    if (already_split && block->expandable == nullptr) {
      inactive_split_bytes_ -= block->size;  // an inactive split block shrinks by `size`
    } else if (block->expandable == nullptr) {
      inactive_split_bytes_ += remaining->size;  // a new inactive split block
      ++counters_.inactive_split;
    }
  } else if (already_split && block->expandable == nullptr) {
    inactive_split_bytes_ -= block->size;  // an inactive split block becomes active
    --counters_.inactive_split;
  }
  block->allocated = true;
  block->requested_size = requested;
  active_blocks_.insert(block);
  ++counters_.allocation;
  SetAllocated(static_cast<int64_t>(block->size));
  counters_.active_bytes += block->size;
  requested_bytes_ += requested;
  if (block->size >= config_.max_split_size) ++counters_.oversize_allocations;
  ++num_allocs_;
  largest_alloc_ = std::max(largest_alloc_, block->size);
  return block;
}

void CachingAllocator::Free(Block* block) {
  // free(): no recorded streams, so straight to free_block().
  block->allocated = false;
  --counters_.allocation;
  SetAllocated(-static_cast<int64_t>(block->size));
  if (block->size >= config_.max_split_size) --counters_.oversize_allocations;
  ++num_frees_;
  FreeBlock(block);
}

void CachingAllocator::FreeBlock(Block* block) {
  // free_block(): merge with free prev/next on the same mapping, then back into the pool.
  const uint64_t original_block_size = block->size;
  const uint64_t requested_size = block->requested_size;
  BlockPool& pool = *block->pool;
  int64_t net_inactive_blocks = 0;
  int64_t net_inactive_size = 0;
  for (Block* candidate : {block->prev, block->next}) {
    const uint64_t subsumed = TryMergeBlocks(block, candidate, pool);
    if (subsumed > 0) {
      net_inactive_blocks -= 1;
      net_inactive_size -= static_cast<int64_t>(subsumed);
    }
  }
  active_blocks_.erase(block);
  pool.Insert(block);
  if (block->is_split()) {
    net_inactive_blocks += 1;
    net_inactive_size += static_cast<int64_t>(block->size);
  }
  // inactive_split* excludes expandable segments (their whole free pages can always be released).
  if (block->expandable == nullptr) {
    counters_.inactive_split =
        static_cast<uint64_t>(static_cast<int64_t>(counters_.inactive_split) + net_inactive_blocks);
    inactive_split_bytes_ = static_cast<uint64_t>(static_cast<int64_t>(inactive_split_bytes_) + net_inactive_size);
  }
  counters_.active_bytes -= original_block_size;
  requested_bytes_ -= requested_size;
  block->requested_size = 0;
}

uint64_t CachingAllocator::TryMergeBlocks(Block* dst, Block* src, BlockPool& pool) {
  // try_merge_blocks(): only a free neighbour with the same mapped state.
  if (src == nullptr || src->allocated || dst->mapped != src->mapped) return 0;
  if (dst->prev == src) {  // [src dst]
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev != nullptr) dst->prev->next = dst;
  } else {  // [dst src]
    dst->next = src->next;
    if (dst->next != nullptr) dst->next->prev = dst;
  }
  const uint64_t subsumed = src->size;
  dst->size += subsumed;
  if (src->mapped) {
    pool.blocks.erase(src);
  } else {
    pool.unmapped.erase(src);
  }
  delete src;
  return subsumed;
}

// ---------------------------------------------------------------------------------------------------
// Expandable segments (Note [Expandable Segments]).

CachingAllocator::Block* CachingAllocator::TryAllocateExpandableBlock(BlockPool* pool, uint64_t size) {
  // try_allocate_expandable_block(): the candidate is unmapped -> null, unmapped -> free -> ..., or
  // free -> unmapped -> ...; map pages until it holds `size`.
  Block* candidate = FindExpandableBlock(pool, size);
  if (!candidate->mapped && !MapBlock(candidate, std::min(candidate->size, size))) return nullptr;
  while (candidate->size < size) {
    const uint64_t remaining = size - candidate->size;
    Block* new_candidate = candidate->next;
    if (!MapBlock(new_candidate, std::min(remaining, new_candidate->size))) return nullptr;
    candidate = new_candidate;  // map_block merged the free block before it into new_candidate
  }
  pool->blocks.erase(candidate);
  return candidate;
}

CachingAllocator::Block* CachingAllocator::FindExpandableBlock(BlockPool* pool, uint64_t size) {
  // find_expandable_block(): the lowest-address unmapped range (with the free block before it) that
  // has `size` bytes of free + unmapped room; else a new segment.
  auto allocatable = [](const Block* b) { return b != nullptr && !b->allocated; };
  auto has_available_address_space = [&](const Block* b) {
    uint64_t bytes = 0;
    while (bytes < size && allocatable(b)) {
      bytes += b->size;
      b = b->next;
    }
    return bytes >= size;
  };
  for (Block* c : pool->unmapped) {
    if (allocatable(c->prev)) c = c->prev;
    if (has_available_address_space(c)) return c;
  }
  // ExpandableSegment: segment_size 2 MiB (small) / 20 MiB (large), rounded to the driver's granule;
  // VA for ceil(1 1/8 x totalGlobalMem / segment_size) pages.
  auto* s = new Segment;
  s->is_small = pool->is_small;
  s->page = RoundUp(pool->is_small ? kTorchSmallBuffer : kTorchLargeBuffer, driver_.page_bytes());
  const uint64_t total = driver_.total_bytes();
  s->pages = (total + total / 8 + s->page - 1) / s->page;
  s->base = driver_.ReserveVa(s->pages * s->page);
  s->mapped.assign(s->pages, false);
  expandable_segments_.push_back(s);
  auto* candidate = new Block;
  candidate->size = s->pages * s->page;
  candidate->ptr = s->base;
  candidate->pool = pool;
  candidate->mapped = false;
  candidate->expandable = s;
  pool->unmapped.insert(candidate);
  return candidate;
}

bool CachingAllocator::MapBlock(Block* to_map, uint64_t size) {
  // map_block().
  const uint64_t mapped = SegmentMap(to_map->expandable, to_map->ptr, size);
  if (mapped == 0) return false;
  BlockPool& pool = *to_map->pool;
  pool.unmapped.erase(to_map);
  to_map->mapped = true;
  if (mapped < to_map->size) {
    auto* remaining = new Block;  // to_map -> remaining -> to_map->next
    remaining->size = to_map->size - mapped;
    remaining->ptr = to_map->ptr + mapped;
    remaining->pool = &pool;
    remaining->mapped = false;
    remaining->expandable = to_map->expandable;
    remaining->prev = to_map;
    remaining->next = to_map->next;
    if (remaining->next != nullptr) remaining->next->prev = remaining;
    to_map->next = remaining;
    pool.unmapped.insert(remaining);
    to_map->size = mapped;
  }
  TryMergeBlocks(to_map, to_map->prev, pool);
  TryMergeBlocks(to_map, to_map->next, pool);
  pool.Insert(to_map);
  SetReserved(static_cast<int64_t>(mapped));
  ++counters_.num_device_alloc;
  return true;
}

void CachingAllocator::UnmapBlock(Block* block) {
  // unmap_block(): only whole pages go back; the partial pages before/after stay mapped as free blocks.
  const MappedRange unmapped = SegmentUnmap(block->expandable, block->ptr, block->size);
  if (unmapped.bytes == 0) return;
  BlockPool& pool = *block->pool;
  pool.blocks.erase(block);
  const uint64_t before_size = unmapped.va - block->ptr;
  if (before_size > 0) {  // prev? -> before_free -> block
    auto* before = new Block;
    before->size = before_size;
    before->ptr = block->ptr;
    before->pool = &pool;
    before->expandable = block->expandable;
    before->prev = block->prev;
    if (before->prev != nullptr) before->prev->next = before;
    before->next = block;
    block->prev = before;
    pool.Insert(before);
  }
  const uint64_t after_size = block->size - (before_size + unmapped.bytes);
  if (after_size > 0) {  // block -> after_free -> next?
    auto* after = new Block;
    after->size = after_size;
    after->ptr = unmapped.va + unmapped.bytes;
    after->pool = &pool;
    after->expandable = block->expandable;
    after->next = block->next;
    if (after->next != nullptr) after->next->prev = after;
    after->prev = block;
    block->next = after;
    pool.Insert(after);
  }
  block->ptr = unmapped.va;
  block->size = unmapped.bytes;
  block->mapped = false;
  TryMergeBlocks(block, block->prev, pool);
  TryMergeBlocks(block, block->next, pool);
  pool.unmapped.insert(block);
  SetReserved(-static_cast<int64_t>(unmapped.bytes));
  ++counters_.num_device_free;
}

uint64_t CachingAllocator::SegmentMap(Segment* s, uint64_t ptr, uint64_t size) {
  // ExpandableSegment::map(): one cuMemCreate (here one driver Map of segment_size) per page over
  // [segmentLeft(ptr), segmentRight(ptr + size)); on an out-of-memory the pages created so far are
  // released and nothing is mapped.
  const uint64_t begin = (ptr - s->base) / s->page;
  const uint64_t end = (ptr + size - s->base + s->page - 1) / s->page;
  for (uint64_t i = begin; i < end; ++i) {
    if (!driver_.Map(s->base + i * s->page, s->page)) {
      for (uint64_t j = begin; j < i; ++j) {
        driver_.Unmap(s->base + j * s->page, s->page);
        s->mapped[j] = false;
      }
      return 0;
    }
    s->mapped[i] = true;
  }
  return (end - begin) * s->page;
}

CachingAllocator::MappedRange CachingAllocator::SegmentUnmap(Segment* s, uint64_t ptr, uint64_t size) {
  // ExpandableSegment::unmap(): whole pages [segmentRight(ptr), segmentLeft(ptr + size)); unmapHandles()
  // synchronises the stream first.
  const uint64_t begin = (ptr - s->base + s->page - 1) / s->page;
  const uint64_t end = (ptr + size - s->base) / s->page;
  if (begin >= end) return {ptr, 0};
  driver_.StreamSynchronize();
  for (uint64_t i = begin; i < end; ++i) {
    driver_.Unmap(s->base + i * s->page, s->page);
    s->mapped[i] = false;
  }
  return {s->base + begin * s->page, (end - begin) * s->page};
}

void CachingAllocator::ReleaseExpandableSegment(Block* block) {
  // release_expandable_segment(): the block spans the whole (unmapped) segment.
  Segment* s = block->expandable;
  expandable_segments_.erase(std::find(expandable_segments_.begin(), expandable_segments_.end(), s));
  block->pool->unmapped.erase(block);
  delete s;
  delete block;
}

// ---------------------------------------------------------------------------------------------------
// Statistics and the OOM report.

void CachingAllocator::SetReserved(int64_t delta) {
  total_allocated_memory_ = static_cast<uint64_t>(static_cast<int64_t>(total_allocated_memory_) + delta);
  peak_reserved_bytes_ = std::max(peak_reserved_bytes_, total_allocated_memory_);
}

void CachingAllocator::SetAllocated(int64_t delta) {
  allocated_bytes_ = static_cast<uint64_t>(static_cast<int64_t>(allocated_bytes_) + delta);
  peak_allocated_bytes_ = std::max(peak_allocated_bytes_, allocated_bytes_);
}

uint64_t CachingAllocator::LargestFreeBlock() const {
  uint64_t largest = 0;
  for (const BlockPool* pool : {&large_blocks_, &small_blocks_}) {
    if (!pool->blocks.empty()) largest = std::max(largest, (*pool->blocks.rbegin())->size);
  }
  return largest;
}

void CachingAllocator::FillOom(uint64_t requested, const AllocParams& p, Oom* oom) {
  // The OOM branch of malloc(): num_ooms, then OutOfMemoryError with cudaMemGetInfo's free/total.
  ++counters_.num_ooms;
  ++num_failed_;
  const uint64_t device_free = driver_.free_bytes();
  const uint64_t device_total = driver_.total_bytes();
  const uint64_t limit = set_fraction_ ? allowed_memory_maximum_ : 0;
  // What this process could hold at most: what the device has free plus what this policy holds (every
  // releasable cached block has been released by now).
  const OomKind kind = ClassifyOom(p.size, allocated_bytes_, limit, device_free + total_allocated_memory_);
  ooms_.Count(kind);
  if (oom == nullptr) return;
  oom->kind = kind;
  oom->request_bytes = requested;
  oom->rounded_bytes = p.size;
  oom->live_bytes = allocated_bytes_;
  oom->reserved_bytes = total_allocated_memory_;
  oom->largest_free_block_bytes = LargestFreeBlock();
  oom->limit_bytes = limit;
  oom->device_free_bytes = device_free;
  // reportProcessMemoryInfo() (NVML): in the emulation this process holds everything the device uses.
  const std::string proc_info = "Including non-PyTorch memory, this process has " +
                                TorchFormatSize(device_total - device_free) + " memory in use. ";
  const std::string allowed_info = set_fraction_ ? TorchFormatSize(allowed_memory_maximum_) + " allowed; " : "";
  // PyTorch prints alloc_size (get_allocation_size of the rounded request), not the request itself.
  oom->message = "CUDA out of memory. Tried to allocate " + TorchFormatSize(p.alloc_size) +
                 ". GPU 0 has a total capacity of " + TorchFormatSize(device_total) + " of which " +
                 TorchFormatSize(device_free) + " is free. " + proc_info + allowed_info + "Of the allocated memory " +
                 TorchFormatSize(allocated_bytes_) + " is allocated by PyTorch, and " +
                 TorchFormatSize(total_allocated_memory_ - allocated_bytes_) +
                 " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
                 "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
                 "documentation for Memory Management  "
                 "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
}

}  // namespace strata::gpu
