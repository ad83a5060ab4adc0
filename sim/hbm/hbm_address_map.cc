// Address interleaving for the HBM model: bit fields from the burst offset up to the row, optionally
// XOR-hashed (see HbmAddressMap).
#include "hbm/hbm_address_map.h"

#include <algorithm>
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
    : hashed_(c.address_map == AddressMap::kXorHash),
      pc_bits_(Log2(c.pseudo_channels)),
      ch_bits_(Log2(c.channels)),
      pc_ch_bits_(pc_bits_ + ch_bits_),
      bg_bits_(Log2(c.bank_groups)),
      col_bits_(Log2(c.row_bytes / 32)),
      bank_bits_(Log2(c.banks_per_group)),
      col_fold_bits_(std::min(2u, pc_ch_bits_)) {
  pc_mask_ = (1u << pc_bits_) - 1;
  ch_mask_ = (1u << ch_bits_) - 1;
  bg_mask_ = (1u << bg_bits_) - 1;
  col_mask_ = (1u << col_bits_) - 1;
  bank_mask_ = (1u << bank_bits_) - 1;
  uint64_t stride = static_cast<uint64_t>(c.PseudoChannelCount()) * c.BanksPerPseudoChannel() * c.row_bytes;
  rows_per_bank_ = stride ? c.capacity_bytes / stride : 0;
  low_fold_.resize(size_t{1} << (col_bits_ + bg_bits_));
  for (uint32_t column = 0; column <= col_mask_; ++column) {
    for (uint32_t group = 0; group <= bg_mask_; ++group) {
      low_fold_[(column << bg_bits_) | group] = Fold(group, pc_ch_bits_) ^ Fold(column, col_fold_bits_);
    }
  }
  low_bits_ = pc_ch_bits_ + bg_bits_ + col_bits_;
  low_mask_ = (uint64_t{1} << low_bits_) - 1;
}

HbmPlace HbmAddressMap::PlaceFirst(uint64_t addr) const {
  if (low_bits_ > kMaxLowBits) {
    const HbmLocation l = Decode(addr);
    return HbmPlace{l.pc_index, l.bank_index, l.bank_group, l.column, l.row};
  }
  low_.resize(size_t{1} << low_bits_);
  for (uint64_t i = 0; i <= low_mask_; ++i) {
    // The pseudo-channel bits, then the channel bits: the linear pc_index (channel << pc_bits | pseudo-channel).
    const uint32_t linear = static_cast<uint32_t>(i & ((1u << pc_ch_bits_) - 1));
    const uint32_t group = static_cast<uint32_t>((i >> pc_ch_bits_) & bg_mask_);
    const uint32_t column = static_cast<uint32_t>((i >> (pc_ch_bits_ + bg_bits_)) & col_mask_);
    LowPlace& p = low_[i];
    p.pc_index = linear ^ (hashed_ ? PcIndexTerm(low_fold_[(column << bg_bits_) | group]) : 0);
    p.bank_group = group;
    p.bank_index = group << bank_bits_;
    p.column = column;
  }
  return Place(addr);
}

const HbmAddressMap::UpperHash& HbmAddressMap::Remember(uint64_t key, uint64_t row) const {
  UpperHash& u = upper_[upper_next_];
  upper_next_ = (upper_next_ + 1) % kUpperEntries;
  u.key = key;
  u.channel_fold = Fold(key << bg_bits_, pc_ch_bits_);
  u.bank_fold = BankFold(row);
  const uint32_t bank = static_cast<uint32_t>(key & bank_mask_);
  if (hashed_) {
    u.pc_index = PcIndexTerm(u.channel_fold);
    u.bank_group = u.bank_fold & bg_mask_;
    u.bank_index = (u.bank_group << bank_bits_) | (bank ^ ((u.bank_fold >> bg_bits_) & bank_mask_));
  } else {
    u.pc_index = 0;
    u.bank_group = 0;
    u.bank_index = bank;
  }
  return u;
}

uint64_t HbmAddressMap::Encode(const HbmLocation& location) const {
  HbmLocation l = location;
  l.pseudo_channel &= pc_mask_;
  l.channel &= ch_mask_;
  l.bank_group &= bg_mask_;
  l.column &= col_mask_;
  l.bank &= bank_mask_;
  if (hashed_) {
    HashBanks(&l);
    HashChannel(&l);
  }
  uint64_t a = l.row;
  a = (a << bank_bits_) | l.bank;
  a = (a << col_bits_) | l.column;
  a = (a << bg_bits_) | l.bank_group;
  a = (a << ch_bits_) | l.channel;
  a = (a << pc_bits_) | l.pseudo_channel;
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
  if (hashed_) {
    os << "xor-hash: {pseudo-channel, channel} ^= fold" << pc_ch_bits_ << "(bank group, bank, row)\n"
       << "xor-hash: channel ^= fold" << col_fold_bits_ << "(column)\n"
       << "xor-hash: {bank, bank group} ^= fold" << (bg_bits_ + bank_bits_) << "(row ^ row >> 1)\n";
  }
  return os.str();
}

}  // namespace strata::hbm
