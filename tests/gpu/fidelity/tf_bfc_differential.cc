// fidelity.bfc.*: the emulated BFC policies (jax, jax-growth, tf, tf-growth) against TensorFlow's own
// compiled allocator. Each trace is replayed twice, event for event, over two identical emulated GPUs: once
// through the project's policy, once through tsl::BFCAllocator / tensorflow::GPUBFCAllocator from the
// tensorflow-cpu wheel (tsl_bfc_shim.cc) configured as JAX's GPU client and TensorFlow's GPU device configure
// them. After every event both must agree on success or failure, on the address returned, on pool_bytes and
// on bytes_in_use; the first OOM and the failure count are printed for both.
//
// usage: tf_bfc_differential --trace FILE [--capacity F]... [--page BYTES]...
//        tf_bfc_differential --retry-helper
// Exit status 0 when every case agrees, 1 otherwise (each disagreement on stderr), 2 on bad usage or input.
//
// The retry helper. Both frameworks leave allow_retry_on_failure on, so a failed allocation enters
// tsl::AllocatorRetry::AllocateRaw (xla/tsl/framework/allocator_retry.cc): one more pass, then a wait of up to
// kMaxMillisToWait = 10 s for another thread to free memory (bfc_allocator.cc AllocateRawInternalWithRetry),
// then a last pass: with one thread, four passes of AllocateRawInternal in all. Waiting 10 s per failure would
// make a replay take hours, so the replay makes the four passes itself through the allocator's one-pass
// branch; --retry-helper checks on one failure, through the real retry helper and its real 10 s wait, that
// the four passes are what the allocator does (the device sees four identical back-pedal sequences).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bfc_allocator.h"
#include "emu_gpu.h"
#include "policy.h"
#include "replay.h"
#include "tf_memory.h"
#include "tsl_bfc_shim.h"

namespace {

using strata::fidelity::RealBfc;
using strata::fidelity::RealStats;
namespace gpu = strata::gpu;
namespace replay = strata::replay;

constexpr uint64_t kMiB = 1ull << 20;
// Passes of AllocateRawInternal per allocation that keeps failing with one thread (see the file comment).
constexpr int kPassesPerFailure = 4;
// strata-compare's capacity granule (CapacityBytes in host/compare/compare.cc), so that "1.0x" here is the
// GPU total strata-compare --capacity 1.0x builds.
constexpr uint64_t kCapacityGranule = 4096;

struct Case {
  std::string policy;
  double capacity = 1.0;
  uint64_t page = 2 * kMiB;
};

struct Outcome {
  uint64_t allocs = 0, failed = 0;
  int64_t first_oom_event = -1;
  uint64_t peak_pool = 0, final_pool = 0;
  int64_t spun_at_event = -1;  // TensorFlow only: where its Extend would spin forever (the replay stops there)
  uint64_t spun_at_bytes = 0;
  bool emulation_failed_there = false;
};

std::string Mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / static_cast<double>(kMiB));
  return buf;
}

