// Address interleaving for the HBM model: bit fields from the burst offset up to the row.
#include "hbm/hbm_address_map.h"

#include <sstream>

namespace strata::hbm {
namespace {

uint32_t Log2(uint64_t v) {
  uint32_t n = 0;
  while ((1ull << n) < v) ++n;
  return n;
}

}  // namespace

HbmAddressMap::HbmAddressMap(const HbmConfig& c)
    : pc_bits_(Log2(c.pseudo_channels)),
      ch_bits_(Log2(c.channels)),
      bg_bits_(Log2(c.bank_groups)),
      col_bits_(Log2(c.row_bytes / 32)),
      bank_bits_(Log2(c.banks_per_group)) {
  pc_mask_ = (1ull << pc_bits_) - 1;
  ch_mask_ = (1ull << ch_bits_) - 1;
  bg_mask_ = (1ull << bg_bits_) - 1;
  col_mask_ = (1ull << col_bits_) - 1;
  bank_mask_ = (1ull << bank_bits_) - 1;
  uint64_t stride = static_cast<uint64_t>(c.PseudoChannelCount()) * c.BanksPerPseudoChannel() * c.row_bytes;
  rows_per_bank_ = stride ? c.capacity_bytes / stride : 0;
}

uint64_t HbmAddressMap::Encode(const HbmLocation& l) const {
  uint64_t a = l.row;
  a = (a << bank_bits_) | (l.bank & bank_mask_);
  a = (a << col_bits_) | (l.column & col_mask_);
  a = (a << bg_bits_) | (l.bank_group & bg_mask_);
  a = (a << ch_bits_) | (l.channel & ch_mask_);
  a = (a << pc_bits_) | (l.pseudo_channel & pc_mask_);
  return a << kBurstBits;
}

std::string HbmAddressMap::Describe() const {
  std::ostringstream os;
  uint32_t lo = 0;
  auto field = [&](const char* name, uint32_t bits) {
    if (bits == 0) return;
    os << name << " [" << (lo + bits - 1) << ":" << lo << "]\n";
    lo += bits;
  };
  field("burst offset", kBurstBits);
  field("pseudo-channel", pc_bits_);
  field("channel", ch_bits_);
  field("bank group", bg_bits_);
  field("column", col_bits_);
  field("bank", bank_bits_);
  os << "row ["
     << "63:" << lo << "] (" << rows_per_bank_ << " rows per bank)\n";
  return os.str();
}

}  // namespace strata::hbm
