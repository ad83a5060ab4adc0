#include "explain.h"

#include <cmath>
#include <cstdio>
#include <regex>

#include "json_lines.h"
#include "policy.h"
#include "replay.h"
#include "text.h"

namespace strata::fit {
namespace {

// "20.00 MiB" (PyTorch's format_size), "1.00GiB" (tsl's HumanReadableNumBytes), "785.61M" (the TPU runtime),
// "512 bytes", "1073741824": binary units in every case.
// The unit follows the number after at most one space and ends the word ("62277025792\nMaxInUse" is no "M").
const char* const kSize = R"(([0-9]+(?:\.[0-9]+)?) ?(bytes|KiB|MiB|GiB|TiB|KB|MB|GB|TB|B|K|M|G|T)?(?![A-Za-z]))";

bool ToBytes(const std::string& number, const std::string& unit, uint64_t* out) {
  const double v = std::strtod(number.c_str(), nullptr);
  double scale = 1;
  if (!unit.empty() && unit != "bytes" && unit != "B") {
    const char u = unit[0];
    scale = u == 'K' ? 1024.0 : u == 'M' ? 1048576.0 : u == 'G' ? 1073741824.0 : 1099511627776.0;
  }
  const double bytes = v * scale;
  if (!std::isfinite(bytes) || bytes < 0 || bytes > 9.2e18) return false;
  *out = static_cast<uint64_t>(std::llround(bytes));
  return true;
}

// The first match of `pattern` (whose size is group 1 and 2 from kSize, after `prefix_groups` other groups).
bool FindSize(const std::string& text, const std::string& pattern, uint64_t* out, bool* found) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return true;
  if (!ToBytes(m[1].str(), m[2].str(), out)) return false;
  *found = true;
  return true;
}

uint64_t DtypeBytes(const std::string& t) {
  if (t == "float" || t == "int32" || t == "uint32" || t == "qint32") return 4;
  if (t == "double" || t == "int64" || t == "uint64" || t == "complex64") return 8;
  if (t == "complex128") return 16;
  if (t == "half" || t == "bfloat16" || t == "int16" || t == "uint16") return 2;
  if (t == "int8" || t == "uint8" || t == "bool" || t == "qint8" || t == "quint8") return 1;
  return 0;
}

std::string H(uint64_t b) { return tool::HumanBytes(b); }

std::string Fraction(double f) {
  char s[16];
  std::snprintf(s, sizeof s, "%.2f", std::ceil(f * 100.0 - 1e-9) / 100.0);
  return s;
}

}  // namespace

bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context, Explanation* out,
             std::string* error) {
  Explanation e;
  const std::string s = std::string(kSize);
  bool found = false, bad = false;
  auto size = [&](const std::string& pattern, uint64_t* v, bool* has) {
    bool f = false;
    if (!FindSize(message, pattern, v, &f)) bad = true;
    if (has != nullptr) *has = f;
    return f;
  };
  if (size("Tried to allocate " + s, &e.request_bytes, &found) && found) {
    // PyTorch: c10/cuda/CUDACachingAllocator.cpp, the OutOfMemoryError raised by malloc().
    e.format = "pytorch";
    e.framework = "PyTorch";
    size("total capacity of " + s, &e.total_bytes, &e.has_total);
    size("of which " + s + " is free", &e.free_bytes, &e.has_free);
    size(s + " allowed;", &e.limit_bytes, &e.has_limit);
    size("Of the allocated memory " + s, &e.live_bytes, &e.has_live);
    uint64_t unallocated = 0;
    bool has_unallocated = false;
    size("and " + s + " is reserved by PyTorch but unallocated", &unallocated, &has_unallocated);
    if (e.has_live && has_unallocated) {
      e.has_reserved = true;
      e.reserved_bytes = e.live_bytes + unallocated;
    }
    // Older PyTorch (before 2.1): "(GPU 0; 7.93 GiB total capacity; 130.35 MiB already allocated; 47.06 MiB free;
    // 188.00 MiB reserved in total by PyTorch)".
    if (!e.has_total) size(s + " total capacity", &e.total_bytes, &e.has_total);
    if (!e.has_live) size(s + " already allocated", &e.live_bytes, &e.has_live);
    if (!e.has_free) size(s + " free;", &e.free_bytes, &e.has_free);
    if (!e.has_reserved) size(s + " reserved in total by PyTorch", &e.reserved_bytes, &e.has_reserved);
  } else if (size("ran out of memory trying to allocate " + s, &e.request_bytes, &found) && found) {
    // The BFC allocator of XLA and TensorFlow: xla/tsl/framework/bfc_allocator.cc, AllocateRaw's warning, with its
    // Stats (Limit, InUse, Reserved, LargestFreeBlock) or Strata's summary (bytes_in_use, pool_bytes, ...).
    e.format = "xla-bfc";
    e.framework = "JAX/XLA or TensorFlow (BFC allocator)";
    size(R"(\(rounded to )" + s, &e.request_bytes, nullptr);
    if (!size("bytes_in_use " + s, &e.live_bytes, &e.has_live)) size(R"(InUse:\s*)" + s, &e.live_bytes, &e.has_live);
    if (!size("pool_bytes " + s, &e.reserved_bytes, &e.has_reserved)) {
      size(R"(\bReserved:\s*)" + s, &e.reserved_bytes, &e.has_reserved);
    }
    if (!size("bytes_limit " + s, &e.limit_bytes, &e.has_limit)) size(R"(Limit:\s*)" + s, &e.limit_bytes, &e.has_limit);
    if (!size("largest_free_block_bytes " + s, &e.largest_free_bytes, &e.has_largest_free)) {
      size(R"(LargestFreeBlock:\s*)" + s, &e.largest_free_bytes, &e.has_largest_free);
    }
  } else if (size("Attempting to allocate " + s + R"(\. That was not possible)", &e.request_bytes, &found) && found) {
    // The TPU runtime (libtpu, closed source): "Error allocating device buffer: Attempting to allocate X. That was
    // not possible. There are Y free. Due to fragmentation, the largest contiguous region of free memory is Z."
    e.format = "tpu";
    e.framework = "TPU runtime";
    size("There are " + s + " free", &e.free_bytes, &e.has_free);
    size("largest contiguous region of free memory is " + s, &e.largest_free_bytes, &e.has_largest_free);
  } else if (std::smatch m; std::regex_search(
                 message, m,
                 std::regex(R"(OOM when allocating tensor with shape\s*\[([0-9, ]*)\] and type ([a-z0-9]+))"))) {
    // TensorFlow: tensorflow/core/framework/op_kernel.cc, OpKernelContext::allocate_tensor's ResourceExhausted.
    e.format = "tensorflow";
    e.framework = "TensorFlow";
    uint64_t elements = 1;
    std::string dims = m[1].str();
    const std::regex digits("[0-9]+");
    for (std::sregex_iterator it(dims.begin(), dims.end(), digits), end; it != end; ++it) {
      const uint64_t d = std::strtoull(it->str().c_str(), nullptr, 10);
      if (d != 0 && elements > (uint64_t{1} << 62) / d) {
        *error = "the tensor's shape is too large to be a real request";
        return false;
      }
      elements *= d;
    }
    const uint64_t width = DtypeBytes(m[2].str());
    if (width == 0) {
      *error = "TensorFlow type '" + m[2].str() + "': its size is not known here";
      return false;
    }
    e.request_bytes = elements * width;
    found = true;
    // The BFC's statistics are often pasted with it.
    size(R"(InUse:\s*)" + s, &e.live_bytes, &e.has_live);
    size(R"(Limit:\s*)" + s, &e.limit_bytes, &e.has_limit);
    size(R"(\bReserved:\s*)" + s, &e.reserved_bytes, &e.has_reserved);
    size(R"(LargestFreeBlock:\s*)" + s, &e.largest_free_bytes, &e.has_largest_free);
  } else if (size(R"(Out of memory while trying to allocate )" + s, &e.request_bytes, &found) && found) {
    // XLA's RESOURCE_EXHAUSTED from the device allocator (xla/stream_executor/integrations/tf_allocator_adapter.cc).
    e.format = "xla";
    e.framework = "JAX/XLA";
  }
  if (bad) {
    *error = "a size in the message is out of range";
    return false;
  }
  if (!found) {
    *error =
        "not an out-of-memory message of PyTorch (\"Tried to allocate\"), XLA's BFC (\"ran out of memory trying to "
        "allocate\"), XLA (\"Out of memory while trying to allocate\"), TensorFlow (\"OOM when allocating tensor with "
        "shape\") or the TPU runtime (\"Attempting to allocate ... That was not possible\")";
    return false;
  }
  if (!e.has_total && device_total != 0) {
    e.total_bytes = device_total;
    e.has_total = true;
  }

  // The rule every tool uses (gpu::ClassifyOom): capacity when live + request exceed what the process can get from
  // the device, cap when they fit there but exceed the framework's limit, else fragmentation.
  const uint64_t req = e.request_bytes;
  if (e.format == "tpu") {
    if (e.has_free) {
      const gpu::OomKind k = gpu::ClassifyOom(req, 0, 0, e.free_bytes);
      e.kind = gpu::OomKindName(k);
      e.why = k == gpu::OomKind::kCapacity
                  ? "the request (" + H(req) + ") is more than all the free HBM (" + H(e.free_bytes) + ")"
                  : "the free HBM (" + H(e.free_bytes) + ") would hold the request (" + H(req) +
                        ") but its largest contiguous region (" + H(e.largest_free_bytes) + ") does not";
    }
  } else if (e.format == "pytorch" && e.has_live && e.has_reserved && e.has_free) {
    // What this process can get: what is free on the GPU plus what PyTorch holds.
    const uint64_t usable = e.free_bytes + e.reserved_bytes;
    const gpu::OomKind k = gpu::ClassifyOom(req, e.live_bytes, e.has_limit ? e.limit_bytes : 0, usable);
    e.kind = gpu::OomKindName(k);
    const std::string need = H(e.live_bytes) + " allocated + " + H(req) + " requested = " + H(e.live_bytes + req);
    e.why = k == gpu::OomKind::kCapacity
                ? need + ", more than PyTorch holds plus what is free on the GPU (" + H(usable) + ")"
            : k == gpu::OomKind::kCap
                ? need + ", more than the memory fraction allows (" + H(e.limit_bytes) + ")"
                : need + " fits in what PyTorch holds plus what is free (" + H(usable) +
                      "): " + H(e.reserved_bytes - e.live_bytes) + " is reserved but unallocated, in blocks too small";
  } else if (e.has_live && e.has_limit) {
    // The BFC: its limit is known; the device only if --device says what it is.
    const uint64_t usable = e.has_total ? e.total_bytes - std::min(e.total_bytes, device_context) : UINT64_MAX;
    const gpu::OomKind k = gpu::ClassifyOom(req, e.live_bytes, e.limit_bytes, usable);
    e.kind = gpu::OomKindName(k);
    const std::string need = H(e.live_bytes) + " in use + " + H(req) + " requested = " + H(e.live_bytes + req);
    e.why = k == gpu::OomKind::kCapacity ? need + ", more than the device gives a process (" + H(usable) + ")"
            : k == gpu::OomKind::kCap
                ? need + ", over the allocator's limit (" + H(e.limit_bytes) + ")" +
                      (e.has_total ? "" : "; give --device to know whether the GPU could")
                : need + " is within the limit (" + H(e.limit_bytes) + ") but no free chunk" +
                      (e.has_largest_free ? " (the largest is " + H(e.largest_free_bytes) + ")" : std::string()) +
                      " holds it";
  } else {
    e.why = "the message gives the request (" + H(req) +
            ") but not what was in use: run strata-fit on a trace or snapshot of the run to classify it";
  }

  // Advice the numbers support (the settings strata-fit searches; docs/fit.md).
  auto& a = e.advice;
  if (e.kind == "capacity") {
    const uint64_t need = e.format == "tpu" ? req : e.live_bytes + req;
    a.push_back("no setting helps: the workload needs at least " + H(need) + " at this point, the device has " +
                H(e.format == "tpu"       ? e.free_bytes
                  : e.format == "pytorch" ? e.free_bytes + e.reserved_bytes
                                          : e.total_bytes - std::min(e.total_bytes, device_context)) +
                "; a larger device, fewer live buffers (smaller batch, activation checkpointing) or sharding");
  } else if (e.kind == "cap") {
    if (e.format == "pytorch") {
      a.push_back("torch.cuda.set_per_process_memory_fraction(" +
                  (e.has_total ? Fraction(static_cast<double>(e.live_bytes + req) / static_cast<double>(e.total_bytes))
                               : std::string("a larger fraction")) +
                  ") or more: the fraction caps what PyTorch may reserve");
    } else if (e.has_total) {
      const double f = static_cast<double>(e.live_bytes + req) / static_cast<double>(e.total_bytes);
      a.push_back("XLA_PYTHON_CLIENT_MEM_FRACTION=" + Fraction(f) +
                  " (JAX: the limit is that fraction of the GPU's total; at least " + H(e.live_bytes + req) + ")");
      a.push_back("TensorFlow: TF_DEVICE_MIN_SYS_MEMORY_IN_MB below the reserve it keeps now, so the limit reaches " +
                  H(e.live_bytes + req));
    } else {
      a.push_back("raise the allocator's limit to at least " + H(e.live_bytes + req) +
                  " (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION; TensorFlow: TF_DEVICE_MIN_SYS_MEMORY_IN_MB); --device NAME "
                  "gives the fraction");
    }
  } else if (e.kind == "fragmentation") {
    if (e.format == "pytorch") {
      a.push_back("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the " + H(e.reserved_bytes - e.live_bytes) +
                  " reserved but unallocated can then be mapped as one range");
      if (req > (20ull << 20)) {
        const uint64_t mb = std::max<uint64_t>(21, std::min<uint64_t>(req >> 20, 512));
        a.push_back("PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:" + std::to_string(mb) + " (blocks of " +
                    std::to_string(mb) +
                    " MiB and more are not split, and are released whole on a miss; 21 is the least PyTorch takes)");
      }
    } else if (e.format == "tpu") {
      a.push_back(
          "compaction: the free HBM holds the request once live buffers are moved together (Strata's "
          "--compaction on-oom; the TPU runtime's own defragmentation)");
    } else {
      a.push_back(
          "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async or TF_GPU_ALLOCATOR=cuda_malloc_async: a pool that maps "
          "pages instead of carving one region");
      a.push_back("JAX: backend.defragment() on the OOM, then retry (every live buffer through the host)");
    }
  }
  a.push_back(
      "strata-fit on a trace or snapshot of this run checks each setting and prints the cheapest that completes");
  *out = e;
  return true;
}

