// The register-level chip model for host tests (host_device.h).
#include "host_device.h"

#include <string.h>

#include <algorithm>
#include <iterator>

namespace strata::host_model {
namespace {

uint32_t Field(uint32_t reg, uint32_t mask, uint32_t lsb) { return (reg & mask) >> lsb; }

// The DMA queues' and the matrix unit's STATUS words share one layout: BUSY, PENDING (saturating), LAST_ERR.
static_assert(STRATA_DMA_STATUS_BUSY_MASK == STRATA_MXU_STATUS_BUSY_MASK &&
                  STRATA_DMA_STATUS_PENDING_MASK == STRATA_MXU_STATUS_PENDING_MASK &&
                  STRATA_DMA_STATUS_PENDING_LSB == STRATA_MXU_STATUS_PENDING_LSB &&
                  STRATA_DMA_STATUS_LAST_ERR_LSB == STRATA_MXU_STATUS_LAST_ERR_LSB &&
                  STRATA_DMA_STATUS_BUSY_MASK == STRATA_VPU_STATUS_BUSY_MASK &&
                  STRATA_DMA_STATUS_PENDING_MASK == STRATA_VPU_STATUS_PENDING_MASK &&
                  STRATA_DMA_STATUS_PENDING_LSB == STRATA_VPU_STATUS_PENDING_LSB &&
                  STRATA_DMA_STATUS_LAST_ERR_LSB == STRATA_VPU_STATUS_LAST_ERR_LSB,
              "one Counters::Read for the three blocks");

}  // namespace

bool HostDevice::Counters::Read(uint32_t offset, const Offsets& at, size_t queued, uint32_t* value) const {
  if (offset == at.status) {
    const uint32_t pending = std::min<uint32_t>(static_cast<uint32_t>(queued),
                                                STRATA_DMA_STATUS_PENDING_MASK >> STRATA_DMA_STATUS_PENDING_LSB);
    *value = (queued == 0 ? 0 : STRATA_DMA_STATUS_BUSY_MASK) | pending << STRATA_DMA_STATUS_PENDING_LSB |
             last_err << STRATA_DMA_STATUS_LAST_ERR_LSB;
  } else if (offset == at.done) {
    *value = done;
  } else if (offset == at.errors) {
    *value = errors;
  } else {
    return false;
  }
  return true;
}

HostDevice::HostDevice() : HostDevice(Options{}) {}

HostDevice::HostDevice(const Options& options) { Reset(options); }

void HostDevice::Reset(const Options& options) {
  hbm_.assign(options.hbm_bytes, 0);
  mxu_n_ = options.mxu_n;
  console_.clear();
  irq_pending_ = irq_enable_ = doorbell_ = 0;
  for (DmaQueue& q : dma_) {
    q = DmaQueue{};
    q.staged[STRATA_DMA_ROWS / 4] = STRATA_DMA_ROWS_RESET;
  }
  mxu_ = Mxu{};
  mxu_.staged[STRATA_MXU_ROWS / 4] = STRATA_MXU_ROWS_RESET;
  mxu_.staged[STRATA_MXU_QUANT_MULT / 4] = STRATA_MXU_QUANT_MULT_RESET;
  vpu_ = Vpu{};
  vpu_.staged[STRATA_VPU_ROWS / 4] = STRATA_VPU_ROWS_RESET;
  vpu_.staged[STRATA_VPU_SRC_STRIDE / 4] = STRATA_VPU_SRC_STRIDE_RESET;
  vpu_.staged[STRATA_VPU_DST_STRIDE / 4] = STRATA_VPU_DST_STRIDE_RESET;
}

void HostDevice::RingDoorbell(uint32_t value) {
  doorbell_ = value;
  irq_pending_ |= STRATA_IRQ_DOORBELL;
}

uint32_t HostDevice::Read32(uintptr_t address) {
  if (address >= STRATA_CTRL_BASE && address < STRATA_CTRL_BASE + STRATA_CTRL_SIZE) {
    switch (address - STRATA_CTRL_BASE) {
      case STRATA_CTRL_ID:
        return STRATA_CTRL_ID_RESET;
      case STRATA_CTRL_VERSION:
        return STRATA_CTRL_VERSION_RESET;
      case STRATA_CTRL_SMEM_SIZE:
        return STRATA_SMEM_SIZE;
      case STRATA_CTRL_IRQ_PENDING:
        return irq_pending_;
      case STRATA_CTRL_IRQ_ENABLE:
        return irq_enable_;
      case STRATA_CTRL_DOORBELL:
        return doorbell_;
      default:
        return 0;
    }
  }
  uint32_t value = 0;
  if (address >= STRATA_DMA_BASE && address < STRATA_DMA_BASE + STRATA_DMA_COUNT * STRATA_DMA_STRIDE) {
    const uint32_t q = static_cast<uint32_t>(address - STRATA_DMA_BASE) / STRATA_DMA_STRIDE;
    const uint32_t offset = static_cast<uint32_t>(address - STRATA_DMA_BASE) % STRATA_DMA_STRIDE;
    const DmaQueue& dq = dma_[q];
    if (dq.Read(offset, {STRATA_DMA_STATUS, STRATA_DMA_DONE, STRATA_DMA_ERRORS}, dq.queue.size(), &value)) return value;
    return offset == STRATA_DMA_PUSH ? 0 : dq.staged[offset / 4];
  }
  if (address >= STRATA_MXU_BASE && address < STRATA_MXU_BASE + STRATA_MXU_SIZE) {
    const uint32_t offset = static_cast<uint32_t>(address - STRATA_MXU_BASE);
    if (mxu_.Read(offset, {STRATA_MXU_STATUS, STRATA_MXU_DONE, STRATA_MXU_ERRORS}, mxu_.queue.size(), &value)) {
      return value;
    }
    switch (offset) {
      case STRATA_MXU_CONFIG:
        return mxu_n_ << STRATA_MXU_CONFIG_N_LSB;
      case STRATA_MXU_ROWS_STREAMED:
        return mxu_.rows_streamed;
      case STRATA_MXU_STARVED_CYCLES:
      case STRATA_MXU_PUSH:
        return 0;
      default:
        return mxu_.staged[offset / 4];
    }
  }
  if (address >= STRATA_VPU_BASE && address < STRATA_VPU_BASE + STRATA_VPU_SIZE) {
    const uint32_t offset = static_cast<uint32_t>(address - STRATA_VPU_BASE);
    if (vpu_.Read(offset, {STRATA_VPU_STATUS, STRATA_VPU_DONE, STRATA_VPU_ERRORS}, vpu_.queue.size(), &value)) {
      return value;
    }
    switch (offset) {
      case STRATA_VPU_CONFIG:
        return uint32_t{STRATA_DMA_LINE_BYTES / 4} << STRATA_VPU_CONFIG_LANES_LSB;
      case STRATA_VPU_ROWS_DONE:
        return vpu_.rows_done;
      case STRATA_VPU_BUSY_CYCLES:
      case STRATA_VPU_STALL_CYCLES:
      case STRATA_VPU_PUSH:
        return 0;
      default:
        return offset <= STRATA_VPU_DST_STRIDE ? vpu_.staged[offset / 4] : 0;
    }
  }
  return 0;
}

void HostDevice::Write32(uintptr_t address, uint32_t value) {
  if (address >= STRATA_CTRL_BASE && address < STRATA_CTRL_BASE + STRATA_CTRL_SIZE) {
    switch (address - STRATA_CTRL_BASE) {
      case STRATA_CTRL_CONSOLE_TX:
        console_ += static_cast<char>(value & 0xffu);
        break;
      case STRATA_CTRL_IRQ_PENDING:
        irq_pending_ &= ~value;  // write 1 to clear
        break;
      case STRATA_CTRL_IRQ_ENABLE:
        irq_enable_ = value;
        break;
      case STRATA_CTRL_IRQ_SET:
        irq_pending_ |= value;
        break;
      case STRATA_CTRL_DOORBELL:
        RingDoorbell(value);
        break;
      default:
        break;
    }
    return;
  }
  if (address >= STRATA_DMA_BASE && address < STRATA_DMA_BASE + STRATA_DMA_COUNT * STRATA_DMA_STRIDE) {
    const uint32_t q = static_cast<uint32_t>(address - STRATA_DMA_BASE) / STRATA_DMA_STRIDE;
    const uint32_t offset = static_cast<uint32_t>(address - STRATA_DMA_BASE) % STRATA_DMA_STRIDE;
    if (offset == STRATA_DMA_PUSH) {
      DmaPush(q);
    } else if (offset < STRATA_DMA_STATUS) {
      dma_[q].staged[offset / 4] = value;
    }
    return;
  }
  if (address >= STRATA_MXU_BASE && address < STRATA_MXU_BASE + STRATA_MXU_SIZE) {
    const uint32_t offset = static_cast<uint32_t>(address - STRATA_MXU_BASE);
    if (offset == STRATA_MXU_PUSH) {
      MxuPush();
    } else if (offset != STRATA_MXU_STATUS && offset != STRATA_MXU_DONE && offset != STRATA_MXU_ERRORS &&
               offset != STRATA_MXU_CONFIG && offset != STRATA_MXU_ROWS_STREAMED &&
               offset != STRATA_MXU_STARVED_CYCLES) {
      mxu_.staged[offset / 4] = value;
    }
    return;
  }
  if (address >= STRATA_VPU_BASE && address < STRATA_VPU_BASE + STRATA_VPU_SIZE) {
    const uint32_t offset = static_cast<uint32_t>(address - STRATA_VPU_BASE);
    if (offset == STRATA_VPU_PUSH) {
      VpuPush();
    } else if (offset <= STRATA_VPU_DST_STRIDE) {
      vpu_.staged[offset / 4] = value;
    }
  }
}

// ---- DMA ----

void HostDevice::DmaPush(uint32_t q) {
  DmaQueue& dq = dma_[q];
  if (dq.queue.size() > STRATA_DMA_QUEUE_DEPTH) {  // DEPTH waiting and one running: dropped, counted done
    dq.Complete(STRATA_DMA_ERR_QUEUE_FULL);
    return;
  }
  const uint32_t* r = dq.staged;
  DmaDescriptor d;
  d.src = r[STRATA_DMA_SRC_LO / 4] | uint64_t{r[STRATA_DMA_SRC_HI / 4]} << 32;
  d.dst = r[STRATA_DMA_DST_LO / 4] | uint64_t{r[STRATA_DMA_DST_HI / 4]} << 32;
  d.len = r[STRATA_DMA_LEN / 4];
  d.rows = r[STRATA_DMA_ROWS / 4];
  d.src_stride = r[STRATA_DMA_SRC_STRIDE / 4];
  d.dst_stride = r[STRATA_DMA_DST_STRIDE / 4];
  d.ctrl = r[STRATA_DMA_CTRL / 4];
  dq.queue.push_back(d);
  dq.pushed.push_back(d);
}

// The engine's checks, in the order the RTL makes them.
uint32_t HostDevice::DmaCheck(const DmaDescriptor& d) const {
  const uint32_t src_tier = Field(d.ctrl, STRATA_DMA_CTRL_SRC_TIER_MASK, STRATA_DMA_CTRL_SRC_TIER_LSB);
  const uint32_t dst_tier = Field(d.ctrl, STRATA_DMA_CTRL_DST_TIER_MASK, STRATA_DMA_CTRL_DST_TIER_LSB);
  if (d.len == 0 || d.rows == 0) return STRATA_DMA_ERR_ZERO;
  if (src_tier != STRATA_DMA_TIER_HBM && dst_tier != STRATA_DMA_TIER_HBM) return STRATA_DMA_ERR_TIERS;
  auto fits = [&](uint32_t tier, uint64_t address, uint32_t stride) {
    if (tier != STRATA_DMA_TIER_HBM) return true;  // on-chip sides are not modelled
    const uint64_t last = address + uint64_t{d.rows - 1} * stride;
    return address <= hbm_.size() && last <= hbm_.size() && d.len <= hbm_.size() - last;
  };
  if (!fits(src_tier, d.src, d.src_stride)) return STRATA_DMA_ERR_SRC_RANGE;
  if (!fits(dst_tier, d.dst, d.dst_stride)) return STRATA_DMA_ERR_DST_RANGE;
  return STRATA_DMA_ERR_NONE;
}

void HostDevice::DmaComplete(uint32_t q) {
  DmaQueue& dq = dma_[q];
  const DmaDescriptor d = dq.queue.front();
  dq.queue.pop_front();
  const uint32_t err = DmaCheck(d);
  const bool hbm_to_hbm =
      Field(d.ctrl, STRATA_DMA_CTRL_SRC_TIER_MASK, STRATA_DMA_CTRL_SRC_TIER_LSB) == STRATA_DMA_TIER_HBM &&
      Field(d.ctrl, STRATA_DMA_CTRL_DST_TIER_MASK, STRATA_DMA_CTRL_DST_TIER_LSB) == STRATA_DMA_TIER_HBM;
  if (err == STRATA_DMA_ERR_NONE && hbm_to_hbm) {
    // Rows in memmove order: the last row first when the destination lies above the source.
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint32_t row = d.dst > d.src ? d.rows - 1 - i : i;
      memmove(hbm_.data() + d.dst + uint64_t{row} * d.dst_stride, hbm_.data() + d.src + uint64_t{row} * d.src_stride,
              d.len);
    }
  }
  dq.Complete(err);
  if (d.ctrl & STRATA_DMA_CTRL_IRQ_MASK) irq_pending_ |= STRATA_IRQ_DMA;
}

