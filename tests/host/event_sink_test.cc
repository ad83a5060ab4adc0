// Event sinks on the sim backend (strata.h, "Events"): a sink sees every command, copy, GEMM and compaction
// with consistent timing, and listening changes nothing: the same run takes the same device cycles with and
// without a sink. On gpu-emu, the "device" track tells what each policy holds from the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "named_values.h"
#include "strata/strata.h"

namespace {

struct Recorded {
  std::vector<strata_event> events;
  std::map<std::string, int64_t> bytes;  // track/name -> sum of values
  static void Record(void* user, const strata_event* e) {
    auto* r = static_cast<Recorded*>(user);
    r->events.push_back(*e);
    r->bytes[std::string(e->track) + "/" + e->name] += e->value;
  }
  size_t Count(const char* track, const char* name = nullptr) const {
    size_t n = 0;
    for (const strata_event& e : events) {
      n += std::strcmp(e.track, track) == 0 && (name == nullptr || std::strcmp(e.name, name) == 0);
    }
    return n;
  }
};

// The GEMM's shape for a seed (a spread of odd sizes on the 16 x 16 array).
uint32_t GemmM(uint32_t seed) { return 16 + seed % 40; }
uint32_t GemmN(uint32_t seed) { return 16 + seed % 24; }
uint32_t GemmK(uint32_t seed) { return 32 + seed % 50; }

// The same work on a fresh device: alloc, write, read, a GEMM, a hole and a compaction, frees. Returns the
// device cycles at the end; `written` and `read` count the bytes written and read, and `gemm_cycles` is
// strata_device_info.last_command_cycles read right after the GEMM (the firmware's cycles on it).
uint64_t RunWorkload(Recorded* sink, uint32_t seed, uint64_t* written, uint64_t* read, uint64_t* gemm_cycles) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8ull << 20;
  strata_device* d = nullptr;
  EXPECT_EQ(strata_open("sim", &o, &d), STRATA_OK) << strata_last_error_message();
  if (d == nullptr) return 0;
  if (sink != nullptr) {
    EXPECT_EQ(strata_set_event_sink(d, &Recorded::Record, sink), STRATA_OK);
  }
  strata_context c = 0;
  EXPECT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  const uint32_t m = GemmM(seed), n = GemmN(seed), k = GemmK(seed);
  std::vector<int8_t> a(uint64_t{m} * k), b(uint64_t{k} * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>(i * 7 + seed);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(i * 3 - seed);
  strata_buffer ba = 0, bb = 0, bc = 0, hole = 0;
  EXPECT_EQ(strata_alloc(d, c, a.size(), 0, 0, &ba), STRATA_OK);
  EXPECT_EQ(strata_alloc(d, c, 300 * 1024 + seed, 0, 0, &hole), STRATA_OK);
  EXPECT_EQ(strata_alloc(d, c, b.size(), 0, 0, &bb), STRATA_OK);
  EXPECT_EQ(strata_alloc(d, c, uint64_t{m} * n * 4, 0, 0, &bc), STRATA_OK);
  std::vector<uint8_t> big(300 * 1024 + seed, static_cast<uint8_t>(seed));
  EXPECT_EQ(strata_write(d, c, hole, 0, big.data(), big.size()), STRATA_OK);
  EXPECT_EQ(strata_write(d, c, ba, 0, a.data(), a.size()), STRATA_OK);
  EXPECT_EQ(strata_write(d, c, bb, 0, b.data(), b.size()), STRATA_OK);
  *written = big.size() + a.size() + b.size();
  const strata_gemm_args g{sizeof g, ba, bb, bc, m, n, k, 0, 0, 0, STRATA_DTYPE_INT8};
  EXPECT_EQ(strata_gemm(d, c, &g), STRATA_OK) << strata_last_error_message();
  {
    strata_device_info after_gemm{};
    after_gemm.struct_size = sizeof after_gemm;
    EXPECT_EQ(strata_get_device_info(d, &after_gemm), STRATA_OK);
    *gemm_cycles = after_gemm.last_command_cycles;
  }
  std::vector<int32_t> out(uint64_t{m} * n);
  EXPECT_EQ(strata_read(d, c, bc, 0, out.data(), out.size() * 4), STRATA_OK);
  *read = out.size() * 4;
  EXPECT_EQ(strata_free(d, c, hole), STRATA_OK);
  strata_compact_options co{sizeof co, 0, 0};
  strata_compact_result cr{};
  cr.struct_size = sizeof cr;
  EXPECT_EQ(strata_compact(d, c, &co, &cr), STRATA_OK);
  EXPECT_GT(cr.bytes_moved, 0u);
  EXPECT_EQ(strata_synchronize(d), STRATA_OK);
  strata_device_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(strata_get_device_info(d, &info), STRATA_OK);
  if (sink != nullptr) {
    EXPECT_EQ(sink->bytes["compaction/compact"], static_cast<int64_t>(cr.bytes_moved));
    // On the device, every byte written or read went HBM -> HBM once between its staging slot and its
    // buffer, and compaction moved its bytes HBM -> HBM: the DMA bridge saw exactly those copies.
    EXPECT_EQ(sink->bytes["dma/hbm_copy"], static_cast<int64_t>(*written + *read + cr.bytes_moved));
    EXPECT_GT(sink->bytes["dma/hbm_read"], 0);   // the GEMM's operands into the chip
    EXPECT_GT(sink->bytes["dma/hbm_write"], 0);  // and C back out
  }
  strata_close(d);
  return info.device_cycles;
}

TEST(EventSink, ListeningChangesNoCycleAndSeesEveryCommandAndCopy) {
  for (const uint32_t seed : {1u, 7u, 23u}) {
    uint64_t written = 0, read = 0, quiet_gemm_cycles = 0, gemm_cycles = 0;
    const uint64_t quiet = RunWorkload(nullptr, seed, &written, &read, &quiet_gemm_cycles);
    Recorded r;
    const uint64_t listened = RunWorkload(&r, seed, &written, &read, &gemm_cycles);
    EXPECT_EQ(quiet, listened) << "seed " << seed;
    EXPECT_EQ(quiet_gemm_cycles, gemm_cycles) << "seed " << seed;
    // Commands: 1 context + 4 allocs + 3 writes + 1 gemm + 1 read + 1 free + 1 compact + the syncs' no-ops and
    // the stats reads; each has a span on "command" and its firmware time on "firmware" or "mxu" (the backend
    // emits the pair together, so this count only guards that pairing; the timing is checked below).
    EXPECT_EQ(r.Count("command", "alloc"), 4u);
    EXPECT_EQ(r.Count("command", "gemm"), 1u);
    EXPECT_EQ(r.Count("mxu", "gemm"), 1u);
    EXPECT_EQ(r.Count("command", "free"), 1u);
    EXPECT_EQ(r.Count("command"), r.Count("firmware") + r.Count("mxu"));
    // Every byte written and read crossed the host link once.
    EXPECT_EQ(r.bytes["pcie/to_device"], static_cast<int64_t>(written)) << "seed " << seed;
    EXPECT_EQ(r.bytes["pcie/from_device"], static_cast<int64_t>(read)) << "seed " << seed;
    EXPECT_EQ(r.Count("compaction", "compact"), 1u);
    // The heap: the extent once, then where each allocation went and each free (instants with addresses).
    EXPECT_EQ(r.Count("heap", "extent"), 1u);
    EXPECT_EQ(r.Count("heap", "alloc"), 4u);
    EXPECT_EQ(r.Count("heap", "free"), 1u);
    uint64_t extent = 0;
    std::vector<std::pair<uint64_t, uint64_t>> placed;  // [address, end) of each allocation
    for (const strata_event& e : r.events) {
      if (std::strcmp(e.track, "heap") != 0) continue;
      EXPECT_EQ(e.kind, STRATA_EVENT_INSTANT) << e.name;
      EXPECT_EQ(e.begin_cycle, e.end_cycle) << e.name;
      if (std::strcmp(e.name, "extent") == 0) extent = static_cast<uint64_t>(e.value);
      if (std::strcmp(e.name, "alloc") == 0) {
        EXPECT_EQ(e.flags & STRATA_EVENT_FLAG_ADDRESS, STRATA_EVENT_FLAG_ADDRESS);
        EXPECT_NE(e.id, 0u);
        placed.push_back({e.address, e.address + static_cast<uint64_t>(e.value)});
      }
    }
    // Allocated before any free: inside the heap and apart from each other.
    std::sort(placed.begin(), placed.end());
    for (size_t i = 0; i < placed.size(); ++i) {
      EXPECT_LE(placed[i].second, extent) << "seed " << seed;
      if (i > 0) {
        EXPECT_LE(placed[i - 1].second, placed[i].first) << "seed " << seed;
      }
    }
    for (const strata_event& e : r.events) {
      EXPECT_EQ(e.struct_size, sizeof(strata_event));
      if (std::strcmp(e.track, "heap") == 0) continue;
      EXPECT_EQ(e.kind, STRATA_EVENT_SPAN);
      EXPECT_LE(e.begin_cycle, e.end_cycle) << e.track << "/" << e.name;
      EXPECT_LE(e.end_cycle, listened) << e.track << "/" << e.name;
      if (std::strcmp(e.track, "command") == 0) {
        EXPECT_EQ(e.value, STRATA_OK) << e.name;
      }
    }
    // The firmware's time on the GEMM lies inside its command's span and ends with it (both end when the host
    // saw the completion), and its length is what the device reported for that command.
    const strata_event* cmd = nullptr;
    const strata_event* mxu = nullptr;
    for (const strata_event& e : r.events) {
      if (std::strcmp(e.name, "gemm") == 0) (std::strcmp(e.track, "mxu") == 0 ? mxu : cmd) = &e;
    }
    ASSERT_NE(cmd, nullptr);
    ASSERT_NE(mxu, nullptr);
    EXPECT_EQ(cmd->id, mxu->id);
    EXPECT_GE(mxu->begin_cycle, cmd->begin_cycle);
    EXPECT_EQ(mxu->end_cycle, cmd->end_cycle);
    EXPECT_GT(mxu->end_cycle - mxu->begin_cycle, 100u);
    EXPECT_EQ(mxu->end_cycle - mxu->begin_cycle, gemm_cycles) << "seed " << seed;
    // The matrix unit is busy only inside the GEMM's command, and at least for its MACs at full rate.
    uint64_t busy = 0;
    for (const strata_event& e : r.events) {
      if (std::strcmp(e.track, "matrix unit") != 0) continue;
      EXPECT_GE(e.begin_cycle, cmd->begin_cycle) << "seed " << seed;
      EXPECT_LE(e.end_cycle, cmd->end_cycle) << "seed " << seed;
      busy += e.end_cycle - e.begin_cycle;
    }
    EXPECT_GE(busy, uint64_t{GemmM(seed)} * GemmN(seed) * GemmK(seed) / (16 * 16)) << "seed " << seed;
    // The compaction's span is its command's: the same cycles and sequence number.
    const strata_event* compact_cmd = nullptr;
    const strata_event* compaction = nullptr;
    for (const strata_event& e : r.events) {
      if (std::strcmp(e.name, "compact") != 0) continue;
      if (std::strcmp(e.track, "command") == 0) compact_cmd = &e;
      if (std::strcmp(e.track, "compaction") == 0) compaction = &e;
    }
    ASSERT_NE(compact_cmd, nullptr);
    ASSERT_NE(compaction, nullptr);
    EXPECT_EQ(compaction->begin_cycle, compact_cmd->begin_cycle);
    EXPECT_EQ(compaction->end_cycle, compact_cmd->end_cycle);
    EXPECT_EQ(compaction->id, compact_cmd->id);
  }
}

// A context destroyed with buffers still live frees them: each leaves the heap track with a "free" of its own
// id, on the model and on a GPU backend, and only the destroyed context's buffers do.
TEST(EventSink, DestroyingAContextFreesItsBuffersOnTheHeapTrack) {
  for (const char* backend : {"sim", "gpu-emu"}) {
    strata_open_options o{};
    o.struct_size = sizeof o;
    if (std::strcmp(backend, "sim") == 0) o.hbm_capacity_bytes = 8ull << 20;
    strata_device* d = nullptr;
    ASSERT_EQ(strata_open(backend, &o, &d), STRATA_OK) << strata_last_error_message();
    Recorded r;
    ASSERT_EQ(strata_set_event_sink(d, &Recorded::Record, &r), STRATA_OK);
    strata_context doomed = 0, kept = 0;
    ASSERT_EQ(strata_context_create(d, nullptr, &doomed), STRATA_OK);
    ASSERT_EQ(strata_context_create(d, nullptr, &kept), STRATA_OK);
    strata_buffer b = 0;
    for (int i = 0; i < 3; ++i) ASSERT_EQ(strata_alloc(d, doomed, 4096 * (i + 1), 0, 0, &b), STRATA_OK);
    ASSERT_EQ(strata_alloc(d, kept, 4096, 0, 0, &b), STRATA_OK);
    std::vector<uint64_t> allocated;
    for (const strata_event& e : r.events) {
      if (std::strcmp(e.track, "heap") == 0 && std::strcmp(e.name, "alloc") == 0) allocated.push_back(e.id);
    }
    ASSERT_EQ(allocated.size(), 4u) << backend;
    const size_t before = r.events.size();
    ASSERT_EQ(strata_context_destroy(d, doomed), STRATA_OK);
    std::vector<uint64_t> freed;
    for (size_t i = before; i < r.events.size(); ++i) {
      const strata_event& e = r.events[i];
      if (std::strcmp(e.track, "heap") == 0 && std::strcmp(e.name, "free") == 0) freed.push_back(e.id);
    }
    std::sort(freed.begin(), freed.end());
    std::vector<uint64_t> doomed_ids(allocated.begin(), allocated.begin() + 3);
    std::sort(doomed_ids.begin(), doomed_ids.end());
    EXPECT_EQ(freed, doomed_ids) << backend;
    strata_close(d);
  }
}

// gpu-emu's "device" track (strata-compare --memory-viz's segments), for a policy of each kind: cudaMalloc'd regions
// (torch, jax, tf-growth) and mapped pages (torch-expandable, jax-async). Set after the context is made, the sink first
// hears of what the policy already holds (JAX preallocates). Through a seeded run of allocations and frees: the bytes
// the events say are held are the policy's own pool_bytes after every call, every buffer lies inside what is held when
// it is allocated, and (cudaMalloc policies) the events count the driver's device allocations and frees.
TEST(EventSink, GpuEmuDeviceTrackTellsWhatThePolicyHolds) {
  using strata::test_values::Int;
  using strata::test_values::Str;
  for (const char* policy : {"torch", "torch-expandable", "jax", "jax-async", "tf-growth"}) {
    SCOPED_TRACE(policy);
    const std::vector<strata_named_value> named = {Str("policy", policy), Int("total_bytes", int64_t{1} << 30),
                                                   Int("context_bytes", 0)};
    strata_open_options o{};
    o.struct_size = sizeof o;
    o.named_options = named.data();
    o.num_named_options = static_cast<uint32_t>(named.size());
    strata_device* d = nullptr;
    ASSERT_EQ(strata_open("gpu-emu", &o, &d), STRATA_OK) << strata_last_error_message();
    strata_context c = 0;
    ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
    Recorded r;
    ASSERT_EQ(strata_set_event_sink(d, &Recorded::Record, &r), STRATA_OK);
    std::map<uint64_t, uint64_t> held;  // address -> bytes, as the events tell it
    size_t seen = 0, mallocs = 0, frees = 0;
    // Reads the events since the last call; false at one that breaks the books.
    auto follow = [&]() -> bool {
      for (; seen < r.events.size(); ++seen) {
        const strata_event& e = r.events[seen];
        const uint64_t a = e.address, n = static_cast<uint64_t>(e.value);
        if (std::strcmp(e.track, "device") == 0) {
          if ((e.flags & STRATA_EVENT_FLAG_ADDRESS) == 0 || e.value <= 0) return false;
          if (std::strcmp(e.name, "malloc") == 0 || std::strcmp(e.name, "map") == 0) {
            mallocs += std::strcmp(e.name, "malloc") == 0;
            // Kept as maximal runs (an unmap may span the pages of several maps), new ones overlapping none.
            uint64_t lo = a, hi = a + n;
            auto next = held.lower_bound(a);
            if (next != held.end() && next->first < hi) return false;
            if (next != held.end() && next->first == hi) hi += next->second, next = held.erase(next);
            if (next != held.begin() && std::prev(next)->first + std::prev(next)->second > lo) return false;
            if (next != held.begin() && std::prev(next)->first + std::prev(next)->second == lo) {
              lo = std::prev(next)->first;
              held.erase(std::prev(next));
            }
            held[lo] = hi - lo;
          } else {
            frees += std::strcmp(e.name, "free") == 0;
            auto it = std::prev(held.upper_bound(a));
            if (held.empty() || it->first > a || it->first + it->second < a + n) return false;
            const uint64_t lo = it->first, hi = it->first + it->second;
            held.erase(it);
            if (lo < a) held[lo] = a - lo;
            if (a + n < hi) held[a + n] = hi - (a + n);
          }
        } else if (std::strcmp(e.track, "heap") == 0 && std::strcmp(e.name, "alloc") == 0) {
          // Inside what is held.
          uint64_t at = a;
          while (at < a + n) {
            auto it = held.upper_bound(at);
            if (it == held.begin()) return false;
            --it;
            if (it->first + it->second <= at) return false;
            at = it->first + it->second;
          }
        }
      }
      return true;
    };
    auto pool = [&]() {
      strata_memory_stats s{};
      s.struct_size = sizeof s;
      EXPECT_EQ(strata_get_memory_stats(d, 0, &s), STRATA_OK);
      return s;
    };
    auto held_bytes = [&]() {
      uint64_t sum = 0;
      for (const auto& [a, n] : held) sum += n;
      return sum;
    };
    ASSERT_TRUE(follow());
    EXPECT_EQ(held_bytes(), pool().pool_bytes);
    std::vector<strata_buffer> live;
    uint32_t seed = 12345;
    for (int i = 0; i < 300; ++i) {
      seed = seed * 1103515245u + 12345u;
      if (live.size() > 4 && (seed >> 16) % 3 == 0) {
        const size_t k = (seed >> 8) % live.size();
        ASSERT_EQ(strata_free(d, c, live[k]), STRATA_OK);
        live.erase(live.begin() + static_cast<long>(k));
      } else {
        const uint64_t bytes = 1 + (uint64_t{seed >> 4} % (24u << 20));  // up to 24 MiB, odd sizes
        strata_buffer b = 0;
        const strata_status st = strata_alloc(d, c, bytes, 0, 0, &b);
        ASSERT_TRUE(st == STRATA_OK || st == STRATA_RESOURCE_EXHAUSTED) << strata_last_error_message();
        if (st == STRATA_OK) live.push_back(b);
      }
      ASSERT_TRUE(follow()) << "event " << seen << " of call " << i << ": " << r.events[seen].track << " "
                            << r.events[seen].name << " " << r.events[seen].address << " " << r.events[seen].value;
      ASSERT_EQ(held_bytes(), pool().pool_bytes) << "after call " << i;
    }
    const strata_memory_stats s = pool();
    if (r.Count("device", "map") == 0) {
      EXPECT_EQ(mallocs, s.device_allocs);
      EXPECT_EQ(frees, s.device_frees);
    }
    EXPECT_GT(r.Count("device"), 0u);
    ASSERT_EQ(strata_set_event_sink(d, nullptr, nullptr), STRATA_OK);
    strata_close(d);
  }
}

TEST(EventSink, RemovingTheSinkStopsEvents) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8ull << 20;
  strata_device* d = nullptr;
  ASSERT_EQ(strata_open("sim", &o, &d), STRATA_OK) << strata_last_error_message();
  Recorded r;
  ASSERT_EQ(strata_set_event_sink(d, &Recorded::Record, &r), STRATA_OK);
  strata_context c = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  const size_t seen = r.events.size();
  EXPECT_GE(seen, 2u);
  ASSERT_EQ(strata_set_event_sink(d, nullptr, nullptr), STRATA_OK);
  strata_buffer b = 0;
  ASSERT_EQ(strata_alloc(d, c, 4096, 0, 0, &b), STRATA_OK);
  EXPECT_EQ(r.events.size(), seen);
  strata_close(d);
}

}  // namespace
