// Compute-bound firmware loop for measuring simulator speed; runs until --max-cycles stops it.
#include <stdint.h>

namespace {
uint32_t g_buf[64];
}

int main() {
  uint32_t acc = 1;
  for (uint32_t i = 0;; ++i) {
    acc = acc * 1664525u + 1013904223u;
    g_buf[i & 63] ^= acc;
    if (acc & 0x100) acc += g_buf[(i + 7) & 63];
  }
}