// ---- matrix unit ----

void HostDevice::MxuPush() {
  if (mxu_.queue.size() >= STRATA_MXU_QUEUE_DEPTH + STRATA_MXU_INFLIGHT) {  // dropped, not counted done
    mxu_.Error(STRATA_MXU_ERR_QUEUE_FULL);
    return;
  }
  MxuCommand c;
  std::copy_n(mxu_.staged, std::size(c.regs), c.regs);
  mxu_.queue.push_back(c);
  mxu_.pushed.push_back(c);
}

void HostDevice::MxuComplete() {
  const MxuCommand c = mxu_.queue.front();
  mxu_.queue.pop_front();
  const uint32_t op = Field(c.at(STRATA_MXU_CMD), STRATA_MXU_CMD_OP_MASK, STRATA_MXU_CMD_OP_LSB);
  const uint32_t rows = c.at(STRATA_MXU_ROWS);
  uint32_t err = STRATA_MXU_ERR_NONE;
  if (op != STRATA_MXU_OP_LOAD_WEIGHTS && op != STRATA_MXU_OP_MATMUL && op != STRATA_MXU_OP_READOUT) {
    err = STRATA_MXU_ERR_OP;
  } else if (rows == 0 || (op == STRATA_MXU_OP_LOAD_WEIGHTS && rows > mxu_n_)) {
    err = STRATA_MXU_ERR_ZERO;
  }
  if (err == STRATA_MXU_ERR_NONE && op == STRATA_MXU_OP_MATMUL) {
    const uint32_t k_rows = c.at(STRATA_MXU_K_ROWS);
    mxu_.rows_streamed += rows * (k_rows == 0 ? 1 : (k_rows + mxu_n_ - 1) / mxu_n_);
  }
  mxu_.Complete(err);
  if (c.at(STRATA_MXU_CMD) & STRATA_MXU_CMD_IRQ_MASK) irq_pending_ |= STRATA_IRQ_MXU;
}

