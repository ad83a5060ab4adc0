// Physical address -> (channel, pseudo-channel, bank group, bank, row, column) for the HBM model.
#ifndef STRATA_SIM_HBM_HBM_ADDRESS_MAP_H_
#define STRATA_SIM_HBM_HBM_ADDRESS_MAP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hbm/hbm_config.h"

namespace strata::hbm {

struct HbmLocation {
  uint32_t channel = 0;
  uint32_t pseudo_channel = 0;
  uint32_t pc_index = 0;  // channel * pseudo_channels + pseudo_channel
  uint32_t bank_group = 0;
  uint32_t bank = 0;        // within its bank group
  uint32_t bank_index = 0;  // bank_group * banks_per_group + bank, within the pseudo-channel
  uint64_t row = 0;
  uint32_t column = 0;  // in 32-byte bursts within the row
};

// What the controller's queues need of a location (HbmLocation's pc_index, bank_index, bank_group,
// row and column): HbmAddressMap::Place computes it with two lookups.
struct HbmPlace {
  uint32_t pc_index;
  uint32_t bank_index;
  uint32_t bank_group;
  uint32_t column;
  uint64_t row;
};

// The linear fields, from the least significant bit up (see docs/hbm.md for the picture):
//   burst offset (5 bits: 32 B) | pseudo-channel | channel | bank group | column | bank | row
// Consecutive 32-byte bursts walk the pseudo-channels and channels first (every data bus works on a
// stream), then the bank groups (back-to-back bursts in one pseudo-channel alternate bank groups,
// so tCCD_L never paces a stream), then the columns of the open rows (row hits), then the banks.
// The row is the remaining high part, so capacity need not be a power of two.
//
// AddressMap::kXorHash (the default) keeps those fields and XORs into some of them a fold (the
// bits cut into groups as wide as the target, XORed together) of fields above them:
//   {pseudo-channel, channel} ^= fold(bank group, bank, row)   (channel bits first)
//   channel[1:0]              ^= fold2(column)
//   {bank, bank group}        ^= fold(row ^ row >> 1)           (bank-group bits first)
// A fold is one-to-one on any run of target-width consecutive bits, so power-of-two strides walk
// all channels instead of one, and strides of whole rows walk all banks (row ^ row >> 1, the Gray
// code, is one-to-one on aligned runs of rows too). The column reaches only
// two channel bits so that each opened row still holds 8 of its 32 columns for a strided stream
// (at most 4 channels share one row's columns): tFAW allows an ACT per 4 bursts, so fewer hits
// per ACT would leave the stream ACT-bound; and it lands on the channel bits the bank group also
// reaches, so a channel's share of a 512 B stride is not all in one bank group (tCCD_L). Each
// hashed field is changed only by fields the hash leaves alone (row and column are never
// changed), so the map is a permutation: Encode undoes it, and capacity still need not be a power
// of two.
//
// Decode remembers the last few bank-and-row hashes it computed (a const method with a mutable memo):
// one map serves one thread, as each HbmModel owns its own.
class HbmAddressMap {
 public:
  explicit HbmAddressMap(const HbmConfig& config);

  HbmLocation Decode(uint64_t addr) const {
    HbmLocation l;
    uint64_t a = addr >> kBurstBits;
    l.pseudo_channel = static_cast<uint32_t>(a & pc_mask_);
    a >>= pc_bits_;
    l.channel = static_cast<uint32_t>(a & ch_mask_);
    a >>= ch_bits_;
    l.bank_group = static_cast<uint32_t>(a & bg_mask_);
    a >>= bg_bits_;
    l.column = static_cast<uint32_t>(a & col_mask_);
    a >>= col_bits_;
    l.bank = static_cast<uint32_t>(a & bank_mask_);
    a >>= bank_bits_;
    l.row = a;
    if (hashed_) {
      // HashChannel then HashBanks, with the part of both hashes that depends only on the bank and
      // row bits (above the column) remembered: a stream decodes thousands of atoms in a row of
      // them, and the folds were a tenth of the HBM model's time in a copy.
      const uint64_t key = addr >> (kBurstBits + pc_ch_bits_ + bg_bits_ + col_bits_);
      const UpperHash& u = Upper(key, l.row);
      const uint32_t x = u.channel_fold ^ low_fold_[(l.column << bg_bits_) | l.bank_group];
      l.channel ^= x & ch_mask_;
      l.pseudo_channel ^= (x >> ch_bits_) & pc_mask_;
      l.bank_group ^= u.bank_fold & bg_mask_;
      l.bank ^= (u.bank_fold >> bg_bits_) & bank_mask_;
    }
    l.pc_index = (l.channel << pc_bits_) | l.pseudo_channel;
    l.bank_index = (l.bank_group << bank_bits_) | l.bank;
    return l;
  }
  // Decode's pc_index, bank_index, bank_group, row and column, from a table of the fields below the
  // bank (pseudo-channel, channel, bank group, column: their linear values and the part of the
  // hash they contribute) and a memo of the part above (bank, row and their folds). Every hash term
  // is an XOR, so the two parts combine by XOR. The HBM model places every atom it queues with it.
  HbmPlace Place(uint64_t addr) const {
    if (low_.empty()) return PlaceFirst(addr);
    const LowPlace& lo = low_[(addr >> kBurstBits) & low_mask_];
    const uint64_t key = addr >> (kBurstBits + low_bits_);
    const UpperHash& u = Upper(key, key >> bank_bits_);
    return HbmPlace{lo.pc_index ^ u.pc_index, lo.bank_index ^ u.bank_index, lo.bank_group ^ u.bank_group, lo.column,
                    key >> bank_bits_};
  }
  // Inverse of Decode (burst offset 0).
  uint64_t Encode(const HbmLocation& l) const;
  // One line per field: name, bit range, and the hash when there is one.
  std::string Describe() const;
  uint64_t rows_per_bank() const { return rows_per_bank_; }

