// HBM device description: organization, JEDEC-style timing in ns, presets, and the conversion to core cycles.
#ifndef STRATA_SIM_HBM_HBM_CONFIG_H_
#define STRATA_SIM_HBM_HBM_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace strata::hbm {

enum class HbmStandard { kHbm2, kHbm2e, kHbm3 };

// Which refresh command the controller uses. Per-bank is the default because it is what HBM
// controllers use for bandwidth (JESD235 REFSB / JESD238 REFpb): the other banks of a
// pseudo-channel keep working while one bank refreshes.
enum class RefreshMode { kPerBank, kAllBank, kOff };

// How physical addresses map to pseudo-channel, channel, bank group, bank, row and column (the
// layouts are drawn in docs/hbm.md). kXorHash is the default because a linear map sends every
// power-of-two stride of 512 B or more to one channel (a 1 KiB stride gets 12.5% of peak), while
// real controllers XOR higher address bits into the channel and bank selection to spread them.
enum class AddressMap {
  kXorHash,  // the linear fields, with higher bits XOR-folded into channel, bank group and bank
  kLinear,   // plain bit fields: pseudo-channel, channel, bank group, column, bank, row
};

// What the row-hit cap counts before an open row may be closed for an older access to another row
// of its bank (docs/hbm.md, "Scheduler", compares the two on one stream).
enum class RowHitCount {
  // Every column access since the row's ACT, the one that opened it included, as DRAMsim3 counts
  // (src/channel_state.cc: row_hit_count, reset by ACT; src/command_queue.cc: ArbitratePrecharge):
  // once `row_hit_cap` columns have been served, the waiting access goes next.
  kSinceActivate,
  // Only the hits served past the older access (younger hits that bypass it), as Mutlu &
  // Moscibroda define FR-FCFS+Cap (MICRO 2007): the hits before it are not counted.
  kBypasses,
};

// Device timing in nanoseconds, as data sheets state them. Field names follow JEDEC.
struct HbmTimingNs {
  double tCK = 1.0;     // command clock period (only used for the 2-tCK read-to-write bus turnaround)
  double tRCD = 14;     // ACT to RD/WR, same bank
  double tRP = 14;      // PRE to ACT, same bank
  double tCL = 14;      // RD to first data (read latency, tRL)
  double tWL = 4;       // WR to first data (write latency)
  double tRAS = 34;     // ACT to PRE, same bank
  double tRC = 48;      // ACT to ACT, same bank
  double tRRD_S = 4;    // ACT to ACT, different bank group
  double tRRD_L = 6;    // ACT to ACT, same bank group
  double tFAW = 30;     // window in which at most four ACTs may issue (per pseudo-channel)
  double tCCD_S = 2;    // column to column, different bank group (>= one burst on the data bus)
  double tCCD_L = 4;    // column to column, same bank group
  double tWR = 16;      // end of write data to PRE
  double tWTR_S = 6;    // end of write data to RD, different bank group
  double tWTR_L = 8;    // end of write data to RD, same bank group
  double tRTP = 4;      // RD to PRE
  double tREFI = 3900;  // average refresh interval (all-bank); per-bank interval is tREFI / banks
  double tRFC = 260;    // all-bank refresh cycle time
  double tRFCsb = 160;  // single-bank refresh cycle time
};

// Timing converted to the core clock. Everything is rounded up to whole core cycles except the
// three quantities that pace the data bus (burst, tCCD_S, tCCD_L): those are kept in milli-cycles
// (1/1000 of a core cycle), because rounding HBM2e's or HBM3's 1.25 ns burst up to 2 cycles would
// cap them at 62% of their peak bandwidth.
struct HbmCycles {
  static constexpr uint64_t kMilli = 1000;  // fixed-point sub-cycles per core cycle
  uint64_t rcd = 0, rp = 0, cl = 0, wl = 0, ras = 0, rc = 0, rrd_s = 0, rrd_l = 0, faw = 0;
  uint64_t wr = 0, wtr_s = 0, wtr_l = 0, rtp = 0, refi = 0, rfc = 0, rfcsb = 0, rtw_gap = 0;
  uint64_t burst_mc = 0, ccd_s_mc = 0, ccd_l_mc = 0;  // milli-cycles
  uint64_t BurstCycles() const { return (burst_mc + kMilli - 1) / kMilli; }
};

// ns -> core cycles, rounded up. A tiny epsilon absorbs floating-point noise so 14.0 ns stays 14.
uint64_t NsToCycles(double ns, double core_ghz);
uint64_t NsToMilliCycles(double ns, double core_ghz);

struct HbmConfig {
  std::string name = "HBM2";
  HbmStandard standard = HbmStandard::kHbm2;

  // Organization of one stack. A "channel" is a JEDEC channel; each has `pseudo_channels`
  // independent halves with their own banks and data bus (HBM2 pseudo-channel mode, HBM3 always).
  uint32_t channels = 8;
  uint32_t pseudo_channels = 2;
  uint32_t bank_groups = 4;      // per pseudo-channel
  uint32_t banks_per_group = 4;  // per bank group
  uint32_t row_bytes = 1024;     // page size of one pseudo-channel bank
  uint32_t pc_dq_bits = 64;      // data width of one pseudo-channel
  uint32_t burst_length = 4;     // beats per column access
  double data_rate_gbps = 2.0;   // per pin