std::string ExplainText(const Explanation& e) {
  std::string out = "format: " + e.framework + "\n";
  out += "request: " + H(e.request_bytes) + "\n";
  if (e.has_live) out += "in use: " + H(e.live_bytes) + "\n";
  if (e.has_reserved) out += "reserved: " + H(e.reserved_bytes) + "\n";
  if (e.has_limit) out += "limit: " + H(e.limit_bytes) + "\n";
  if (e.has_total) out += "device total: " + H(e.total_bytes) + "\n";
  if (e.has_free) out += "free: " + H(e.free_bytes) + "\n";
  if (e.has_largest_free) out += "largest free block: " + H(e.largest_free_bytes) + "\n";
  out += "kind: " + e.kind + ": " + e.why + "\n";
  for (const std::string& a : e.advice) out += "advice: " + a + "\n";
  return out;
}

std::string ExplainJson(const Explanation& e) {
  replay::Json j;
  j["format"] = e.format;
  j["framework"] = e.framework;
  j["request_bytes"] = e.request_bytes;
  auto opt = [&](const char* k, bool has, uint64_t v) { j[k] = has ? replay::Json(v) : replay::Json(nullptr); };
  opt("live_bytes", e.has_live, e.live_bytes);
  opt("reserved_bytes", e.has_reserved, e.reserved_bytes);
  opt("limit_bytes", e.has_limit, e.limit_bytes);
  opt("total_bytes", e.has_total, e.total_bytes);
  opt("free_bytes", e.has_free, e.free_bytes);
  opt("largest_free_bytes", e.has_largest_free, e.largest_free_bytes);
  j["kind"] = e.kind;
  j["why"] = e.why;
  j["advice"] = e.advice;
  return tool::JsonLine(j);
}

}  // namespace strata::fit
