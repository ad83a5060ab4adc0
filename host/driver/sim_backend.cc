// The `sim` backend: the Strata model (Verilated chip + HBM model + host link) in this process, driven
// through the command rings of strata/protocol.h exactly as a PCIe driver would drive the real device.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "backend.h"
#include "device.h"
#include "elf_loader.h"
#include "event_sink.h"
#include "events.h"
#include "firmware_image.h"
#include "hbm/hbm_config.h"
#include "hbm/hbm_model.h"
#include "hbm_bridge.h"
#include "host_link.h"
#include "names.h"
#include "regular_file.h"
#include "runtime/decoder.h"
#include "runtime_header.h"
#include "strata/protocol.h"
#include "strata/regmap.h"

namespace strata::driver {
namespace {

constexpr uint32_t kCmdWords = sizeof(strata_cmd) / 4;
constexpr uint32_t kCplWords = sizeof(strata_cpl) / 4;
constexpr uint32_t kStatsWords = sizeof(strata_rt_stats) / 4;
constexpr uint32_t kHeaderWords = sizeof(strata_rt_header) / 4;
constexpr uint64_t kBootCycles = 50'000'000;
constexpr uint64_t kDefaultTimeoutCycles = 2'000'000'000;

const char* OpName(uint32_t opcode) {
  static const char* const kNames[] = {"noop",  "create_context", "destroy_context", "alloc", "free",
                                       "write", "read",           "compact",         "stats", "gemm"};
  static_assert(sizeof kNames / sizeof kNames[0] == STRATA_OP_COUNT, "one name per opcode of strata/protocol.h");
  return opcode < STRATA_OP_COUNT ? kNames[opcode] : "unknown";
}

// What the firmware's (status, field) means, in words.
std::string Explain(const strata_cpl& c) {
  const auto status = static_cast<strata_status>(c.status);
  switch (c.field) {
    case STRATA_FIELD_HANDLE:
      if (status == STRATA_NOT_FOUND) return "the buffer handle is stale (its buffer was freed)";
      if (status == STRATA_PERMISSION_DENIED) return "the buffer belongs to another context";
      if (status == STRATA_INVALID_ARGUMENT) return "not a buffer handle";
      break;
    case STRATA_FIELD_CONTEXT:
      if (status == STRATA_NOT_FOUND) return "no such context (never created or destroyed)";
      break;
    case STRATA_FIELD_OFFSET:
      return "the range reaches outside the buffer";
    case STRATA_FIELD_QUOTA:
      if (status == STRATA_RESOURCE_EXHAUSTED) return "the context's memory quota has no room for this";
      break;
    case STRATA_FIELD_MEMORY:
      return "not enough device memory";  // Alloc says whether compaction was tried
    case STRATA_FIELD_CONTEXT_TABLE:
      return "too many contexts";
    case STRATA_FIELD_BUFFER_TABLE:
      return "too many live buffers";
    case STRATA_FIELD_DMA:
      return "the DMA engine reported an error";
    case STRATA_FIELD_OPCODE:
      if (status == STRATA_UNIMPLEMENTED) return "not implemented by this firmware";
      break;
    case STRATA_FIELD_BUFFER_A:
    case STRATA_FIELD_BUFFER_B:
    case STRATA_FIELD_BUFFER_C: {
      const char* const kNames[] = {"buffer A", "buffer B", "buffer C"};
      const char* const kMatrix[] = {"its m x k matrix", "its k x n matrix", "the m x n result"};
      const uint32_t i = c.field - STRATA_FIELD_BUFFER_A;
      const std::string name = kNames[i];
      if (status == STRATA_NOT_FOUND) return name + ": the handle is stale (its buffer was freed)";
      if (status == STRATA_PERMISSION_DENIED) return name + " belongs to another context";
      if (status == STRATA_OUT_OF_RANGE) return name + " is smaller than " + kMatrix[i];
      if (status == STRATA_INVALID_ARGUMENT) {
        return name + (i == 2 ? ": not a buffer handle, or the same buffer as A or B" : ": not a buffer handle");
      }
      break;
    }
    case STRATA_FIELD_SHAPE:
      if (status == STRATA_INVALID_ARGUMENT) return "m, n and k must each be 1 .. 2^24";
      if (status == STRATA_OUT_OF_RANGE) return "a matrix of this shape is larger than device memory";
      break;
    case STRATA_FIELD_QUANT:
      return "quant_mult and quant_shift are for INT8 results only, and quant_shift is 0 .. 63";
    case STRATA_FIELD_FLAGS:
      if (c.opcode == STRATA_OP_GEMM) {
        return "flags: ACCUMULATE needs an int32 C (not INT8); ROUND needs INT8; INT8 and ROUND are not for bf16; "
               "OUT_BF16 only for bf16";
      }
      break;
    case STRATA_FIELD_MXU:
      return "the matrix unit reported an error";
    case STRATA_FIELD_DTYPE:
      return "unknown GEMM dtype";
    default:
      break;
  }
  return std::string("bad ") + runtime::FieldName(c.field);
}

class SimBackend final : public Backend {
 public:
  SimBackend(const sim::TraceOptions& trace, const hbm::HbmConfig& hbm, const sim::PcieConfig& pcie,
             uint64_t timeout_cycles, int mxu_n)
      : device_(std::make_unique<sim::Device>(trace, hbm, mxu_n)),
        timeout_cycles_(timeout_cycles),
        limit_(timeout_cycles != 0 ? timeout_cycles : kDefaultTimeoutCycles),
        hbm_peak_bytes_per_cycle_(hbm.PeakBytesPerCycle()) {
    link_ = std::make_unique<sim::HostLink>(*device_, pcie);
    console_hook_ = device_->AddCycleHook([this] {
      if (device_->console_valid() && console_.size() < 4096) console_ += device_->console_char();
    });
  }
  void SetFastForward(bool on) { device_->set_fast_forward(on); }
  // The waveform's window counts from the cycle the first GEMM is issued (open option trace_from_first_gemm):
  // the device records nothing until then.
  void TraceFromFirstGemm(uint64_t start, uint64_t end) {
    trace_after_gemm_ = true;
    trace_after_gemm_start_ = start;
    trace_after_gemm_end_ = end;
  }
  ~SimBackend() override {
    device_->RemoveCycleHook(console_hook_);
    link_.reset();
    device_.reset();
  }

