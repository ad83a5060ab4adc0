// HBM presets and the ns -> core-cycle conversion. Sources for every number: docs/hbm.md.
#include "hbm/hbm_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace strata::hbm {
namespace {

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Names on the command line and in open options are case-insensitive.
std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// The DRAM core (array) timings barely change across HBM generations; all three presets use the
// HBM2 values of DRAMsim3's HBM2_8Gb_x128 configuration, as Ramulator2 does for its HBM3 presets.
HbmTimingNs CoreArrayTiming() {
  HbmTimingNs t;
  t.tRCD = 14;
  t.tRP = 14;
  t.tCL = 14;
  t.tWL = 4;
  t.tRAS = 34;
  t.tRC = 48;  // tRAS + tRP
  t.tRRD_S = 4;
  t.tRRD_L = 6;
  t.tFAW = 30;
  t.tWR = 16;
  t.tWTR_S = 6;
  t.tWTR_L = 8;
  t.tRTP = 4;
  t.tREFI = 3900;
  return t;
}

// tCCD_S is one burst on the data bus; tCCD_L is two (Ramulator2's HBM3 presets: nCCDS 2, nCCDL 4 nCK
// with a 2-nCK burst).
void SetBurstTiming(HbmConfig* c) {
  double burst_ns = c->burst_length / c->data_rate_gbps;
  c->timing.tCCD_S = burst_ns;
  c->timing.tCCD_L = 2 * burst_ns;
}

}  // namespace

uint64_t NsToCycles(double ns, double core_ghz) {
  double cycles = ns * core_ghz;
  return static_cast<uint64_t>(std::ceil(cycles - 1e-9));
}

uint64_t NsToMilliCycles(double ns, double core_ghz) {
  double mc = ns * core_ghz * HbmCycles::kMilli;
  return static_cast<uint64_t>(std::ceil(mc - 1e-6));
}

double HbmConfig::PeakBytesPerSecond() const {
  return static_cast<double>(PseudoChannelCount()) * pc_dq_bits * data_rate_gbps * 1e9 / 8.0;
}

HbmCycles HbmConfig::Cycles() const {
  const HbmTimingNs& t = timing;
  const double f = core_clock_ghz;
  HbmCycles c;
  c.rcd = NsToCycles(t.tRCD, f);
  c.rp = NsToCycles(t.tRP, f);
  c.cl = NsToCycles(t.tCL, f);
  c.wl = NsToCycles(t.tWL, f);
  c.ras = NsToCycles(t.tRAS, f);
  c.rc = NsToCycles(t.tRC, f);
  c.rrd_s = NsToCycles(t.tRRD_S, f);
  c.rrd_l = NsToCycles(t.tRRD_L, f);
  c.faw = NsToCycles(t.tFAW, f);
  c.wr = NsToCycles(t.tWR, f);
  c.wtr_s = NsToCycles(t.tWTR_S, f);
  c.wtr_l = NsToCycles(t.tWTR_L, f);
  c.rtp = NsToCycles(t.tRTP, f);
  c.refi = NsToCycles(t.tREFI, f);
  c.rfc = NsToCycles(t.tRFC, f);
  c.rfcsb = NsToCycles(t.tRFCsb, f);
  c.rtw_gap = NsToCycles(2 * t.tCK, f);  // bus turnaround between read data and write data
  c.burst_mc = NsToMilliCycles(burst_length / data_rate_gbps, f);
  c.ccd_s_mc = std::max(c.burst_mc, NsToMilliCycles(t.tCCD_S, f));
  c.ccd_l_mc = std::max(c.ccd_s_mc, NsToMilliCycles(t.tCCD_L, f));
  return c;
}

std::string HbmConfig::Validate() const {
  std::ostringstream err;
  if (!IsPowerOfTwo(channels)) err << "channels must be a power of two (got " << channels << "); ";
  if (!IsPowerOfTwo(pseudo_channels)) err << "pseudo_channels must be a power of two; ";
  if (!IsPowerOfTwo(bank_groups)) err << "bank_groups must be a power of two; ";
  if (!IsPowerOfTwo(banks_per_group)) err << "banks_per_group must be a power of two; ";
  if (pc_dq_bits % 8 != 0 || pc_dq_bits == 0) err << "pc_dq_bits must be a nonzero multiple of 8; ";
  if (BurstBytes() != 32) err << "burst bytes (pc_dq_bits/8*burst_length) must be 32, got " << BurstBytes() << "; ";
  if (!IsPowerOfTwo(row_bytes) || row_bytes < BurstBytes()) err << "row_bytes must be a power of two >= 32; ";
  if (data_rate_gbps <= 0) err << "data_rate_gbps must be positive; ";
  if (core_clock_ghz <= 0) err << "core_clock_ghz must be positive; ";
  if (address_map != AddressMap::kXorHash && address_map != AddressMap::kLinear)
    err << "address_map must be kXorHash or kLinear (got " << static_cast<int>(address_map) << "); ";
  if (queue_depth < 2) err << "queue_depth must be >= 2 (a 64-byte request needs two slots); ";
  if (queue_depth > 65535) err << "queue_depth must be <= 65535 (the scheduler's same-atom counts are 16-bit); ";
  if (!IsPowerOfTwo(backing_page_bytes) || backing_page_bytes < 64)
    err << "backing_page_bytes must be a power of two >= 64; ";
  const uint64_t stride = CapacityStride();
  if (err.tellp() == 0 && (capacity_bytes == 0 || capacity_bytes % stride != 0))
    err << "capacity_bytes must be a nonzero multiple of " << stride << " (one row in every bank); ";
  if (timing.tRC < timing.tRAS) err << "tRC must be >= tRAS; ";
  if (refresh != RefreshMode::kOff && timing.tREFI <= timing.tRFC) err << "tREFI must exceed tRFC; ";
  std::string s = err.str();
  if (s.size() >= 2) s.resize(s.size() - 2);
  return s;
}

