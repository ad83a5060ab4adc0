// C++ RAII wrapper over the C API (strata.h): Device closes, Context destroys, Buffer frees on scope exit.
// Failed calls throw strata::Error (status + message). Thread-safety and blocking are the C API's.
#ifndef STRATA_STRATA_HPP_
#define STRATA_STRATA_HPP_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "strata/strata.h"

namespace strata {

class Error : public std::runtime_error {
 public:
  explicit Error(strata_status status)
      : std::runtime_error(strata_last_error_message()[0] ? strata_last_error_message() : strata_status_name(status)),
        status_(status) {}
  Error(strata_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  strata_status status() const { return status_; }

 private:
  strata_status status_;
};

inline void Check(strata_status s) {
  if (s != STRATA_OK) throw Error(s);
}

class Device;

// A buffer owned by a context; freed when it goes out of scope (errors on that path are ignored).
class Buffer {
 public:
  Buffer() = default;
  Buffer(strata_device* d, strata_context c, strata_buffer b, uint64_t bytes)
      : device_(d), context_(c), handle_(b), bytes_(bytes) {}
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      Reset();
      device_ = std::exchange(o.device_, nullptr);
      context_ = o.context_;
      handle_ = std::exchange(o.handle_, 0);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  ~Buffer() { Reset(); }

  void Write(const void* src, uint64_t bytes, uint64_t offset = 0) {
    Check(strata_write(device_, context_, handle_, offset, src, bytes));
  }
  void Read(void* dst, uint64_t bytes, uint64_t offset = 0) const {
    Check(strata_read(device_, context_, handle_, offset, dst, bytes));
  }
  // Frees now (throws on error) rather than at scope exit.
  void Free() {
    const strata_buffer h = std::exchange(handle_, 0);
    Check(strata_free(device_, context_, h));
  }
  strata_buffer handle() const { return handle_; }
  uint64_t size() const { return bytes_; }
  explicit operator bool() const { return handle_ != 0; }

 private:
  void Reset() {
    if (handle_ != 0 && device_ != nullptr) strata_free(device_, context_, handle_);
    handle_ = 0;
  }
  strata_device* device_ = nullptr;
  strata_context context_ = 0;
  strata_buffer handle_ = 0;
  uint64_t bytes_ = 0;
};

// A context; destroyed (with every buffer it still owns) when it goes out of scope. Destroy Buffers first.
class Context {
 public:
  Context() = default;
  Context(strata_device* d, strata_context c) : device_(d), id_(c) {}
  Context(Context&& o) noexcept { *this = std::move(o); }
  Context& operator=(Context&& o) noexcept {
    if (this != &o) {
      Reset();
      device_ = std::exchange(o.device_, nullptr);
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  ~Context() { Reset(); }

  Buffer Alloc(uint64_t bytes, uint64_t alignment = 0, uint32_t flags = 0) {
    strata_buffer b = 0;
    Check(strata_alloc(device_, id_, bytes, alignment, flags, &b));
    return Buffer(device_, id_, b, bytes);
  }
  // c = a (m x k) . b (k x n) (+ c); flags STRATA_GEMM_FLAG_*; quantization with STRATA_GEMM_FLAG_INT8.
  void Gemm(const Buffer& a, const Buffer& b, Buffer& c, uint32_t m, uint32_t n, uint32_t k, uint32_t flags = 0,
            int32_t quant_mult = 0, uint32_t quant_shift = 0) {
    const strata_gemm_args g{sizeof g, a.handle(), b.handle(), c.handle(), m, n, k, flags, quant_mult, quant_shift};
    Check(strata_gemm(device_, id_, &g));
  }
  strata_compact_result Compact(uint64_t max_bytes = 0, uint32_t max_moves = 0) {
    strata_compact_options o{sizeof o, max_bytes, max_moves};
    strata_compact_result r{};
    r.struct_size = sizeof r;
    Check(strata_compact(device_, id_, &o, &r));
    return r;
  }
  strata_memory_stats MemoryStats() const {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    Check(strata_get_memory_stats(device_, id_, &s));
    return s;
  }
  strata_context id() const { return id_; }

 private:
  void Reset() {
    if (id_ != 0 && device_ != nullptr) strata_context_destroy(device_, id_);
    id_ = 0;
  }
  strata_device* device_ = nullptr;
  strata_context id_ = 0;
};

class Device {
 public:
  // backend "sim"; options may be null.
  explicit Device(const char* backend, const strata_open_options* options = nullptr) {
    Check(strata_open(backend, options, &device_));
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device() { strata_close(device_); }  // its status lost: call Close() to know it
  // Closes now and throws what strata_close says (STRATA_DATA_LOSS: the timeline could not be written completely).
  void Close() { Check(strata_close(std::exchange(device_, nullptr))); }

  Context CreateContext(uint64_t quota_bytes = 0, double quota_fraction = 0) {
    strata_context_options o{sizeof o, quota_bytes, quota_fraction};
    strata_context c = 0;
    Check(strata_context_create(device_, &o, &c));
    return Context(device_, c);
  }
  strata_memory_stats MemoryStats() const {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    Check(strata_get_memory_stats(device_, 0, &s));
    return s;
  }
  strata_device_info Info() const {
    strata_device_info i{};
    i.struct_size = sizeof i;
    Check(strata_get_device_info(device_, &i));
    return i;
  }
  void Synchronize() { Check(strata_synchronize(device_)); }
  strata_device* get() const { return device_; }

 private:
  strata_device* device_ = nullptr;
};

}  // namespace strata

#endif  // STRATA_STRATA_HPP_
