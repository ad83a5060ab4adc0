// The XLA/TSL BFC allocator over a GpuDriver (docs/gpu-policies.md, "The BFC's rules, by source"). Line
// citations: xla/tsl/framework/bfc_allocator.{h,cc} at ROCm/xla @183fa00c.
#include "bfc_allocator.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace strata::gpu {

BfcAllocator::BfcAllocator(GpuDriver& driver, uint64_t total_memory, std::string name, const BfcOptions& opts)
    : driver_(driver), opts_(opts), name_(std::move(name)), memory_limit_(total_memory) {
  if (opts_.initial_region_bytes != 0) {
    curr_region_allocation_bytes_ = RoundedBytes(opts_.initial_region_bytes);
  } else if (opts_.allow_growth) {
    // "2MiB smallest initial allocation, unless total memory available is less" (.cc:94-98).
    curr_region_allocation_bytes_ = RoundedBytes(std::min<uint64_t>(total_memory, 2ull << 20));
  } else {
    // Fixed mode: the whole limit, taken on the first allocation (.cc:99-101).
    curr_region_allocation_bytes_ = RoundedBytes(total_memory);
  }
  stats_.bytes_limit = total_memory;
}

BfcAllocator::~BfcAllocator() {
  for (const auto& [ptr, size] : regions_) driver_.Free(ptr);
}

uint64_t BfcAllocator::RoundedBytes(uint64_t bytes) {
  return kMinAllocationSize * ((bytes + kMinAllocationSize - 1) / kMinAllocationSize);
}

int BfcAllocator::BinNumForSize(uint64_t bytes) {
  // min(kNumBins - 1, Log2FloorNonZero(max(bytes, 256) >> kMinAllocationBits)) (bfc_allocator.h:742-745).
  const uint64_t v = std::max<uint64_t>(bytes, kMinAllocationSize) >> kMinAllocationBits;
  const int b = static_cast<int>(std::bit_width(v)) - 1;
  return std::min(kNumBins - 1, b);
}

uint64_t BfcAllocator::LowEndAlignmentPadding(uint64_t chunk_start, uint64_t alignment) {
  const uint64_t aligned = (chunk_start + alignment - 1) & ~(alignment - 1);
  return RoundedBytes(aligned - chunk_start);
}

uint64_t BfcAllocator::SubAllocatorAlloc(uint64_t bytes, uint64_t* bytes_received) {
  // XLA's se::DeviceMemAllocator reports exactly the bytes it asked for as bytes_received
  // (stream_executor/integrations/device_mem_allocator.h:51 in TF 2.21), however many pages the driver
  // rounds them up to: pool_bytes counts requests, the device's free memory counts pages.
  const uint64_t va = driver_.Malloc(bytes);
  *bytes_received = va == 0 ? 0 : bytes;
  return va;
}

// Extend (.cc:167-246).
bool BfcAllocator::Extend(uint64_t /*alignment*/, uint64_t rounded_bytes) {
  // available = memory_limit - pool_bytes, rounded down to 256 (.cc:170-172), an unsigned (size_t)
  // difference as in the source: were pool_bytes ever above the limit it would wrap to a huge value and the
  // allocator would keep growing until the device refuses. With XLA's sub-allocator (bytes_received = bytes
  // asked, never more than available) the pool cannot pass the limit, so the wrap is never reached; it is
  // kept so that any sub-allocator that over-reports behaves as TensorFlow does (docs/gpu-policies.md).
  uint64_t available_bytes = memory_limit_ - stats_.pool_bytes;
  available_bytes = (available_bytes / kMinAllocationSize) * kMinAllocationSize;
  // Not enough room under the limit: fail immediately (.cc:174-178).
  if (rounded_bytes > available_bytes) return false;

  // Double the region size until the request fits (.cc:180-187).
  bool increased_allocation = false;
  while (rounded_bytes > curr_region_allocation_bytes_) {
    curr_region_allocation_bytes_ *= 2;
    increased_allocation = true;
  }

  // Try allocating; on failure back-pedal by x0.9 until below the request (.cc:190-212). The source
  // multiplies a size_t by a float, so the product is a float: kept, so the sizes match it.
  uint64_t bytes = std::min(curr_region_allocation_bytes_, available_bytes);
  uint64_t bytes_received = 0;
  uint64_t mem_addr = SubAllocatorAlloc(bytes, &bytes_received);
  while (mem_addr == 0) {
    uint64_t smaller = RoundedBytes(static_cast<uint64_t>(static_cast<float>(bytes) * kBackpedalFactor));
    // Below 2560 B, x0.9 rounded up to 256 gives the same size back: tsl then steps down by 256 B so that the
    // loop always makes progress (TF 2.21's Extend; fidelity.bfc.retry_helper sees its device requests).
    if (smaller >= bytes) smaller = bytes - kMinAllocationSize;
    bytes = smaller;
    if (bytes < rounded_bytes) return false;
    mem_addr = SubAllocatorAlloc(bytes, &bytes_received);
  }

  // Increase the region size of the next required allocation (.cc:214-217).
  if (!increased_allocation) curr_region_allocation_bytes_ *= 2;

  stats_.pool_bytes += bytes_received;
  stats_.peak_pool_bytes = std::max(stats_.pool_bytes, stats_.peak_pool_bytes);

  // A new region (never merged with another one: coalesce_regions_ is false for the device allocator)
  // holding one free chunk over all of it.
  regions_[mem_addr] = bytes_received;
  auto [it, inserted] = chunks_.emplace(mem_addr, Chunk{});
  it->second.size = bytes_received;
  it->second.region = mem_addr;
  InsertFreeChunkIntoBin(TryToCoalesce(it));
  return true;
}