HbmConfig HbmConfig::Hbm2(uint64_t capacity_bytes) {
  HbmConfig c;
  c.name = "HBM2";
  c.standard = HbmStandard::kHbm2;
  c.channels = 8;
  c.pseudo_channels = 2;
  c.bank_groups = 4;
  c.banks_per_group = 4;
  c.row_bytes = 1024;
  c.pc_dq_bits = 64;
  c.burst_length = 4;
  c.data_rate_gbps = 2.0;
  c.capacity_bytes = capacity_bytes;
  c.timing = CoreArrayTiming();
  c.timing.tCK = 1.0;
  c.timing.tRFC = 350;  // 8 Gb per channel
  c.timing.tRFCsb = 160;
  SetBurstTiming(&c);
  return c;
}

HbmConfig HbmConfig::Hbm2e(uint64_t capacity_bytes) {
  HbmConfig c = Hbm2(capacity_bytes);
  c.name = "HBM2e";
  c.standard = HbmStandard::kHbm2e;
  c.data_rate_gbps = 3.2;
  c.timing.tCK = 0.625;
  c.timing.tRFC = 450;  // 16 Gb per channel
  c.timing.tRFCsb = 160;
  SetBurstTiming(&c);
  return c;
}

HbmConfig HbmConfig::Hbm3(uint64_t capacity_bytes) {
  HbmConfig c;
  c.name = "HBM3";
  c.standard = HbmStandard::kHbm3;
  c.channels = 16;
  c.pseudo_channels = 2;
  c.bank_groups = 4;
  c.banks_per_group = 4;
  c.row_bytes = 1024;
  c.pc_dq_bits = 32;
  c.burst_length = 8;
  c.data_rate_gbps = 6.4;
  c.capacity_bytes = capacity_bytes;
  c.timing = CoreArrayTiming();
  c.timing.tCK = 0.625;  // JESD238: CK = data rate / 4
  c.timing.tRFC = 350;   // 8 Gb per channel
  c.timing.tRFCsb = 200;
  SetBurstTiming(&c);
  return c;
}

const std::vector<HbmPreset>& HbmPresets() {
  static const std::vector<HbmPreset> presets{
      {"HBM2", [](uint64_t c) { return c ? HbmConfig::Hbm2(c) : HbmConfig::Hbm2(); }},
      {"HBM2e", [](uint64_t c) { return c ? HbmConfig::Hbm2e(c) : HbmConfig::Hbm2e(); }},
      {"HBM3", [](uint64_t c) { return c ? HbmConfig::Hbm3(c) : HbmConfig::Hbm3(); }},
  };
  return presets;
}

bool HbmConfig::FromName(const std::string& name, HbmConfig* out, uint64_t capacity_bytes) {
  const std::string n = Lower(name);
  for (const HbmPreset& p : HbmPresets()) {
    if (n == Lower(p.name)) {
      *out = p.make(capacity_bytes);
      return true;
    }
  }
  return false;
}

const char* RefreshModeName(RefreshMode mode) {
  switch (mode) {
    case RefreshMode::kPerBank:
      return "per-bank";
    case RefreshMode::kAllBank:
      return "all-bank";
    case RefreshMode::kOff:
      return "off";
  }
  return "?";
}

const char* AddressMapName(AddressMap map) {
  switch (map) {
    case AddressMap::kXorHash:
      return "xor-hash";
    case AddressMap::kLinear:
      return "linear";
  }
  return "?";
}

bool AddressMapFromName(const std::string& name, AddressMap* out) {
  const std::string n = Lower(name);
  for (AddressMap m : {AddressMap::kXorHash, AddressMap::kLinear}) {
    if (n == AddressMapName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

namespace {
constexpr RowHitCount kRowHitCounts[] = {RowHitCount::kSinceActivate, RowHitCount::kBypasses};
}  // namespace

const char* RowHitCountName(RowHitCount count) {
  switch (count) {
    case RowHitCount::kSinceActivate:
      return "since-act";
    case RowHitCount::kBypasses:
      return "bypasses";
  }
  return "?";
}

bool RowHitCountFromName(const std::string& name, RowHitCount* out) {
  const std::string n = Lower(name);
  for (RowHitCount c : kRowHitCounts) {
    if (n == RowHitCountName(c)) {
      *out = c;
      return true;
    }
  }
  return false;
}

std::string RowHitCountChoices() {
  std::string s;
  for (RowHitCount c : kRowHitCounts) s += (s.empty() ? "" : ", ") + std::string(RowHitCountName(c));
  return s;
}

}  // namespace strata::hbm
