// Physical address -> (channel, pseudo-channel, bank group, bank, row, column) for the HBM model.
#ifndef STRATA_SIM_HBM_HBM_ADDRESS_MAP_H_
#define STRATA_SIM_HBM_HBM_ADDRESS_MAP_H_

#include <cstdint>
#include <string>

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

// Fields from the least significant bit up (see docs/hbm.md for the picture):
//   burst offset (5 bits: 32 B) | pseudo-channel | channel | bank group | column | bank | row
// Consecutive 32-byte bursts walk the pseudo-channels and channels first (every data bus works on a
// stream), then the bank groups (back-to-back bursts in one pseudo-channel alternate bank groups,
// so tCCD_L never paces a stream), then the columns of the open rows (row hits), then the banks.
// The row is the remaining high part, so capacity need not be a power of two.
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
    l.pc_index = (l.channel << pc_bits_) | l.pseudo_channel;
    l.bank_index = (l.bank_group << bank_bits_) | l.bank;
    return l;
  }
  // Inverse of Decode (burst offset 0).
  uint64_t Encode(const HbmLocation& l) const;
  // One line per field: name, bit range.
  std::string Describe() const;
  uint64_t rows_per_bank() const { return rows_per_bank_; }

  static constexpr uint32_t kBurstBits = 5;  // 32-byte column access

 private:
  uint32_t pc_bits_, ch_bits_, bg_bits_, col_bits_, bank_bits_;
  uint64_t pc_mask_, ch_mask_, bg_mask_, col_mask_, bank_mask_;
  uint64_t rows_per_bank_;
};

}  // namespace strata::hbm

#endif  // STRATA_SIM_HBM_HBM_ADDRESS_MAP_H_