  static constexpr uint32_t kBurstBits = 5;  // 32-byte column access

 private:
  // XOR of the `bits`-wide groups of x; one-to-one on any `bits` consecutive bits of x.
  static uint32_t Fold(uint64_t x, uint32_t bits) {
    if (bits == 0) return 0;
    const uint64_t mask = (1ull << bits) - 1;
    uint64_t r = 0;
    for (; x != 0; x >>= bits) r ^= x & mask;
    return static_cast<uint32_t>(r);
  }
  // The XOR hash. Decode applies HashChannel then HashBanks to the linear fields; each is its own
  // inverse given the fields it reads (HashChannel reads the bank group and bank before their
  // hash, HashBanks the row), so Encode undoes them in the opposite order.
  void HashChannel(HbmLocation* l) const {
    const uint64_t above =
        l->bank_group | (static_cast<uint64_t>(l->bank) << bg_bits_) | (l->row << (bg_bits_ + bank_bits_));
    const uint32_t x = Fold(above, pc_ch_bits_) ^ Fold(l->column, col_fold_bits_);
    l->channel ^= x & ch_mask_;
    l->pseudo_channel ^= (x >> ch_bits_) & pc_mask_;
  }
  // The bank hash of a row: its Gray code folded. Consecutive rows differ in one bit of the Gray code,
  // so in one bit of the fold, so the first bank of a stream's next row is never the last bank it is
  // still reading in this row (with the plain row, every eighth row did that, and sequential streams
  // lost 0.3%).
  uint32_t BankFold(uint64_t row) const { return Fold(row ^ (row >> 1), bg_bits_ + bank_bits_); }
  void HashBanks(HbmLocation* l) const {
    const uint32_t h = BankFold(l->row);
    l->bank_group ^= h & bg_mask_;
    l->bank ^= (h >> bg_bits_) & bank_mask_;
  }

  // The folds of one bank-and-row value (Decode), and what they XOR into Place's fields (with the
  // linear bank); the key ~0 is no address's.
  struct UpperHash {
    uint64_t key = ~0ull;
    uint32_t channel_fold = 0, bank_fold = 0;
    uint32_t pc_index = 0, bank_index = 0, bank_group = 0;
  };
  // Place's table entry for the fields below the bank: the linear pseudo-channel index XOR the low
  // fold's share of the channel hash, the linear bank group (and its bank-index share), the column.
  struct LowPlace {
    uint32_t pc_index = 0, bank_index = 0, bank_group = 0, column = 0;
  };
  static constexpr uint32_t kMaxLowBits = 14;  // Place's table: at most 16 Ki entries
  // The pc_index term of a channel-hash value x (its low ch_bits go to the channel, the next
  // pc_bits to the pseudo-channel).
  uint32_t PcIndexTerm(uint32_t x) const { return ((x & ch_mask_) << pc_bits_) | ((x >> ch_bits_) & pc_mask_); }
  // Fully associative: a copy's read and write streams (and a third or fourth) stay remembered
  // whatever the distance between them; the oldest entry makes room.
  static constexpr uint32_t kUpperEntries = 4;
  const UpperHash& Upper(uint64_t key, uint64_t row) const {
    for (const UpperHash& u : upper_) {
      if (u.key == key) return u;
    }
    return Remember(key, row);
  }
  const UpperHash& Remember(uint64_t key, uint64_t row) const;
  // Place's first call builds the table (a map used only for Decode never does); a map with more
  // than kMaxLowBits below the bank has none, and places every address with Decode.
  HbmPlace PlaceFirst(uint64_t addr) const;

  bool hashed_;
  mutable UpperHash upper_[kUpperEntries];
  mutable uint32_t upper_next_ = 0;  // the entry Remember replaces
  // The rest of the channel hash, a function of the bank group and column alone: indexed by
  // column << bg_bits | bank group (Decode).
  std::vector<uint32_t> low_fold_;
  mutable std::vector<LowPlace> low_;  // Place's table, by the address bits below the bank; empty: not built
  uint32_t low_bits_ = 0;
  uint64_t low_mask_ = 0;
  uint32_t pc_bits_, ch_bits_, pc_ch_bits_, bg_bits_, col_bits_, bank_bits_, col_fold_bits_;
  uint32_t pc_mask_, ch_mask_, bg_mask_, col_mask_, bank_mask_;
  uint64_t rows_per_bank_;
};

}  // namespace strata::hbm

#endif  // STRATA_SIM_HBM_HBM_ADDRESS_MAP_H_