BfcAllocator::ChunkMap::iterator BfcAllocator::Next(ChunkMap::iterator it) {
  auto n = std::next(it);
  if (n == chunks_.end() || n->second.region != it->second.region) return chunks_.end();
  return n;
}

BfcAllocator::ChunkMap::iterator BfcAllocator::Prev(ChunkMap::iterator it) {
  if (it == chunks_.begin()) return chunks_.end();
  auto p = std::prev(it);
  if (p->second.region != it->second.region) return chunks_.end();
  return p;
}

void BfcAllocator::InsertFreeChunkIntoBin(ChunkMap::iterator it) {
  Chunk& c = it->second;
  const int b = BinNumForSize(c.size);
  c.bin = b;
  bins_[b].emplace(c.size, it->first);
}

void BfcAllocator::RemoveFreeChunkFromBin(ChunkMap::iterator it) {
  Chunk& c = it->second;
  bins_[c.bin].erase({c.size, it->first});
  c.bin = -1;
}

// SplitChunk (.cc): a new free chunk starting num_bytes after c.
BfcAllocator::ChunkMap::iterator BfcAllocator::SplitChunk(ChunkMap::iterator it, uint64_t num_bytes) {
  Chunk tail;
  tail.size = it->second.size - num_bytes;
  tail.region = it->second.region;
  it->second.size = num_bytes;
  auto t = chunks_.emplace_hint(std::next(it), it->first + num_bytes, tail);
  InsertFreeChunkIntoBin(t);
  return t;
}

// TryToCoalesce (.cc): merge the next free neighbour into c, then c into a free previous neighbour.
BfcAllocator::ChunkMap::iterator BfcAllocator::TryToCoalesce(ChunkMap::iterator it) {
  auto n = Next(it);
  if (n != chunks_.end() && !n->second.in_use()) {
    RemoveFreeChunkFromBin(n);
    it->second.size += n->second.size;
    chunks_.erase(n);
  }
  auto p = Prev(it);
  if (p != chunks_.end() && !p->second.in_use()) {
    RemoveFreeChunkFromBin(p);
    p->second.size += it->second.size;
    chunks_.erase(it);
    return p;
  }
  return it;
}

// FindChunkPtr (.cc; docs/gpu-policies.md, BFC rule 2).
uint64_t BfcAllocator::FindChunkPtr(int bin_num, uint64_t rounded_bytes, uint64_t num_bytes, uint64_t alignment) {
  for (; bin_num < kNumBins; ++bin_num) {
    // Within a bin: smallest size first, then lowest address; the first that fits (with its alignment
    // padding) wins. Chunks smaller than the request cannot fit whatever their padding: the walk starts at
    // the first that is not (the same chunk TF's walk from the bin's start reaches, without the walk).
    FreeSet& bin = bins_[bin_num];
    // The lower bound without the tree walk where the bin's ends tell it (O(1)): none when even the largest chunk is
    // short, the first chunk when even the smallest is long enough (every bin above the request's).
    if (bin.empty() || bin.rbegin()->first < rounded_bytes) continue;
    const auto start = bin.begin()->first >= rounded_bytes ? bin.begin() : bin.lower_bound({rounded_bytes, 0});
    for (auto citer = start; citer != bin.end(); ++citer) {
      const auto [size, ptr] = *citer;
      const uint64_t padding = LowEndAlignmentPadding(ptr, alignment);
      if (size < rounded_bytes + padding) continue;
      auto it = chunks_.find(ptr);
      RemoveFreeChunkFromBin(it);
      if (padding > 0) {
        // The low-end prefix stays behind as a free chunk of its own (.cc:796-810). It cannot coalesce:
        // its previous neighbour is in use (free neighbours are always merged).
        auto aligned = SplitChunk(it, padding);
        RemoveFreeChunkFromBin(aligned);
        InsertFreeChunkIntoBin(it);
        it = aligned;
      }
      // Split iff the chunk is at least twice the request or would waste at least the threshold
      // (.cc:816-821).
      const uint64_t max_internal_fragmentation_bytes =
          opts_.fragmentation_fraction > 0.0
              ? static_cast<uint64_t>(opts_.fragmentation_fraction * static_cast<double>(memory_limit_))
              : kDefaultMaxInternalFragmentation;
      Chunk& c = it->second;
      if (c.size >= rounded_bytes * 2 || c.size - rounded_bytes >= max_internal_fragmentation_bytes) {
        SplitChunk(it, rounded_bytes);
      }
      c.requested_size = num_bytes;
      c.allocation_id = next_allocation_id_++;
      // Stats count the chunk size, which may exceed the request when unsplit (.cc:881-891).
      ++stats_.num_allocs;
      stats_.bytes_in_use += c.size;
      stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
      stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, c.size);
      stats_.requested_bytes += num_bytes;
      return it->first;
    }
  }
  return 0;
}