// The memory limit each framework gives its BFC, computed here from the frameworks' rules rather than taken
// from the policy under test. JAX: total x 0.75 (XLA_CLIENT_MEM_FRACTION's default) rounded up to 2 MiB
// (xla/pjrt/gpu/gpu_helpers.cc, as host/gpu/bfc_policies.cc cites it). TensorFlow: free minus MinSystemMemory
// (tensorflow/core/common_runtime/gpu/gpu_device.cc), the reserve ignored when it is not below free.
uint64_t FrameworkLimit(const std::string& policy, const gpu::EmuGpu& device) {
  if (policy == "jax" || policy == "jax-growth") {
    const auto bytes = static_cast<uint64_t>(static_cast<double>(device.total_bytes()) * 0.75);
    return (bytes + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
  }
  const uint64_t free = device.free_bytes();
  const uint64_t reserve = gpu::TfMinSystemMemory(free, device.cc_major());
  return reserve < free ? free - reserve : free;
}

std::unique_ptr<RealBfc> MakeReal(const std::string& policy, gpu::EmuGpu& device, uint64_t limit) {
  strata::fidelity::Device d;
  d.alloc = [&device](uint64_t bytes) { return device.Malloc(bytes); };
  d.free = [&device](uint64_t va) { device.Free(va); };
  if (policy == "jax") return strata::fidelity::MakeXlaBfc(d, limit, /*preallocate=*/true);
  if (policy == "jax-growth") return strata::fidelity::MakeXlaBfc(d, limit, /*preallocate=*/false);
  return strata::fidelity::MakeTfGpuBfc(d, limit, /*allow_growth=*/policy == "tf-growth");
}

// One case; false (with the first disagreement in *why) when the two allocators part ways.
bool RunCase(const replay::Trace& trace, const std::vector<replay::Event>& events, uint64_t max_load, const Case& c,
             Outcome* emu, Outcome* real, std::string* why) {
  gpu::GpuSpec spec;
  spec.total_bytes =
      static_cast<uint64_t>(c.capacity * static_cast<double>(max_load)) / kCapacityGranule * kCapacityGranule;
  spec.context_bytes = 0;  // strata-compare with a ratio capacity: the whole GPU is the trace's
  spec.page_bytes = c.page;
  gpu::EmuGpu emu_device(spec), real_device(spec);

  gpu::PolicyConfig config;
  config.env = nullptr;  // the defaults, whatever the environment says
  std::unique_ptr<gpu::Policy> policy;
  std::string error;
  if (!gpu::MakePolicy(c.policy, emu_device, config, &policy, &error)) {
    *why = "MakePolicy: " + error;
    return false;
  }
  const uint64_t limit = FrameworkLimit(c.policy, real_device);
  if (policy->Stats().bytes_limit != limit) {
    *why =
        "bytes_limit " + std::to_string(policy->Stats().bytes_limit) + " != the framework's " + std::to_string(limit);
    return false;
  }
  std::unique_ptr<RealBfc> bfc = MakeReal(c.policy, real_device, limit);

  std::vector<uint64_t> emu_ptr(trace.buffers.size(), 0), real_ptr(trace.buffers.size(), 0);
  for (size_t i = 0; i < events.size(); ++i) {
    const replay::Event& e = events[i];
    const replay::TraceBuffer& b = trace.buffers[e.buffer];
    auto at = [&] {
      return "event " + std::to_string(i) + " (" + (e.kind == 1 ? "alloc" : "free") + " buffer id " +
             std::to_string(b.id) + ", " + std::to_string(b.size) + " B): ";
    };
    if (e.kind == 1) {
      if (b.size == 0) continue;
      ++emu->allocs;
      ++real->allocs;
      gpu::Oom oom;
      emu_ptr[e.buffer] = policy->Allocate(b.size, 0, &oom);
      uint64_t p = 0;
      for (int pass = 0; pass < kPassesPerFailure && p == 0; ++pass) p = bfc->AllocateOnce(b.size);
      if (bfc->spun_at_bytes() != 0) {
        // TF 2.21 would hang here; newer tsl steps the size down by 256 B, as the emulation does.
        real->spun_at_event = static_cast<int64_t>(i);
        real->spun_at_bytes = bfc->spun_at_bytes();
        real->emulation_failed_there = emu_ptr[e.buffer] == 0;
        if (!real->emulation_failed_there) *why = at() + "TF 2.21 hangs, the emulation allocates";
        return real->emulation_failed_there;
      }
      real_ptr[e.buffer] = p;
      for (auto [o, ptr] : {std::pair{emu, emu_ptr[e.buffer]}, std::pair{real, real_ptr[e.buffer]}}) {
        if (ptr == 0) {
          ++o->failed;
          if (o->first_oom_event < 0) o->first_oom_event = static_cast<int64_t>(i);
        }
      }
      if (emu_ptr[e.buffer] != real_ptr[e.buffer]) {
        *why = at() + "emulation returned " + std::to_string(emu_ptr[e.buffer]) + ", TensorFlow's allocator " +
               std::to_string(real_ptr[e.buffer]);
        return false;
      }
    } else {
      if (emu_ptr[e.buffer] != 0) policy->Deallocate(emu_ptr[e.buffer]);
      if (real_ptr[e.buffer] != 0) bfc->Deallocate(real_ptr[e.buffer]);
      emu_ptr[e.buffer] = real_ptr[e.buffer] = 0;
    }
    const gpu::PolicyStats es = policy->Stats();
    const RealStats rs = bfc->Stats();
    if (es.pool_bytes != rs.pool_bytes || es.bytes_in_use != rs.bytes_in_use) {
      *why = at() + "pool_bytes " + std::to_string(es.pool_bytes) + " vs " + std::to_string(rs.pool_bytes) +
             ", bytes_in_use " + std::to_string(es.bytes_in_use) + " vs " + std::to_string(rs.bytes_in_use);
      return false;
    }
    emu->peak_pool = std::max(emu->peak_pool, es.pool_bytes);
    real->peak_pool = std::max(real->peak_pool, rs.pool_bytes);
    emu->final_pool = es.pool_bytes;
    real->final_pool = rs.pool_bytes;
  }
  if (policy->Stats().peak_pool_bytes != bfc->Stats().peak_pool_bytes) {
    *why = "peak_pool_bytes " + std::to_string(policy->Stats().peak_pool_bytes) + " vs " +
           std::to_string(bfc->Stats().peak_pool_bytes);
    return false;
  }
  return true;
}

// A GPU driver that is out of memory and records what it was asked for.
class NoMemory final : public gpu::GpuDriver {
 public:
  std::vector<uint64_t> asked;
  uint64_t page_bytes() const override { return 256; }
  uint64_t total_bytes() const override { return 1ull << 30; }
  uint64_t free_bytes() const override { return 0; }
  uint32_t cc_major() const override { return 9; }
  uint64_t Malloc(uint64_t bytes) override {
    asked.push_back(bytes);
    return 0;
  }
  bool Free(uint64_t) override { return false; }
  uint64_t ReserveVa(uint64_t) override { return 0; }
  bool Map(uint64_t, uint64_t) override { return false; }
  bool Unmap(uint64_t, uint64_t) override { return false; }
  bool Write(uint64_t, const void*, uint64_t) override { return false; }
  bool Read(uint64_t, void*, uint64_t) const override { return false; }
};

std::string Join(const std::vector<uint64_t>& v) {
  std::string out;
  for (uint64_t x : v) {
    if (!out.empty()) out += ' ';
    out += std::to_string(x);
  }
  return out;
}

// One request on a device with no memory left, through TensorFlow's allocator (retry helper included when
// `with_retry_helper`, else the replay's four one-pass calls) and through the emulation's BFC; the sizes each
// asked the device for.
void OneFailure(uint64_t limit, uint64_t request, bool with_retry_helper, std::vector<uint64_t>* real_asked,
                std::vector<uint64_t>* emu_asked, uint64_t* spun_at) {
  real_asked->clear();
  strata::fidelity::Device d;
  d.alloc = [real_asked](uint64_t bytes) {
    real_asked->push_back(bytes);
    return uint64_t{0};
  };
  d.free = [](uint64_t) {};
  std::unique_ptr<RealBfc> bfc = strata::fidelity::MakeTfGpuBfc(d, limit, /*allow_growth=*/true);
  if (with_retry_helper) {
    bfc->AllocateWithRetryHelper(request);
  } else {
    for (int pass = 0; pass < kPassesPerFailure && bfc->spun_at_bytes() == 0; ++pass) bfc->AllocateOnce(request);
  }
  *spun_at = bfc->spun_at_bytes();
  NoMemory driver;
  gpu::BfcOptions opts;
  opts.allow_growth = true;
  opts.garbage_collection = true;
  {
    gpu::BfcAllocator emu(driver, limit, "GPU_0_bfc", opts);
    emu.AllocateRaw(0, request);
  }
  *emu_asked = driver.asked;
}

// --retry-helper: what one failed allocation asks of the device, in TensorFlow's allocator and in the emulation.
int RetryHelper() {
  bool ok = true;
  // 1. The passes. A 64 KiB limit with growth: the first region asked for is min(limit, 2 MiB) = 64 KiB, and the
  // back-pedal walks down by x0.9 to the 16 KiB request. Through the real retry helper (it waits its 10 s).
  std::vector<uint64_t> real, emu;
  uint64_t spun = 0;
  OneFailure(64 << 10, 16 << 10, /*with_retry_helper=*/true, &real, &emu, &spun);
  const size_t per_pass = real.size() / kPassesPerFailure;
  bool passes = spun == 0 && per_pass > 0 && real.size() == per_pass * kPassesPerFailure;
  for (size_t i = 0; passes && i < real.size(); ++i) passes = real[i] == real[i % per_pass];
  std::printf("retry helper, one failure: TensorFlow asked the device %zu times (%s), the emulation %zu times\n",
              real.size(),
              passes ? (std::to_string(kPassesPerFailure) + " passes of [" +
                        Join({real.begin(), real.begin() + static_cast<long>(per_pass)}) + "]")
                           .c_str()
                     : Join(real).c_str(),
              emu.size());
  if (!passes || emu != real) {
    std::fprintf(stderr, "retry helper: expected %d identical passes, the emulation's requests equal to them\n",
                 kPassesPerFailure);
    ok = false;
  }
  // 2. Small sizes. A 2 KiB limit and a 256 B request: x0.9 rounded up to 256 B gives 2048 back. TF 2.21 asks
  // for 2048 B again and again (a hang); newer tsl steps down by 256 B to the request, as the emulation does.
  OneFailure(2048, 256, /*with_retry_helper=*/false, &real, &emu, &spun);
  const std::vector<uint64_t> step_down = {2048, 1792, 1536, 1280, 1024, 768, 512, 256};
  std::vector<uint64_t> four_step_downs;
  for (int pass = 0; pass < kPassesPerFailure; ++pass) {
    four_step_downs.insert(four_step_downs.end(), step_down.begin(), step_down.end());
  }
  std::printf("small sizes: TensorFlow asked [%s]%s; the emulation asked [%s]\n", Join(real).c_str(),
              spun != 0 ? (" and would go on asking for " + std::to_string(spun) + " B forever").c_str() : "",
              Join(emu).c_str());
  const bool tf_spins = spun == 2048 && real == std::vector<uint64_t>{2048, 2048};
  if (emu != four_step_downs || !(tf_spins || real == four_step_downs)) {
    std::fprintf(stderr, "small sizes: expected the emulation to step down by 256 B in each of %d passes\n",
                 kPassesPerFailure);
    ok = false;
  }
  return ok ? 0 : 1;
}

int Usage(const char* why) {
  std::fprintf(stderr,
               "tf_bfc_differential: %s\nusage: tf_bfc_differential --trace FILE [--capacity F]... [--page BYTES]...\n"
               "       tf_bfc_differential --retry-helper\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // GPUBFCAllocator's constructor reads these two itself; the policies under test are asked for their
  // defaults (config.env = nullptr), so the real allocator must not see a caller's settings either.
  unsetenv("TF_FORCE_GPU_ALLOW_GROWTH");
  unsetenv("TF_ENABLE_GPU_GARBAGE_COLLECTION");
  std::string trace_path;
  std::vector<double> capacities;
  std::vector<uint64_t> pages;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--retry-helper") return RetryHelper();
    if (i + 1 >= argc) return Usage(("missing value after " + a).c_str());
    const std::string v = argv[++i];
    char* end = nullptr;
    if (a == "--trace") {
      trace_path = v;
    } else if (a == "--capacity") {
      const double f = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(f > 0 && f <= 100)) return Usage(("bad --capacity " + v).c_str());
      capacities.push_back(f);
    } else if (a == "--page") {
      const unsigned long long p = std::strtoull(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || p < 256 || (p & (p - 1)) != 0) {
        return Usage(("bad --page " + v + " (a power of two >= 256)").c_str());
      }
      pages.push_back(p);
    } else {
      return Usage(("unknown argument " + a).c_str());
    }
  }
  if (trace_path.empty()) return Usage("no --trace");
  if (capacities.empty()) capacities = {1.0, 1.25, 1.5, 2.0};
  if (pages.empty()) pages = {2 * kMiB};

  replay::Trace trace;
  std::string error;
  if (!replay::LoadTrace(trace_path, &trace, &error)) {
    std::fprintf(stderr, "tf_bfc_differential: %s\n", error.c_str());
    return 2;
  }
  const std::vector<replay::Event> events = replay::BuildEvents(trace);
  const uint64_t max_load = replay::MaxLoad(trace, kCapacityGranule);

  int differ = 0, cases = 0, spun = 0;
  for (uint64_t page : pages) {
    for (double capacity : capacities) {
      for (const char* name : {"jax", "jax-growth", "tf", "tf-growth"}) {
        Case c{name, capacity, page};
        Outcome emu, real;
        std::string why;
        const bool agree = RunCase(trace, events, max_load, c, &emu, &real, &why);
        ++cases;
        std::string spin;
        if (real.spun_at_event >= 0) {
          ++spun;
          spin = "; TF 2.21 hangs at event " + std::to_string(real.spun_at_event) + " (Extend asks for " +
                 std::to_string(real.spun_at_bytes) + " B forever), where newer tsl and the emulation " +
                 (real.emulation_failed_there ? "fail the allocation" : "DO NOT fail");
        }
        std::printf(
            "%-14s %5.2fx page %-9s %-10s %s: allocs %llu, failed %llu, first OOM at event %lld, "
            "peak pool %s%s\n",
            trace.name.c_str(), capacity, Mib(page).c_str(), name, agree ? "agree " : "DIFFER",
            static_cast<unsigned long long>(real.allocs), static_cast<unsigned long long>(real.failed),
            static_cast<long long>(real.first_oom_event), Mib(real.peak_pool).c_str(), spin.c_str());
        if (!agree) {
          ++differ;
          std::fprintf(stderr,
                       "%s %.2fx page %s %s: %s (emulation so far: failed %llu, first OOM %lld; TensorFlow: failed "
                       "%llu, first OOM %lld)\n",
                       trace.name.c_str(), capacity, Mib(page).c_str(), name, why.c_str(),
                       static_cast<unsigned long long>(emu.failed), static_cast<long long>(emu.first_oom_event),
                       static_cast<unsigned long long>(real.failed), static_cast<long long>(real.first_oom_event));
        }
      }
    }
  }
  std::printf(
      "%s: %d of %d cases agree with TensorFlow's compiled BFC allocator (%d of them up to where TF 2.21 "
      "hangs)\n",
      trace.name.c_str(), cases - differ, cases, spun);
  return differ == 0 ? 0 : 1;
}