  Error Boot(const std::string& firmware_path, uint64_t hbm_capacity_bytes) {
    firmware_path_ = firmware_path;
    sim::ElfImage image;
    std::string error;
    if (!sim::LoadElf(firmware_path, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) {
      return {STRATA_UNAVAILABLE, "cannot load the runtime firmware: " + error};
    }
    const auto it = image.symbols.find(STRATA_RT_HEADER_SYMBOL);
    if (it == image.symbols.end()) {
      return {STRATA_FAILED_PRECONDITION,
              firmware_path + " is not a runtime image (no symbol " + STRATA_RT_HEADER_SYMBOL + ")"};
    }
    header_address_ = it->second;
    device_->ResetAndLoad(image);
    const uint64_t start = device_->edges();
    uint32_t state = STRATA_RT_BOOTING;
    while ((state = link_->Read32(header_address_ + offsetof(strata_rt_header, state))) == STRATA_RT_BOOTING ||
           link_->Read32(header_address_) != STRATA_PROTO_MAGIC) {
      if (device_->tohost_valid() || device_->edges() - start > kBootCycles) break;
    }
    uint32_t words[kHeaderWords];
    link_->ReadBlock(header_address_, words, kHeaderWords);
    ReadRuntimeHeader(words, &header_);
    if (header_.magic != STRATA_PROTO_MAGIC || header_.state != STRATA_RT_READY) {
      return {STRATA_UNAVAILABLE,
              "the runtime firmware did not start (state " + std::to_string(header_.state) + "); console: " + console_};
    }
    return CheckRuntimeHeader(header_, hbm_capacity_bytes);
  }

  const char* name() const override { return "sim"; }

  Error GetInfo(strata_device_info* out) override {
    out->backend = "sim";
    out->hbm_capacity_bytes = header_.hbm_capacity_bytes;
    out->heap_bytes = header_.heap_bytes;
    out->device_cycles = device_->edges();
    out->max_contexts = header_.max_contexts;
    out->max_live_buffers = header_.max_live_buffers;
    out->granule_bytes = header_.granule_bytes;
    out->last_command_cycles = last_cycles_;
    out->mxu_array_n = header_.mxu_array_n;
    const hbm::HbmChannelStats total = device_->hbm().Stats().Total();
    out->hbm_bytes_read = total.bytes_read;
    out->hbm_bytes_written = total.bytes_written;
    out->hbm_peak_bytes_per_cycle = hbm_peak_bytes_per_cycle_;
    return {};
  }

  // The standard open option capacity_bytes (strata.h): the heap holds `capacity` bytes for the callers' contexts; what
  // it has beyond them goes to a pad buffer at offset 0, placed before the first context a caller creates (then, not
  // at open, so that an event sink set after open sees the pad's commands as those of the run).
  Error SetCapacity(uint64_t capacity) {
    if (header_.heap_bytes < capacity) {
      return {STRATA_INVALID_ARGUMENT, "the firmware manages " + std::to_string(header_.heap_bytes) +
                                           " bytes, less than capacity_bytes " + std::to_string(capacity)};
    }
    pad_pending_ = header_.heap_bytes - capacity;
    return {};
  }

  Error CreateContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) override {
    if (pad_pending_ != 0) {
      strata_context pad_context = 0;
      strata_buffer pad = 0;
      Error e = NewContext(0, 0, &pad_context);
      if (e.ok()) {
        e = Alloc(pad_context, pad_pending_, 0, STRATA_ALLOC_FLAG_NO_COMPACT, &pad);
        if (!e.ok()) DestroyContext(pad_context);  // no half-placed pad: the next call tries again
      }
      if (!e.ok()) {
        e.message = "placing the capacity_bytes pad (" + std::to_string(pad_pending_) + " B): " + e.message;
        return e;
      }
      pad_pending_ = 0;
      pad_context_ = pad_context;
    }
    return NewContext(quota_bytes, quota_ppm, out);
  }

  Error NewContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) {
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_CREATE_CONTEXT;
    cmd.u.create_context.quota_bytes = quota_bytes;
    cmd.u.create_context.quota_ppm = quota_ppm;
    strata_cpl c;
    Error e = Call(cmd, &c);
    if (e.ok()) *out = static_cast<strata_context>(c.value0);
    return e;
  }

  Error DestroyContext(strata_context context) override {
    if (IsPad(context)) return NoSuchContext(context);
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_DESTROY_CONTEXT;
    cmd.context = context;
    strata_cpl c;
    return Call(cmd, &c);
  }

  Error Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t flags, strata_buffer* out) override {
    if (IsPad(context)) return NoSuchContext(context);
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_ALLOC;
    cmd.context = context;
    cmd.flags = static_cast<uint8_t>(flags);
    cmd.u.alloc.bytes = bytes;
    cmd.u.alloc.alignment = alignment;
    strata_cpl c;
    Error e = Call(cmd, &c);
    if (e.ok()) *out = c.value0;
    if (e.status == STRATA_RESOURCE_EXHAUSTED && (c.field == STRATA_FIELD_QUOTA || c.field == STRATA_FIELD_MEMORY)) {
      if (c.field == STRATA_FIELD_MEMORY) {
        e.message += (flags & STRATA_ALLOC_FLAG_NO_COMPACT) != 0 ? " (no compaction: STRATA_ALLOC_FLAG_NO_COMPACT)"
                                                                 : " (even after compaction)";
      }
      DiagnoseOom(context, bytes, c.field == STRATA_FIELD_QUOTA, &e);
    }
    return e;
  }