// ---- vector unit ----
void HostDevice::VpuPush() {
  if (vpu_.queue.size() > STRATA_VPU_QUEUE_DEPTH) {  // DEPTH waiting and one running: dropped, not counted done
    vpu_.Error(STRATA_VPU_ERR_QUEUE_FULL);
    return;
  }
  VpuCommand c;
  std::copy_n(vpu_.staged, std::size(c.regs), c.regs);
  vpu_.queue.push_back(c);
  vpu_.pushed.push_back(c);
}
uint32_t HostDevice::VpuCheck(const VpuCommand& c) {
  const uint32_t cmd = c.at(STRATA_VPU_CMD);
  const uint32_t op = Field(cmd, STRATA_VPU_CMD_OP_MASK, STRATA_VPU_CMD_OP_LSB);
  const uint32_t bcast = Field(cmd, STRATA_VPU_CMD_BCAST_MASK, STRATA_VPU_CMD_BCAST_LSB);
  bool known = false;
#define STRATA_VPU_KNOWN(name, value) known |= op == (value);
  STRATA_VPU_OP_LIST(STRATA_VPU_KNOWN)
#undef STRATA_VPU_KNOWN
  const bool binary = op < STRATA_VPU_OP_NEG, select = op == STRATA_VPU_OP_SELECT;
  const uint32_t rows = c.at(STRATA_VPU_ROWS), ss = c.at(STRATA_VPU_SRC_STRIDE), ds = c.at(STRATA_VPU_DST_STRIDE);
  const uint32_t a = c.at(STRATA_VPU_SRC_A), b = c.at(STRATA_VPU_SRC_B), m = c.at(STRATA_VPU_SRC_M),
                 d = c.at(STRATA_VPU_DST);
  constexpr uint32_t kLine = STRATA_DMA_LINE_BYTES;
  if (!known) return STRATA_VPU_ERR_OP;
  if (bcast > STRATA_VPU_BCAST_ROW || (bcast != STRATA_VPU_BCAST_NONE && !binary)) return STRATA_VPU_ERR_BCAST;
  if (rows == 0) return STRATA_VPU_ERR_ZERO;
  if ((a | (binary ? b : 0) | (select ? m : 0) | d | ss | ds) % kLine != 0) return STRATA_VPU_ERR_ALIGN;
  const uint64_t span = uint64_t{rows - 1} * ss + kLine;
  if (a + span > STRATA_VMEM_SIZE ||
      (binary && b + (bcast == STRATA_VPU_BCAST_NONE ? span : kLine) > STRATA_VMEM_SIZE) ||
      (select && m + span > STRATA_VMEM_SIZE)) {
    return STRATA_VPU_ERR_SRC_RANGE;
  }
  if (d + uint64_t{rows - 1} * ds + kLine > STRATA_VMEM_SIZE) return STRATA_VPU_ERR_DST_RANGE;
  return STRATA_VPU_ERR_NONE;
}
void HostDevice::VpuComplete() {
  const VpuCommand c = vpu_.queue.front();
  vpu_.queue.pop_front();
  const uint32_t err = VpuCheck(c);
  if (err == STRATA_VPU_ERR_NONE) vpu_.rows_done += c.at(STRATA_VPU_ROWS);
  vpu_.Complete(err);
  if (c.at(STRATA_VPU_CMD) & STRATA_VPU_CMD_IRQ_MASK) irq_pending_ |= STRATA_IRQ_VPU;
}
// ---- time ----

bool HostDevice::Step() {
  bool any = false;
  for (uint32_t q = 0; q < STRATA_DMA_COUNT; ++q) {
    if (!dma_[q].queue.empty()) {
      DmaComplete(q);
      any = true;
    }
  }
  if (!mxu_.queue.empty()) {
    MxuComplete();
    any = true;
  }
  if (!vpu_.queue.empty()) {
    VpuComplete();
    any = true;
  }
  return any;
}

bool HostDevice::RunUntilWake() {
  while (!WakePending()) {
    if (!Step()) return false;
  }
  return true;
}

void HostDevice::RunUntilIdle() {
  while (Step()) {
  }
}

}  // namespace strata::host_model
