// Control-core micro-benchmarks: CPI on branchy integer code, multiply and divide latency.
// Prints one JSON object per line on the console.
#include <stdint.h>

#include "arch/arch.h"
#include "drivers/console.h"

namespace {

using strata::arch::ReadCycle;
using strata::arch::ReadInstret;
using strata::console::Printf;

struct Sample {
  uint64_t cycles;
  uint64_t instret;
};

template <typename F>
Sample Measure(F&& body) {
  const uint64_t c0 = ReadCycle();
  const uint64_t i0 = ReadInstret();
  body();
  return {ReadCycle() - c0, ReadInstret() - i0};
}

void Report(const char* kernel, Sample s, uint32_t check) {
  // CPI with three decimals without floating point.
  const uint32_t milli = static_cast<uint32_t>(s.cycles * 1000 / (s.instret ? s.instret : 1));
  Printf(
      "{\"bench\":\"core_cpi\",\"kernel\":\"%s\",\"cycles\":%llu,\"instructions\":%llu,\"cpi\":%u.%03u,\"check\":%u}\n",
      kernel, static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.instret),
      static_cast<unsigned>(milli / 1000), static_cast<unsigned>(milli % 1000), static_cast<unsigned>(check));
}

uint32_t g_data[256];
volatile uint32_t g_sink;

uint32_t Collatz() {
  uint32_t total = 0;
  for (uint32_t n = 1; n <= 300; ++n) {
    uint32_t x = n;
    while (x != 1) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      ++total;
    }
  }
  return total;
}

uint32_t InsertionSort() {
  uint32_t seed = 12345;
  for (uint32_t& v : g_data) {
    seed = seed * 1103515245u + 12345u;
    v = seed >> 8;
  }
  for (uint32_t i = 1; i < 256; ++i) {
    const uint32_t key = g_data[i];
    uint32_t j = i;
    while (j > 0 && g_data[j - 1] > key) {
      g_data[j] = g_data[j - 1];
      --j;
    }
    g_data[j] = key;
  }
  uint32_t sorted = 1;
  for (uint32_t i = 1; i < 256; ++i) sorted &= g_data[i - 1] <= g_data[i];
  return sorted;
}

uint32_t BinarySearches() {
  uint32_t found = 0;
  for (uint32_t q = 0; q < 2000; ++q) {
    const uint32_t key = g_data[(q * 37) & 255];
    uint32_t lo = 0, hi = 256;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) >> 1;
      if (g_data[mid] < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    found += lo < 256 && g_data[lo] == key;
  }
  return found;
}

// Dependent chains: each op needs the previous result, so cycles per op is the latency.
uint32_t MulChain(uint32_t x) {
  asm volatile(".rept 64\n mul %0, %0, %0\n .endr" : "+r"(x));
  return x;
}
uint32_t DivChain(uint32_t x, uint32_t d) {
  asm volatile(".rept 32\n divu %0, %0, %1\n .endr" : "+r"(x) : "r"(d));
  return x;
}

}  // namespace

int main() {
  uint32_t check = 0;
  Sample s = Measure([&] { check = Collatz(); });
  Report("collatz", s, check);
  s = Measure([&] { check = InsertionSort(); });
  Report("insertion_sort", s, check);
  s = Measure([&] { check = BinarySearches(); });
  Report("binary_search", s, check);

  // Latency: subtract an empty measurement to remove the counter-read overhead.
  const Sample empty = Measure([] {});
  uint32_t x = 3;
  s = Measure([&] { x = MulChain(x); });
  g_sink = x;
  const uint64_t mul_milli = (s.cycles - empty.cycles) * 1000 / 64;
  s = Measure([&] { x = DivChain(0xffffffffu, 3); });
  g_sink = x;
  const uint64_t div_milli = (s.cycles - empty.cycles) * 1000 / 32;
  Printf("{\"bench\":\"core_latency\",\"op\":\"mul\",\"cycles_per_op\":%u.%03u}\n",
         static_cast<unsigned>(mul_milli / 1000), static_cast<unsigned>(mul_milli % 1000));
  Printf("{\"bench\":\"core_latency\",\"op\":\"divu\",\"cycles_per_op\":%u.%03u}\n",
         static_cast<unsigned>(div_milli / 1000), static_cast<unsigned>(div_milli % 1000));
  return 0;
}