  Error LastOom(strata_oom_info* out) override {
    *out = last_oom_;
    return {};
  }

  Error Free(strata_context context, strata_buffer buffer) override {
    if (IsPad(context)) return NoSuchContext(context);
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_FREE;
    cmd.context = context;
    cmd.u.buffer.handle = buffer;
    strata_cpl c;
    return Call(cmd, &c);
  }

  // Chunks go last-first and the first one is awaited before any other starts: it carries the handle,
  // ownership and end-of-range checks for the whole call, so a refused call writes nothing. Then up to
  // one chunk per staging slot is in flight: the link copies the next chunk while the firmware moves the last.
  Error Write(strata_context context, strata_buffer buffer, uint64_t offset, const void* src, uint64_t bytes) override {
    if (IsPad(context)) return NoSuchContext(context);
    const uint32_t slot_bytes = header_.staging_slot_bytes;
    const uint64_t chunks = (bytes + slot_bytes - 1) / slot_bytes;
    uint32_t slot_seq[STRATA_RT_STAGING_SLOTS] = {};
    Error first;
    for (uint64_t k = 0; k < chunks && first.ok(); ++k) {
      const uint64_t i = chunks - 1 - k;
      const uint64_t at = i * slot_bytes;
      const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(slot_bytes, bytes - at));
      const uint32_t slot = static_cast<uint32_t>(k % header_.staging_slots);
      if (slot_seq[slot] != 0) {
        first = Await(slot_seq[slot], nullptr);
        slot_seq[slot] = 0;
        if (!first.ok()) break;
      }
      const uint64_t id = link_->CopyToDevice(static_cast<const uint8_t*>(src) + at, SlotAddress(slot), len);
      if (id == 0) return {STRATA_INTERNAL, "staging slot outside HBM"};
      link_->Wait(id);
      const uint32_t seq = Submit(TransferCommand(STRATA_OP_WRITE, context, buffer, offset + at, len, slot));
      if (k == 0) {
        first = Await(seq, nullptr);
      } else {
        slot_seq[slot] = seq;
      }
    }
    for (uint32_t s : slot_seq) {
      if (s == 0) continue;
      Error e = Await(s, nullptr);
      if (first.ok()) first = e;
    }
    return first;
  }

  Error Read(strata_context context, strata_buffer buffer, uint64_t offset, void* dst, uint64_t bytes) override {
    if (IsPad(context)) return NoSuchContext(context);
    const uint32_t slot_bytes = header_.staging_slot_bytes;
    const uint64_t chunks = (bytes + slot_bytes - 1) / slot_bytes;
    struct Pending {
      uint32_t seq, slot, len;
      uint64_t at;
    };
    std::deque<Pending> pending;
    Error first;
    auto finish_oldest = [&]() {
      const Pending p = pending.front();
      pending.pop_front();
      Error e = Await(p.seq, nullptr);
      if (e.ok() && first.ok()) {
        link_->Wait(link_->CopyFromDevice(SlotAddress(p.slot), static_cast<uint8_t*>(dst) + p.at, p.len));
      }
      if (first.ok()) first = e;
    };
    for (uint64_t k = 0; k < chunks && first.ok(); ++k) {
      const uint64_t at = (chunks - 1 - k) * slot_bytes;
      const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(slot_bytes, bytes - at));
      const uint32_t slot = static_cast<uint32_t>(k % header_.staging_slots);
      if (pending.size() == header_.staging_slots) finish_oldest();
      if (!first.ok()) break;
      pending.push_back(
          {Submit(TransferCommand(STRATA_OP_READ, context, buffer, offset + at, len, slot)), slot, len, at});
      if (k == 0) finish_oldest();
    }
    while (!pending.empty()) finish_oldest();
    return first;
  }

  Error Gemm(strata_context context, const strata_gemm_args& args) override {
    if (IsPad(context)) return NoSuchContext(context);
    if (args.dtype != STRATA_DTYPE_INT8 && header_.version_minor < STRATA_PROTO_MINOR_GEMM_DTYPE) {
      // runtime.elf, the default image, is built without the bf16 path (docs/matrix-unit.md, "Two runtime
      // images"); it would refuse the dtype word as reserved. Said here, with the way out, before anything moves.
      return {STRATA_FAILED_PRECONDITION,
              "a bf16 GEMM needs the runtime image runtime_fp.elf (open option runtime_fp=1); " + firmware_path_ +
                  " speaks protocol " + std::to_string(header_.version_major) + "." +
                  std::to_string(header_.version_minor) + ", int8 GEMMs only"};
    }
    if (trace_after_gemm_) {
      const uint64_t now = device_->edges();
      const auto after = [now](uint64_t offset) { return offset > UINT64_MAX - now ? UINT64_MAX : now + offset; };
      device_->set_trace_window(after(trace_after_gemm_start_), after(trace_after_gemm_end_));
      trace_after_gemm_ = false;
    }
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_GEMM;
    cmd.context = context;
    cmd.flags = static_cast<uint8_t>(args.flags);  // the C API refused bits outside STRATA_GEMM_FLAGS_ALL
    cmd.u.gemm = {args.a, args.b, args.c, args.m, args.n, args.k, args.quant_mult, args.quant_shift, args.dtype};
    strata_cpl c;
    // The default limit grows with the work (strata.h, "Timeouts"): a legal GEMM at 1/64 of the array's
    // peak still finishes.
    const double n2 = static_cast<double>(header_.mxu_array_n) * header_.mxu_array_n;
    const double work = 64.0 * args.m * args.n * args.k / (n2 > 0 ? n2 : 1);
    limit_ =
        timeout_cycles_ != 0 ? timeout_cycles_ : kDefaultTimeoutCycles + static_cast<uint64_t>(std::min(work, 1e18));
    Error e = Call(cmd, &c);
    limit_ = timeout_cycles_ != 0 ? timeout_cycles_ : kDefaultTimeoutCycles;
    if (!e.ok()) {
      e.message +=
          " (m=" + std::to_string(args.m) + ", n=" + std::to_string(args.n) + ", k=" + std::to_string(args.k) + ")";
    }
    return e;
  }

  Error Compact(strata_context context, uint64_t max_bytes, uint32_t max_moves, strata_compact_result* out) override {
    if (IsPad(context)) return NoSuchContext(context);
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_COMPACT;
    cmd.context = context;
    cmd.u.compact.max_bytes = max_bytes;
    cmd.u.compact.max_moves = max_moves;
    strata_cpl c;
    const uint64_t t0 = device_->edges();
    Error e = Call(cmd, &c);
    if (e.ok()) {
      out->moves = c.value1;
      out->bytes_moved = c.value0;
      out->device_cycles = device_->edges() - t0;
    }
    return e;
  }

  bool DeviceCycles(uint64_t* out) const override {
    *out = device_->edges();
    return true;
  }
  Error SetEventSink(strata_event_fn fn, void* user) override {
    // The matrix unit's busy stretches need a look at the chip every cycle: only while someone listens.
    if (mxu_hook_ >= 0) {
      mxu_busy_.Update(false, device_->edges(), events_);
      device_->RemoveCycleHook(mxu_hook_);
      mxu_hook_ = -1;
    }
    events_.fn = fn;
    events_.user = user;
    if (fn != nullptr) {
      mxu_hook_ = device_->AddCycleHook([this] { mxu_busy_.Update(device_->mxu_busy(), device_->edges(), events_); });
    }
    link_->set_event_sink(fn != nullptr ? &events_ : nullptr);
    device_->bridge().set_event_sink(fn != nullptr ? &events_ : nullptr);
    if (fn != nullptr) {  // the heap's extent, for pictures of it: [0, heap_bytes) of HBM
      sim::Event extent{"heap", "extent", device_->edges(), device_->edges(), static_cast<int64_t>(header_.heap_bytes)};
      extent.kind = sim::EventKind::kInstant;
      extent.has_address = true;
      events_.OnEvent(extent);
    }
    submitted_.clear();
    heap_owner_.clear();
    return {};
  }

  Error MemoryStats(strata_context context, strata_memory_stats* out) override {
    if (IsPad(context)) return NoSuchContext(context);
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_STATS;
    cmd.context = context;
    strata_cpl c;
    Error e = Call(cmd, &c);
    if (!e.ok()) return e;
    uint32_t words[kStatsWords];
    link_->ReadBlock(header_.stats_address, words, kStatsWords);
    strata_rt_stats s;
    std::memcpy(&s, words, sizeof s);
    if (s.seq != c.seq) return {STRATA_INTERNAL, "stats area does not hold this request's answer"};
#define STRATA_COPY_(type, name) out->name = s.name;
    STRATA_RT_STATS_FROM_ALLOCATOR_64(STRATA_COPY_)
    STRATA_RT_STATS_FROM_RUNTIME_64(STRATA_COPY_)
    STRATA_RT_STATS_FROM_RUNTIME_32(STRATA_COPY_)
#undef STRATA_COPY_
    out->live_buffers = s.live_buffers;  // fragmentation_ppm is the device's fixed-point form of:
    out->fragmentation =
        s.bytes_free == 0 ? 0.0 : static_cast<double>(s.bytes_free - s.largest_free_block_bytes) / s.bytes_free;
    out->pool_bytes = s.bytes_limit;  // the heap is the device's one pool, taken at boot
    out->peak_pool_bytes = s.bytes_limit;
    out->oom_capacity = oom_counts_[STRATA_OOM_CAPACITY];
    out->oom_cap = oom_counts_[STRATA_OOM_CAP];
    out->oom_fragmentation = oom_counts_[STRATA_OOM_FRAGMENTATION];
    return {};
  }

  Error Synchronize() override {
    const uint64_t start = device_->edges();
    while (outstanding_ != 0) {
      if (!PollOnce()) {
        Error e = CheckAlive(start);
        if (!e.ok()) return e;
      }
    }
    strata_cmd cmd{};
    cmd.opcode = STRATA_OP_NOOP;
    strata_cpl c;
    return Call(cmd, &c);
  }

 private:
  // Classifies a failed allocation from the allocator's figures at that moment and names them in the message.
  void DiagnoseOom(strata_context context, uint64_t bytes, bool quota, Error* e) {
    strata_memory_stats s{};
    if (!MemoryStats(context, &s).ok()) return;
    strata_oom_info& o = last_oom_;
    o = strata_oom_info{};
    o.request_bytes = bytes;
    o.live_bytes = s.bytes_in_use;
    o.reserved_bytes = s.bytes_limit;
    o.largest_free_block_bytes = s.largest_free_block_bytes;
    o.limit_bytes = quota ? s.context_quota_bytes : s.bytes_limit;
    o.device_free_bytes = s.bytes_free;
    o.context_bytes_in_use = s.context_bytes_in_use;
    o.context_quota_bytes = s.context_quota_bytes;
    // bytes_in_use <= bytes_limit: compared by difference, since a sum with a request near 2^64 wraps.
    o.kind = quota                                                             ? STRATA_OOM_CAP
             : bytes > s.bytes_limit - std::min(s.bytes_in_use, s.bytes_limit) ? STRATA_OOM_CAPACITY
                                                                               : STRATA_OOM_FRAGMENTATION;
    ++oom_counts_[o.kind];
    e->message += " (" + std::string(strata_oom_kind_name(o.kind)) + "): requested " + std::to_string(bytes) +
                  " B, in use " + std::to_string(s.bytes_in_use) + " B, free " + std::to_string(s.bytes_free) +
                  " B, largest free block " + std::to_string(s.largest_free_block_bytes) + " B, context in use " +
                  std::to_string(s.context_bytes_in_use) + " B, context quota " +
                  (s.context_quota_bytes ? std::to_string(s.context_quota_bytes) + " B" : std::string("none"));
  }

  uint64_t SlotAddress(uint32_t slot) const { return strata_rt_staging_slot_address(header_.staging_address, slot); }

  static strata_cmd TransferCommand(uint8_t opcode, strata_context context, strata_buffer buffer, uint64_t offset,
                                    uint32_t len, uint32_t slot) {
    strata_cmd cmd{};
    cmd.opcode = opcode;
    cmd.context = context;
    cmd.u.transfer.handle = buffer;
    cmd.u.transfer.offset = offset;
    cmd.u.transfer.bytes = len;
    cmd.u.transfer.slot = slot;
    return cmd;
  }

  void Interrupt() override { interrupt_.store(true, std::memory_order_relaxed); }
  void ForgetInterrupt() override { interrupt_.store(false, std::memory_order_relaxed); }

  Error CheckAlive(uint64_t start) {
    if (interrupt_.exchange(false, std::memory_order_relaxed)) {
      return {STRATA_ABORTED, "interrupted (strata_interrupt) after " + std::to_string(device_->edges() - start) +
                                  " cycles of waiting for the device"};
    }
    if (device_->tohost_valid()) {
      return {STRATA_UNAVAILABLE, "the runtime firmware stopped (tohost " + std::to_string(device_->tohost_value()) +
                                      "); console: " + console_};
    }
    if (device_->edges() - start > limit_) {
      return {STRATA_UNAVAILABLE, "the device did not answer within " + std::to_string(limit_) + " cycles"};
    }
    return {};
  }

  // Reads the next completion slot; true if it held a new completion.
  bool PollOnce() {
    uint32_t words[kCplWords];
    link_->ReadBlock(header_.cq_address + strata_rt_cq_slot(cq_head_) * sizeof(strata_cpl), words, kCplWords);
    if (words[0] != strata_rt_cq_phase(cq_head_)) return false;
    strata_cpl c;
    std::memcpy(&c, words, sizeof c);
    done_[c.seq] = c;
    if (events_.fn != nullptr) ReportCompletion(c);
    ++cq_head_;
    --outstanding_;
    link_->Write32(header_address_ + offsetof(strata_rt_header, cq_head), cq_head_);
    // A firmware that ran out of completion room waits for a doorbell.
    if (outstanding_ >= STRATA_RT_CQ_ENTRIES / 2) link_->RingDoorbell(sq_tail_);
    return true;
  }

  uint32_t Submit(strata_cmd cmd) {
    while (outstanding_ >= STRATA_RT_SQ_ENTRIES) PollOnce();
    cmd.seq = next_seq_++;
    if (next_seq_ == 0) next_seq_ = 1;
    uint32_t words[kCmdWords];
    std::memcpy(words, &cmd, sizeof cmd);
    link_->WriteBlock(header_.sq_address + strata_rt_sq_slot(sq_tail_) * sizeof(strata_cmd), words, kCmdWords);
    ++sq_tail_;
    ++outstanding_;
    if (events_.fn != nullptr) {
      // What the completion's events need of the command (Submitted::arg).
      const uint64_t arg = cmd.opcode == STRATA_OP_ALLOC             ? cmd.u.alloc.bytes
                           : cmd.opcode == STRATA_OP_FREE            ? cmd.u.buffer.handle
                           : cmd.opcode == STRATA_OP_DESTROY_CONTEXT ? cmd.context
                                                                     : 0;
      submitted_[cmd.seq] = {device_->edges(), arg};
    }
    link_->RingDoorbell(sq_tail_);
    return cmd.seq;
  }

  // The command's span (submission to the host seeing its completion) and the firmware's time on it; a
  // compaction that succeeded also spans the same cycles on "compaction" with the bytes it moved.
  void ReportCompletion(const strata_cpl& c) {
    const uint64_t now = device_->edges();
    const auto it = submitted_.find(c.seq);
    if (it == submitted_.end()) return;  // submitted before the sink was set
    const uint64_t submitted = it->second.cycle, arg = it->second.arg;
    submitted_.erase(it);
    events_.Span("command", OpName(c.opcode), submitted, now, c.status, c.seq);
    if (c.opcode == STRATA_OP_COMPACT && c.status == STRATA_OK) {
      events_.Span("compaction", "compact", submitted, now, static_cast<int64_t>(c.value0), c.seq);
    }
    const uint64_t firmware = std::min<uint64_t>(c.cycles, now);
    events_.Span(c.opcode == STRATA_OP_GEMM ? "mxu" : "firmware", OpName(c.opcode), now - firmware, now, c.status,
                 c.seq);
    // The heap: where each buffer went (the handle is the id, the size its granules: what a compaction moves),
    // and when it left, by a free or with its context. Moves are the DMA's copies.
    if (c.status != STRATA_OK) return;
    auto heap = [&](const char* name, uint64_t handle) {
      sim::Event h{"heap", name, now, now, 0, handle};
      h.kind = sim::EventKind::kInstant;
      return h;
    };
    if (c.opcode == STRATA_OP_ALLOC) {
      const uint64_t g = header_.granule_bytes;
      sim::Event h = heap("alloc", c.value0);
      h.value = static_cast<int64_t>((arg + g - 1) / g * g);
      h.has_address = true;
      h.address = h.to_address = uint64_t{c.value1} * g;
      heap_owner_[c.value0] = c.context;
      events_.OnEvent(h);
    } else if (c.opcode == STRATA_OP_FREE) {
      heap_owner_.erase(arg);
      events_.OnEvent(heap("free", arg));
    } else if (c.opcode == STRATA_OP_DESTROY_CONTEXT) {
      for (auto b = heap_owner_.begin(); b != heap_owner_.end();) {
        if (b->second != arg) {
          ++b;
          continue;
        }
        events_.OnEvent(heap("free", b->first));
        b = heap_owner_.erase(b);
      }
    }
  }

  // Events of the model's parts (sim::EventSink) and of this backend, passed to the C API's sink.
  struct Events : ApiEventSink {
    void Span(const char* track, const char* name, uint64_t begin, uint64_t end, int64_t value, uint64_t id) {
      OnEvent(sim::Event{track, name, begin, end, value, id});
    }
  };

  Error Await(uint32_t seq, strata_cpl* out) {
    const uint64_t start = device_->edges();
    for (;;) {
      const auto it = done_.find(seq);
      if (it != done_.end()) {
        const strata_cpl c = it->second;
        done_.erase(it);
        last_cycles_ = c.cycles;
        if (out != nullptr) *out = c;
        if (c.status == STRATA_OK) return {};
        return {static_cast<strata_status>(c.status), std::string(OpName(c.opcode)) + ": " + Explain(c)};
      }
      if (!PollOnce()) {
        Error e = CheckAlive(start);
        if (!e.ok()) return e;
      }
    }
  }

  Error Call(const strata_cmd& cmd, strata_cpl* out) { return Await(Submit(cmd), out); }

  std::unique_ptr<sim::Device> device_;
  std::unique_ptr<sim::HostLink> link_;
  uint64_t timeout_cycles_;  // the open option; 0 = the default rule
  uint64_t limit_;           // this call's limit
  // The pad's context is the backend's own: a caller naming it hears what it would of a context it never created.
  bool IsPad(strata_context c) const { return pad_context_ != 0 && c == pad_context_; }

  std::atomic<bool> interrupt_{false};  // strata_interrupt: the next CheckAlive gives up
  uint64_t pad_pending_ = 0;            // capacity_bytes: the pad still to place (bytes)
  strata_context pad_context_ = 0;      // ... and its context once placed
  double hbm_peak_bytes_per_cycle_;
  int console_hook_ = -1;
  std::string console_;
  uint32_t header_address_ = 0;
  strata_rt_header header_{};
  uint32_t sq_tail_ = 0, cq_head_ = 0, next_seq_ = 1, outstanding_ = 0;
  uint32_t last_cycles_ = 0;
  strata_oom_info last_oom_{};
  uint64_t oom_counts_[4] = {};
  std::map<uint32_t, strata_cpl> done_;
  Events events_;
  int mxu_hook_ = -1;
  std::string firmware_path_;      // the runtime image booted, for messages
  bool trace_after_gemm_ = false;  // the waveform's window is still to be placed at the first GEMM
  uint64_t trace_after_gemm_start_ = 0, trace_after_gemm_end_ = UINT64_MAX;
  sim::Stretch mxu_busy_{"matrix unit", "busy"};
  struct Submitted {
    uint64_t cycle;
    uint64_t arg;  // ALLOC: bytes; FREE: the handle; DESTROY_CONTEXT: the context
  };
  std::map<uint32_t, Submitted> submitted_;  // seq -> submission, kept only while a sink listens
  std::map<uint64_t, uint64_t> heap_owner_;  // live buffer -> its context, while a sink listens
};