// DeallocateFreeRegions + DeallocateRegions (.cc:430-484).
bool BfcAllocator::DeallocateFreeRegions(uint64_t rounded_bytes) {
  if (!opts_.garbage_collection) return false;
  std::vector<uint64_t> free_regions;
  uint64_t total_free_bytes = 0;
  for (const auto& [ptr, size] : regions_) {
    bool any_use = false;
    for (auto it = chunks_.find(ptr); it != chunks_.end() && it->second.region == ptr; ++it) {
      if (it->second.in_use()) {
        any_use = true;
        break;
      }
    }
    if (!any_use) {
      free_regions.push_back(ptr);
      total_free_bytes += size;
    }
  }
  if (total_free_bytes == 0) return false;
  // "Rough estimation to check whether deallocation can help": limit - pool + free regions, in size_t
  // arithmetic as the source computes it (it wraps the same way Extend's difference does).
  const uint64_t available_bytes = memory_limit_ - stats_.pool_bytes + total_free_bytes;
  if (rounded_bytes > available_bytes) return false;

  ++garbage_collections_;
  for (uint64_t ptr : free_regions) {
    for (auto it = chunks_.find(ptr); it != chunks_.end() && it->second.region == ptr;) {
      if (it->second.bin != -1) RemoveFreeChunkFromBin(it);
      it = chunks_.erase(it);
    }
    const uint64_t size = regions_[ptr];
    driver_.Free(ptr);
    stats_.pool_bytes -= size;
    regions_.erase(ptr);
    ++regions_deallocated_;
  }
  return true;
}

// AllocateRawInternal (.cc:521-612), without the timestamped-chunk steps 3 and 6.
uint64_t BfcAllocator::AllocateRawInternal(uint64_t alignment, uint64_t num_bytes) {
  if (num_bytes == 0) return 0;  // step 1: not an OOM
  const uint64_t rounded_bytes = RoundedBytes(num_bytes);
  const int bin_num = BinNumForSize(rounded_bytes);
  uint64_t ptr = FindChunkPtr(bin_num, rounded_bytes, num_bytes, alignment);
  if (ptr != 0) return ptr;
  // Step 5: a new region, then search again.
  if (Extend(alignment, rounded_bytes)) {
    ptr = FindChunkPtr(bin_num, rounded_bytes, num_bytes, alignment);
    if (ptr != 0) return ptr;
  }
  // Step 7: give wholly free regions back so the sub-allocator can form a larger one.
  if (DeallocateFreeRegions(rounded_bytes) && Extend(alignment, rounded_bytes)) {
    ptr = FindChunkPtr(bin_num, rounded_bytes, num_bytes, alignment);
    if (ptr != 0) return ptr;
  }
  return 0;  // step 8
}

uint64_t BfcAllocator::AllocateRaw(uint64_t alignment, uint64_t num_bytes) {
  // alignment = max(alignment, 256) (.cc:534-537).
  alignment = std::max(alignment, kMinAllocationSize);
  uint64_t r = AllocateRawInternal(alignment, num_bytes);
  if (r == 0 && num_bytes != 0 && opts_.allow_retry_on_failure) {
    // AllocateRawInternalWithRetry, then tsl::AllocatorRetry::AllocateRaw (allocator_retry.cc): a pass, a wait of
    // up to 10 s for another thread's free, a last pass. With one thread nothing is freed meanwhile, so the
    // wait ends at its deadline: four passes in all (fidelity.bfc.retry_helper counts them in TensorFlow's
    // own allocator). One retry counted per allocation that entered the retry helper.
    ++retries_;
    ++driver_.counters().retries;
    for (int pass = 1; pass < kPassesWithRetry && r == 0; ++pass) r = AllocateRawInternal(alignment, num_bytes);
  }
  return r;
}

