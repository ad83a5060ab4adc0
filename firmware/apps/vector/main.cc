// Vector firmware: runs one vector-unit op described by strata_vector_mailbox over a tensor in HBM and reports
// cycles and counters back through the mailbox.
#include <stdint.h>

#include "drivers/console.h"
#include "drivers/dma.h"
#include "drivers/vpu.h"
#include "kernels/vector.h"
#include "strata/vector_mailbox.h"

extern "C" {
// In .data so the image carries it and strata-sim can patch it before loading.
__attribute__((used, section(".data"))) volatile StrataVectorMailbox strata_vector_mailbox = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffffu, 0, 0, 0, 0, 0, 0, 0, 0};
}

int main() {
  using strata::console::Printf;
  volatile StrataVectorMailbox& mb = strata_vector_mailbox;
  strata::dma::Init();
  if (mb.magic != STRATA_VECTOR_MAILBOX_MAGIC || mb.version != STRATA_VECTOR_MAILBOX_VERSION) {
    Printf("vector: no request in the mailbox (magic 0x%08x)\n", static_cast<unsigned>(mb.magic));
    mb.status = STRATA_FAILED_PRECONDITION;
    return 1;
  }
  strata_status s = strata::vpu::Init();
  if (s != STRATA_OK) {
    Printf("vector: no vector unit in this chip\n");
    mb.status = s;
    return 1;
  }
  strata::kernels::VectorParams p;
  p.op = mb.op;
  p.bcast = mb.bcast;
  p.rows = mb.rows;
  p.chunks = mb.chunks;
  p.a = mb.a;
  p.b = mb.b;
  p.m = mb.m;
  p.out = mb.out;
  strata::kernels::VectorStats stats;
  const uint32_t rows0 = strata::vpu::RowsDone();
  const uint32_t busy0 = strata::vpu::BusyCycles();
  const uint32_t stall0 = strata::vpu::StallCycles();
  s = strata::kernels::Vector(p, &stats);
  mb.cycles = stats.cycles;
  mb.tile_rows = stats.tile_rows;
  mb.vpu_commands = stats.vpu_commands;
  mb.dma_descriptors = stats.dma_descriptors;
  mb.vpu_rows = strata::vpu::RowsDone() - rows0;
  mb.vpu_busy_cycles = strata::vpu::BusyCycles() - busy0;
  mb.vpu_stall_cycles = strata::vpu::StallCycles() - stall0;
  mb.status = s;
  if (s != STRATA_OK) {
    Printf("vector: %s\n", strata_status_name(s));
    return 1;
  }
  return 0;
}
