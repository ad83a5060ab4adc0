// On-device self-test of the freestanding library: memcpy/memmove/memset/memcmp at every
// alignment and overlap, and the console formatter, checked against values computed by hand.
#include <stddef.h>
#include <stdint.h>

#include "drivers/console.h"
#include "lib/mem.h"

namespace {

using strata::console::Printf;
using strata::console::SNPrintf;

int g_failures = 0;

void Expect(bool ok, const char* what, uint32_t a, uint32_t b) {
  if (!ok) {
    ++g_failures;
    Printf("FAIL %s (%u, %u)\n", what, static_cast<unsigned>(a), static_cast<unsigned>(b));
  }
}

bool StrEq(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

void ExpectStr(const char* got, const char* want) {
  if (!StrEq(got, want)) {
    ++g_failures;
    Printf("FAIL format: got \"%s\" want \"%s\"\n", got, want);
  }
}

uint8_t g_buf[96];
uint8_t g_ref[96];

void Fill() {
  for (uint32_t i = 0; i < sizeof g_buf; ++i) g_buf[i] = g_ref[i] = static_cast<uint8_t>(i * 7 + 1);
}

// Reference move, byte by byte through a temporary: obviously correct for any overlap.
void RefMove(uint32_t dst, uint32_t src, uint32_t n) {
  uint8_t tmp[96];
  for (uint32_t i = 0; i < n; ++i) tmp[i] = g_ref[src + i];
  for (uint32_t i = 0; i < n; ++i) g_ref[dst + i] = tmp[i];
}

void TestMemmove() {
  for (uint32_t src = 0; src < 8; ++src) {
    for (uint32_t dst = 0; dst < 8; ++dst) {
      for (uint32_t n = 0; n < 40; n += 3) {
        // Overlapping in both directions (dst just above and just below src) and disjoint.
        const uint32_t cases[3][2] = {{src + 16, dst + 16 + 5}, {src + 21, dst + 16}, {src, dst + 50}};
        for (const auto& c : cases) {
          Fill();
          memmove(g_buf + c[1], g_buf + c[0], n);
          RefMove(c[1], c[0], n);
          Expect(memcmp(g_buf, g_ref, sizeof g_buf) == 0, "memmove", c[0] * 100 + c[1], n);
        }
        Fill();
        memcpy(g_buf + dst + 50, g_buf + src, n);
        RefMove(dst + 50, src, n);
        Expect(memcmp(g_buf, g_ref, sizeof g_buf) == 0, "memcpy", src * 100 + dst, n);
        Fill();
        memset(g_buf + dst, 0xa5, n);
        for (uint32_t i = 0; i < n; ++i) g_ref[dst + i] = 0xa5;
        Expect(memcmp(g_buf, g_ref, sizeof g_buf) == 0, "memset", dst, n);
      }
    }
  }
  uint8_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 9, 0};
  Expect(memcmp(a, b, 4) < 0 && memcmp(b, a, 4) > 0 && memcmp(a, b, 2) == 0, "memcmp", 0, 0);
}

void TestFormat() {
  char buf[64];
  SNPrintf(buf, sizeof buf, "%d %i %u", -42, 7, 4000000000u);
  ExpectStr(buf, "-42 7 4000000000");
  SNPrintf(buf, sizeof buf, "%x %X %08x %5d|%-4s|%-5d|%-03u|", 0xbeefu, 0xbeefu, 0x12u, 42, "s", -7, 5u);
  ExpectStr(buf, "beef BEEF 00000012    42|s   |-7   |5  |");
  SNPrintf(buf, sizeof buf, "%lld %llu %llx", -9000000000ll, 18446744073709551615ull, 0x123456789abcull);
  ExpectStr(buf, "-9000000000 18446744073709551615 123456789abc");
  SNPrintf(buf, sizeof buf, "%c%s%% %05d", 'x', "yz", -12);
  ExpectStr(buf, "xyz% -0012");
  SNPrintf(buf, sizeof buf, "%s", static_cast<const char*>(nullptr));
  ExpectStr(buf, "(null)");
  // Truncation: always terminated, returns the length it wanted.
  const int want = SNPrintf(buf, 6, "%s", "abcdefghij");
  ExpectStr(buf, "abcde");
  Expect(want == 10, "snprintf length", static_cast<uint32_t>(want), 10);
  SNPrintf(buf, sizeof buf, "%d", -2147483647 - 1);
  ExpectStr(buf, "-2147483648");
}

}  // namespace

int main() {
  TestMemmove();
  TestFormat();
  Printf("libtest: %d failures\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
