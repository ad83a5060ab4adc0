// Sparse byte store: a hash map of fixed-size pages created on first write.
#include "hbm/sparse_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace strata::hbm {

SparseMemory::SparseMemory(uint64_t capacity, uint32_t page_bytes, uint8_t fill_byte)
    : capacity_(capacity), page_bytes_(page_bytes), page_shift_(0), fill_byte_(fill_byte) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0) {
    throw std::invalid_argument("SparseMemory: page_bytes must be a power of two");
  }
  while ((1u << page_shift_) != page_bytes) ++page_shift_;
}

const uint8_t* SparseMemory::FindPage(uint64_t page_index) const {
  if (page_index == last_index_) return last_page_;
  if (page_index == absent_index_) return nullptr;
  auto it = pages_.find(page_index);
  if (it == pages_.end()) {
    absent_index_ = page_index;
    return nullptr;
  }
  last_index_ = page_index;
  last_page_ = it->second.get();
  return last_page_;
}

uint8_t* SparseMemory::PageFor(uint64_t page_index) {
  if (page_index == last_index_) return last_page_;
  if (page_index == absent_index_) absent_index_ = ~0ull;
  auto& slot = pages_[page_index];
  if (!slot) {
    slot.reset(new uint8_t[page_bytes_]);
    std::memset(slot.get(), fill_byte_, page_bytes_);
  }
  last_index_ = page_index;
  last_page_ = slot.get();
  return last_page_;
}

bool SparseMemory::AllFill(const uint8_t* p, uint64_t len) const {
  uint64_t fill_word;
  std::memset(&fill_word, fill_byte_, sizeof fill_word);
  uint64_t i = 0;
  for (; i + 8 <= len; i += 8) {  // a word at a time: a compaction copies gigabytes of fill
    uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    if (w != fill_word) return false;
  }
  for (; i < len; ++i) {
    if (p[i] != fill_byte_) return false;
  }
  return true;
}

bool SparseMemory::Read(uint64_t addr, void* dst, uint64_t len) const {
  if (!InRange(addr, len)) return false;
  auto* out = static_cast<uint8_t*>(dst);
  while (len > 0) {
    uint64_t offset = addr & (page_bytes_ - 1);
    uint64_t chunk = std::min<uint64_t>(len, page_bytes_ - offset);
    const uint8_t* page = FindPage(addr >> page_shift_);
    if (page) {
      std::memcpy(out, page + offset, chunk);
    } else {
      std::memset(out, fill_byte_, chunk);
    }
    out += chunk;
    addr += chunk;
    len -= chunk;
  }
  return true;
}

bool SparseMemory::Write(uint64_t addr, const void* src, uint64_t len) {
  if (!InRange(addr, len)) return false;
  auto* in = static_cast<const uint8_t*>(src);
  while (len > 0) {
    uint64_t offset = addr & (page_bytes_ - 1);
    uint64_t chunk = std::min<uint64_t>(len, page_bytes_ - offset);
    // Writing the fill byte into a page that does not exist changes nothing a read can see: no page.
    // (Compactions of never-written buffers copy gigabytes of fill; this keeps them from costing host RAM.)
    if (FindPage(addr >> page_shift_) != nullptr || !AllFill(in, chunk)) {
      std::memcpy(PageFor(addr >> page_shift_) + offset, in, chunk);
    }
    in += chunk;
    addr += chunk;
    len -= chunk;
  }
  return true;
}

bool SparseMemory::WriteMasked(uint64_t addr, const void* src, uint64_t len, uint64_t mask) {
  if (len > 64 || !InRange(addr, len)) return false;
  if (len == 0) return true;
  uint64_t full = len == 64 ? ~0ull : ((1ull << len) - 1);
  mask &= full;
  if (mask == full) return Write(addr, src, len);
  auto* in = static_cast<const uint8_t*>(src);
  for (uint64_t i = 0; i < len; ++i) {
    if (mask & (1ull << i)) {
      uint64_t a = addr + i;
      if (in[i] == fill_byte_ && FindPage(a >> page_shift_) == nullptr) continue;
      PageFor(a >> page_shift_)[a & (page_bytes_ - 1)] = in[i];
    }
  }
  return true;
}

}  // namespace strata::hbm