// capacity_bytes -> the HBM's size: the heap rounded up to whole stripes and whole rows in every bank of the preset
// (HBM3's rows span 512 KiB: the stride is a multiple of the stripe in every preset), plus the firmware's staging slots
// above it, and at least the firmware's minimum. An unknown preset is left to the caller's check.
Error HbmBytesFor(const OpenOptions& o, const std::string& preset, int64_t* hbm_bytes, uint64_t* capacity) {
  const int64_t usable = o.GetInt("capacity_bytes", 0);
  *capacity = 0;
  if (usable == 0) return {};
  if (usable < 0) return {STRATA_INVALID_ARGUMENT, "capacity_bytes must not be negative (0 = hbm_capacity_bytes)"};
  if (o.Has("hbm_capacity_bytes")) {
    return {STRATA_INVALID_ARGUMENT, "capacity_bytes sizes the HBM itself: give it or hbm_capacity_bytes, not both"};
  }
  constexpr uint64_t kStaging = uint64_t{STRATA_RT_STAGING_SLOTS} * STRATA_RT_STAGING_SLOT_BYTES;
  constexpr uint64_t kStripe = 256ull * 1024;  // the runtime's heap stripe
  const uint64_t u = static_cast<uint64_t>(usable);
  if (u % 256 != 0) return {STRATA_INVALID_ARGUMENT, "capacity_bytes must be a multiple of the 256-byte granule"};
  if (u > STRATA_RT_MAX_HBM_BYTES - kStaging) {
    return {STRATA_INVALID_ARGUMENT, "capacity_bytes " + std::to_string(u) +
                                         " is beyond what the runtime firmware manages (" +
                                         std::to_string(STRATA_RT_MAX_HBM_BYTES - kStaging) + " bytes of heap)"};
  }
  uint64_t stride = kStripe;
  hbm::HbmConfig probe;
  if (hbm::HbmConfig::FromName(preset, &probe)) stride = std::max(stride, probe.CapacityStride());
  *hbm_bytes =
      static_cast<int64_t>(std::max<uint64_t>((u + kStaging + stride - 1) / stride * stride, STRATA_RT_MIN_HBM_BYTES));
  *capacity = u;
  return {};
}

