// Sparse byte store for a large device memory: pages exist only once written, the rest reads a fill byte.
#ifndef STRATA_SIM_HBM_SPARSE_MEMORY_H_
#define STRATA_SIM_HBM_SPARSE_MEMORY_H_

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace strata::hbm {

// A byte-addressable memory of `capacity` bytes that costs host RAM only for the pages written.
// Never-written bytes read as `fill_byte`. Reads never create pages, nor do writes of nothing but
// `fill_byte` into a page that does not exist yet (they would not change what any read returns).
// Not thread-safe.
class SparseMemory {
 public:
  SparseMemory(uint64_t capacity, uint32_t page_bytes, uint8_t fill_byte);

  uint64_t capacity() const { return capacity_; }
  uint8_t fill_byte() const { return fill_byte_; }
  uint32_t page_bytes() const { return page_bytes_; }
  uint64_t pages_allocated() const { return pages_.size(); }
  uint64_t bytes_allocated() const { return pages_.size() * static_cast<uint64_t>(page_bytes_); }

  // Range checks return false and touch nothing; the end must not pass capacity (no wrap-around).
  bool InRange(uint64_t addr, uint64_t len) const { return len <= capacity_ && addr <= capacity_ - len; }
  bool Read(uint64_t addr, void* dst, uint64_t len) const;
  bool Write(uint64_t addr, const void* src, uint64_t len);
  // Writes only the bytes whose bit is set in `mask` (bit i = byte i); len <= 64.
  bool WriteMasked(uint64_t addr, const void* src, uint64_t len, uint64_t mask);

 private:
  uint8_t* PageFor(uint64_t page_index);  // creates the page (filled) on first use
  const uint8_t* FindPage(uint64_t page_index) const;
  bool AllFill(const uint8_t* p, uint64_t len) const;

  uint64_t capacity_;
  uint32_t page_bytes_;
  uint32_t page_shift_;
  uint8_t fill_byte_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  // One-entry cache: streams touch the same page many times in a row.
  mutable uint64_t last_index_ = ~0ull;
  mutable uint8_t* last_page_ = nullptr;
  // The last page looked up and not found: a copy of never-written memory reads and writes (fill)
  // one absent page many times in a row. PageFor clears it when it creates that page.
  mutable uint64_t absent_index_ = ~0ull;
};

}  // namespace strata::hbm

#endif  // STRATA_SIM_HBM_SPARSE_MEMORY_H_