  uint64_t capacity_bytes = 8ull << 30;
  HbmTimingNs timing;

  double core_clock_ghz = 1.0;  // the model is ticked once per core cycle
  RefreshMode refresh = RefreshMode::kPerBank;
  uint32_t queue_depth = 64;  // column accesses (32 B atoms) per pseudo-channel queue
  // Starvation guard: once the oldest queued access of a pseudo-channel has been the oldest for this
  // many cycles, it alone is promoted (its bank's younger hits wait, its row may close, the bus turns
  // to it). Counted from when it became the oldest, not from its submission, so a deep queue whose
  // accesses all wait long is not turned into FCFS. HbmModel::HeadWaitBound() is the wait it bounds.
  uint32_t starvation_cycles = 1000;
  // FR-FCFS-Cap (Mutlu & Moscibroda, "Stall-Time Fair Memory Access Scheduling for Chip
  // Multiprocessors", MICRO 2007): an open row with queued hits is closed for an older access to
  // another row of its bank once `row_hit_cap` columns counted by `row_hit_count` have been served;
  // the younger hits then wait. 0 = no cap (plain FR-FCFS, which lets one stream of hits hold a
  // bank; the starvation guard is then the only bound). 4 is DRAMsim3's cap (src/command_queue.cc).
  uint32_t row_hit_cap = 4;
  RowHitCount row_hit_count = RowHitCount::kBypasses;
  AddressMap address_map = AddressMap::kXorHash;
  uint8_t fill_byte = 0x00;            // what never-written bytes read as
  uint32_t backing_page_bytes = 4096;  // granule of the sparse backing store

  // Bytes moved by one column access: pc_dq_bits / 8 * burst_length (32 B for all presets).
  uint32_t BurstBytes() const { return pc_dq_bits / 8 * burst_length; }
  uint32_t PseudoChannelCount() const { return channels * pseudo_channels; }
  uint32_t BanksPerPseudoChannel() const { return bank_groups * banks_per_group; }
  // One row in every bank: capacity_bytes is a multiple of it (256 KiB for HBM2 and HBM2e, 512 KiB for HBM3).
  uint64_t CapacityStride() const {
    return static_cast<uint64_t>(PseudoChannelCount()) * BanksPerPseudoChannel() * row_bytes;
  }
  // Peak data bandwidth of the whole device (all pseudo-channels' data pins), bytes per second.
  double PeakBytesPerSecond() const;
  double PeakBytesPerCycle() const { return PeakBytesPerSecond() / (core_clock_ghz * 1e9); }
  HbmCycles Cycles() const;
  // Empty when the configuration is usable; otherwise says which field is wrong and why.
  std::string Validate() const;

  // Presets for one stack. The numbers and their sources are in docs/hbm.md.
  static HbmConfig Hbm2(uint64_t capacity_bytes = 8ull << 30);
  static HbmConfig Hbm2e(uint64_t capacity_bytes = 16ull << 30);
  static HbmConfig Hbm3(uint64_t capacity_bytes = 16ull << 30);
  // A preset of HbmPresets() by name (case-insensitive); false for an unknown name. capacity_bytes 0: the preset's.
  static bool FromName(const std::string& name, HbmConfig* out, uint64_t capacity_bytes = 0);
};

// The HBM presets a user picks by name (strata-sim --hbm, strata-replay --hbm, strata-mlp --hbm, the sim backend's
// open option hbm_preset): the one list every option, message and help text names, in this order. A new preset is
// a row here (tests/host/check_name_tables.py checks that every tool, Python and the docs follow).
struct HbmPreset {
  const char* name;                            // "HBM2", as users write it (its sources: docs/hbm.md)
  HbmConfig (*make)(uint64_t capacity_bytes);  // capacity_bytes 0: the preset's own default
};
const std::vector<HbmPreset>& HbmPresets();
// The preset every tool and the sim backend use when none is named.
constexpr const char* kDefaultHbmPreset = "HBM2";

const char* RefreshModeName(RefreshMode mode);
// "xor-hash" or "linear": the names command-line options and open options use.
const char* AddressMapName(AddressMap map);
// Accepts the names AddressMapName returns (case-insensitive); false for anything else.
bool AddressMapFromName(const std::string& name, AddressMap* out);
// "since-act" or "bypasses": the names command-line options and open options use.
const char* RowHitCountName(RowHitCount count);
// Accepts the names RowHitCountName returns (case-insensitive); false for anything else.
bool RowHitCountFromName(const std::string& name, RowHitCount* out);
// The accepted names, for messages: "since-act, bypasses".
std::string RowHitCountChoices();

}  // namespace strata::hbm

#endif  // STRATA_SIM_HBM_HBM_CONFIG_H_