Error OpenSim(const OpenOptions& o, std::unique_ptr<Backend>* out) {
  const std::string preset = o.GetString("hbm_preset", hbm::kDefaultHbmPreset);
  int64_t capacity = o.GetInt("hbm_capacity_bytes", int64_t{1} << 30);
  uint64_t usable = 0;  // capacity_bytes
  if (Error e = HbmBytesFor(o, preset, &capacity, &usable); !e.ok()) return e;
  if (capacity <= 0) return {STRATA_INVALID_ARGUMENT, "hbm_capacity_bytes must be positive"};
  if (static_cast<uint64_t>(capacity) < STRATA_RT_MIN_HBM_BYTES) {
    return {STRATA_INVALID_ARGUMENT,
            "hbm_capacity_bytes " + std::to_string(capacity) + " is less than the runtime firmware needs (" +
                std::to_string(STRATA_RT_MIN_HBM_BYTES) + " bytes: its staging slots and a heap as large)"};
  }
  if (static_cast<uint64_t>(capacity) > STRATA_RT_MAX_HBM_BYTES) {
    return {STRATA_INVALID_ARGUMENT, "hbm_capacity_bytes " + std::to_string(capacity) +
                                         " is more than the runtime firmware manages (" +
                                         std::to_string(STRATA_RT_MAX_HBM_BYTES >> 30) + " GiB)"};
  }
  hbm::HbmConfig hbm;
  if (!hbm::HbmConfig::FromName(preset, &hbm, static_cast<uint64_t>(capacity))) {
    return {STRATA_INVALID_ARGUMENT,
            "unknown HBM preset '" + preset + "' (" + tool::JoinNames(tool::NamesOf(hbm::HbmPresets())) + ")"};
  }
  // The controller settings go on top of the preset (FromName replaces the whole configuration).
  const std::string address_map = o.GetString("hbm_address_map", hbm::AddressMapName(hbm.address_map));
  if (!hbm::AddressMapFromName(address_map, &hbm.address_map)) {
    return {STRATA_INVALID_ARGUMENT, "unknown hbm_address_map '" + address_map + "' (xor-hash, linear)"};
  }
  const int64_t row_hit_cap = o.GetInt("hbm_row_hit_cap", hbm.row_hit_cap);
  if (row_hit_cap < 0) return {STRATA_INVALID_ARGUMENT, "hbm_row_hit_cap must be >= 0 (0 = no cap)"};
  if (row_hit_cap > UINT32_MAX) {
    return {STRATA_INVALID_ARGUMENT, "hbm_row_hit_cap " + std::to_string(row_hit_cap) + " is too large"};
  }
  hbm.row_hit_cap = static_cast<uint32_t>(row_hit_cap);
  const std::string row_hit_count = o.GetString("hbm_row_hit_count", hbm::RowHitCountName(hbm.row_hit_count));
  if (!hbm::RowHitCountFromName(row_hit_count, &hbm.row_hit_count)) {
    return {STRATA_INVALID_ARGUMENT,
            "unknown hbm_row_hit_count '" + row_hit_count + "' (" + hbm::RowHitCountChoices() + ")"};
  }
  if (const std::string why = hbm.Validate(); !why.empty()) {
    return {STRATA_INVALID_ARGUMENT, "HBM configuration: " + why};
  }
  sim::PcieConfig pcie;
  const std::string pcie_preset = o.GetString("pcie_preset", "gen4x16");
  if (!sim::PcieConfig::FromName(pcie_preset, &pcie)) {
    return {STRATA_INVALID_ARGUMENT, "unknown PCIe preset '" + pcie_preset + "' (gen4x16, gen5x16)"};
  }
  sim::TraceOptions trace;
  trace.path = o.GetString("trace_path");
  const int64_t start = o.GetInt("trace_start_cycle", 0), end = o.GetInt("trace_end_cycle", 0);
  if (start < 0 || end < 0) return {STRATA_INVALID_ARGUMENT, "trace cycles must not be negative"};
  trace.start = static_cast<uint64_t>(start);
  trace.end = end != 0 ? static_cast<uint64_t>(end) : UINT64_MAX;
  if (trace.end <= trace.start) return {STRATA_INVALID_ARGUMENT, "trace_end_cycle must be above trace_start_cycle"};
  if (!trace.path.empty()) {
    const auto ends = [&](const char* ext) {
      return trace.path.size() >= 4 && trace.path.compare(trace.path.size() - 4, 4, ext) == 0;
    };
    if (!ends(".fst") && !ends(".vcd")) return {STRATA_INVALID_ARGUMENT, "trace file must end in .fst or .vcd"};
    // Refuse a waveform that could not be written before the run, not after it.
    const std::string why = tool::CheckWritableFile(trace.path);
    if (!why.empty()) return {STRATA_INVALID_ARGUMENT, "cannot write the waveform " + trace.path + ": " + why};
  }
  const int64_t timeout = o.GetInt("timeout_cycles", 0);
  if (timeout < 0) return {STRATA_INVALID_ARGUMENT, "timeout_cycles must not be negative"};
  const int64_t mxu_n = o.GetInt("mxu_n", sim::Device::kDefaultMxuN);
  if (!sim::IsBuiltMxuSize(mxu_n)) {
    return {STRATA_INVALID_ARGUMENT,
            "mxu_n " + std::to_string(mxu_n) +
                ": this build has no chip with that matrix unit (built: " + sim::BuiltMxuSizesText() + ")"};
  }
  std::string firmware = o.GetString("firmware_path");
  const bool runtime_fp = o.GetBool("runtime_fp", false);
  if (runtime_fp && !firmware.empty()) {
    return {STRATA_INVALID_ARGUMENT, "runtime_fp and firmware_path both name the runtime image: give one"};
  }
  if (runtime_fp) {
    firmware = sim::FirmwareImagePath("runtime_fp");
  } else if (firmware.empty()) {
    const char* env = std::getenv("STRATA_RUNTIME_FIRMWARE");
    firmware = env != nullptr && *env != '\0' ? env : sim::FirmwareImagePath("runtime");
  }
  // trace_from_first_gemm: the window [start, end) counts from the first GEMM's issue; nothing before it.
  const bool from_gemm = !trace.path.empty() && o.GetBool("trace_from_first_gemm", false);
  sim::TraceOptions device_trace = trace;
  if (from_gemm) device_trace.start = device_trace.end = UINT64_MAX;
  auto backend =
      std::make_unique<SimBackend>(device_trace, hbm, pcie, static_cast<uint64_t>(timeout), static_cast<int>(mxu_n));
  if (from_gemm) backend->TraceFromFirstGemm(trace.start, trace.end);
  if (!o.GetBool("fast_forward", true)) backend->SetFastForward(false);
  Error e = backend->Boot(firmware, static_cast<uint64_t>(capacity));
  if (e.ok() && usable != 0) e = backend->SetCapacity(usable);
  if (!e.ok()) return e;
  *out = std::move(backend);
  return {};
}