bool BfcAllocator::DeallocateRaw(uint64_t ptr) {
  auto it = chunks_.find(ptr);
  if (it == chunks_.end() || !it->second.in_use()) return false;
  // MarkFree, then coalesce with the next and previous neighbours and bin (.cc:970-1003).
  Chunk& c = it->second;
  c.allocation_id = -1;
  stats_.bytes_in_use -= c.size;
  stats_.requested_bytes -= c.requested_size;
  c.requested_size = 0;
  InsertFreeChunkIntoBin(TryToCoalesce(it));
  return true;
}

uint64_t BfcAllocator::LargestFreeChunk() const {
  for (int i = kNumBins - 1; i >= 0; --i) {
    if (!bins_[i].empty()) return bins_[i].rbegin()->first;
  }
  return 0;
}

double BfcAllocator::GetFragmentation() const {
  const uint64_t available = stats_.pool_bytes - stats_.bytes_in_use;
  if (available == 0) return 0;
  return static_cast<double>(available - LargestFreeChunk()) / static_cast<double>(available);
}

BfcStats BfcAllocator::GetStats() const {
  BfcStats s = stats_;
  s.largest_free_block_bytes = LargestFreeChunk();
  return s;
}

void BfcAllocator::ClearStats() {
  stats_.num_allocs = 0;
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
  stats_.largest_alloc_size = 0;
}

std::vector<BfcRegionInfo> BfcAllocator::Regions() const {
  std::vector<BfcRegionInfo> out;
  for (const auto& [ptr, size] : regions_) out.push_back({ptr, size});
  return out;
}

std::vector<BfcChunkInfo> BfcAllocator::Chunks() const {
  std::vector<BfcChunkInfo> out;
  for (const auto& [ptr, c] : chunks_) {
    out.push_back({ptr, c.size, c.requested_size, c.region, c.in_use(), c.bin});
  }
  return out;
}

uint64_t BfcAllocator::RequestedSize(uint64_t ptr) const {
  auto it = chunks_.find(ptr);
  return it != chunks_.end() && it->second.in_use() ? it->second.requested_size : 0;
}

uint64_t BfcAllocator::AllocatedSize(uint64_t ptr) const {
  auto it = chunks_.find(ptr);
  return it != chunks_.end() && it->second.in_use() ? it->second.size : 0;
}

bool BfcAllocator::CheckInvariants(std::string* why) const {
  auto fail = [why](const std::string& s) {
    *why = s;
    return false;
  };
  uint64_t in_use = 0, requested = 0, pool = 0, binned = 0;
  for (const auto& [rptr, rsize] : regions_) {
    pool += rsize;
    uint64_t at = rptr;
    bool prev_free = false;
    for (auto it = chunks_.find(rptr); it != chunks_.end() && it->second.region == rptr; ++it) {
      const Chunk& c = it->second;
      if (it->first != at) return fail("chunks do not tile region " + std::to_string(rptr));
      if (c.size == 0 || c.size % kMinAllocationSize != 0) return fail("bad chunk size");
      if (c.in_use()) {
        if (c.bin != -1) return fail("chunk in use is binned");
        in_use += c.size;
        requested += c.requested_size;
        prev_free = false;
      } else {
        if (prev_free) return fail("two free neighbours at " + std::to_string(it->first));
        if (c.bin != BinNumForSize(c.size) || bins_[c.bin].count({c.size, it->first}) == 0) {
          return fail("free chunk not in its bin");
        }
        ++binned;
        prev_free = true;
      }
      at += c.size;
    }
    if (at != rptr + rsize) return fail("chunks do not cover region " + std::to_string(rptr));
  }
  uint64_t bin_entries = 0;
  for (const FreeSet& b : bins_) bin_entries += b.size();
  if (bin_entries != binned) return fail("stale bin entries");
  if (in_use != stats_.bytes_in_use) return fail("bytes_in_use disagrees with the chunks");
  if (requested != stats_.requested_bytes) return fail("requested_bytes disagrees with the chunks");
  if (pool != stats_.pool_bytes) return fail("pool_bytes disagrees with the regions");
  return true;
}

std::string HumanReadableNumBytes(uint64_t num_bytes) {
  char buf[32];
  if (num_bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%lluB", static_cast<unsigned long long>(num_bytes));
    return buf;
  }
  static const char kUnits[] = "KMGTPE";
  const char* unit = kUnits;
  while (num_bytes >= 1024ull * 1024) {
    num_bytes /= 1024;
    ++unit;
  }
  std::snprintf(buf, sizeof buf, *unit == 'K' ? "%.1f%ciB" : "%.2f%ciB", static_cast<double>(num_bytes) / 1024.0,
                *unit);
  return buf;
}

}  // namespace strata::gpu
