#include "alloc_trace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace strata::mlp {

Buffer AllocTrace::Alloc(Context& context, uint64_t bytes) {
  Buffer b = context.Alloc(bytes);
  if (!live_.emplace(b.handle(), rows_.size()).second) {  // a live handle handed out again: not a trace
    throw Error(STRATA_INTERNAL, "alloc trace: buffer handle " + std::to_string(b.handle()) + " is already live");
  }
  rows_.push_back({++events_, 0, bytes});
  return b;
}

void AllocTrace::Free(Buffer& buffer) {
  const strata_buffer handle = buffer.handle();
  buffer.Free();
  const auto it = live_.find(handle);
  if (it == live_.end()) {
    throw Error(STRATA_INTERNAL, "alloc trace: freed buffer handle " + std::to_string(handle) + " was not recorded");
  }
  rows_[it->second].upper = ++events_;
  live_.erase(it);
}

std::string AllocTrace::Csv() const {
  std::string text = "id,lower,upper,size\n";
  char line[96];
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    std::snprintf(line, sizeof line, "%zu,%llu,%llu,%llu\n", i, static_cast<unsigned long long>(r.lower),
                  static_cast<unsigned long long>(r.upper != 0 ? r.upper : events_ + 1),
                  static_cast<unsigned long long>(r.size));
    text += line;
  }
  return text;
}

std::string AllocTrace::Write(const std::string& path) const {
  const std::string text = Csv();
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return std::strerror(errno);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0) return std::strerror(errno);  // a full disk shows up here
  return written ? "" : std::strerror(write_errno);
}

}  // namespace strata::mlp