// The open option's default is the model's (defined in a statement of its own: in the table below it would
// be a line too long).
const char* const kRowHitCount = hbm::RowHitCountName(hbm::HbmConfig{}.row_hit_count);

// mxu_n's choices: the chips this build has.
std::vector<std::string> MxuChoices() {
  std::vector<std::string> out;
  for (int n : sim::BuiltMxuSizes()) out.push_back(std::to_string(n));
  return out;
}

std::vector<OptionSpec> SimOptions() {
  return {
      {"hbm_preset", STRATA_VALUE_STRING, hbm::kDefaultHbmPreset,
       "HBM timing preset: " + tool::JoinNames(tool::NamesOf(hbm::HbmPresets()), ", ", " or "),
       tool::NamesOf(hbm::HbmPresets())},
      {"capacity_bytes", STRATA_VALUE_INT64, "0",
       "the heap the contexts may use (the standard option): the HBM is sized to hold it and the staging slots, "
       "the rest held by a pad buffer at offset 0; 0 = hbm_capacity_bytes decides"},
      {"hbm_capacity_bytes", STRATA_VALUE_INT64, "1073741824",
       "HBM capacity; a multiple of the preset's row stripe (256 KiB)"},
      {"hbm_address_map",
       STRATA_VALUE_STRING,
       "xor-hash",
       "HBM address map: xor-hash (higher bits XOR-folded into channel and bank) or linear (the old map)",
       {hbm::AddressMapName(hbm::AddressMap::kXorHash), hbm::AddressMapName(hbm::AddressMap::kLinear)}},
      {"hbm_row_hit_cap", STRATA_VALUE_INT64, "4",
       "columns an open HBM row serves while an older request to another row waits; 0 = no cap"},
      {"hbm_row_hit_count",
       STRATA_VALUE_STRING,
       kRowHitCount,
       "what the HBM row-hit cap counts: since-act (every column since the ACT) or bypasses",
       {hbm::RowHitCountName(hbm::RowHitCount::kSinceActivate), hbm::RowHitCountName(hbm::RowHitCount::kBypasses)}},
      {"pcie_preset", STRATA_VALUE_STRING, "gen4x16", "host link: gen4x16 or gen5x16", {"gen4x16", "gen5x16"}},
      {"trace_path", STRATA_VALUE_STRING, "", "waveform file (.fst or .vcd); empty = none"},
      {"trace_start_cycle", STRATA_VALUE_INT64, "0",
       "record the waveform from this device cycle on (waveform time = cycle ns)"},
      {"trace_end_cycle", STRATA_VALUE_INT64, "0", "... up to this one (exclusive); 0 = to the end"},
      {"trace_from_first_gemm", STRATA_VALUE_BOOL, "0",
       "trace_start_cycle and trace_end_cycle count from the cycle the first GEMM is issued"},
      {"firmware_path", STRATA_VALUE_STRING, "",
       "runtime ELF; empty = $STRATA_RUNTIME_FIRMWARE, else the installed, else the build's"},
      {"runtime_fp", STRATA_VALUE_BOOL, "0",
       "boot runtime_fp.elf, the runtime with bf16 GEMMs (a larger image: int8 figures move)"},
      {"mxu_n", STRATA_VALUE_INT64, "16",
       "matrix unit: the chip with an N x N systolic array (8, 16 or 32 in the default build)", MxuChoices()},
      {"fast_forward", STRATA_VALUE_BOOL, "1",
       "skip evaluating the chip in quiescent cycles (same cycle counts); 0 = evaluate every cycle"},
      {"timeout_cycles", STRATA_VALUE_INT64, "0",
       "device cycles a call may wait; 0 = 2e9, and more for a large GEMM (strata.h, Timeouts)"},
  };
}

}  // namespace

STRATA_REGISTER_BACKEND(sim,
                        {"sim",
                         "the Strata model in-process: Verilated chip, cycle-level HBM, host link, runtime firmware",
                         SimOptions(), OpenSim})

}  // namespace strata::driver
