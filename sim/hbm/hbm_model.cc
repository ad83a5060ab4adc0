// HBM model: per-pseudo-channel FR-FCFS controller, bank timing state machine, refresh, data path.
#include "hbm/hbm_model.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace strata::hbm {

const char* HbmCommandName(HbmCommandKind kind) {
  switch (kind) {
    case HbmCommandKind::kActivate:
      return "ACT";
    case HbmCommandKind::kPrecharge:
      return "PRE";
    case HbmCommandKind::kRead:
      return "RD";
    case HbmCommandKind::kWrite:
      return "WR";
    case HbmCommandKind::kRefreshAll:
      return "REFab";
    case HbmCommandKind::kRefreshBank:
      return "REFsb";
  }
  return "?";
}

namespace {

HbmConfig Checked(const HbmConfig& config) {
  std::string err = config.Validate();
  if (!err.empty()) throw std::invalid_argument("HbmConfig " + config.name + ": " + err);
  if (config.BanksPerPseudoChannel() > 64)
    throw std::invalid_argument("HbmConfig: at most 64 banks per pseudo-channel");
  return config;
}

}  // namespace

HbmModel::HbmModel(const HbmConfig& config)
    : config_(Checked(config)),
      cyc_(config_.Cycles()),
      map_(config_),
      memory_(config_.capacity_bytes, config_.backing_page_bytes, config_.fill_byte) {
  const uint32_t npc = config_.PseudoChannelCount();
  const uint32_t nbanks = config_.BanksPerPseudoChannel();
  refi_bank_ = std::max<uint64_t>(1, NsToCycles(config_.timing.tREFI / nbanks, config_.core_clock_ghz));
  while ((1u << group_shift_) < config_.banks_per_group) ++group_shift_;
  // A response completes by cycle now + 1 + max(CL, WL) + the burst (its last atom issues before
  // now + 1; see IssueColumn), so buckets for that many cycles ahead, plus this one, suffice.
  const uint64_t reach = 2 + std::max(cyc_.cl, cyc_.wl) + cyc_.BurstCycles();
  uint64_t ring = 1;
  while (ring <= reach) ring <<= 1;
  completion_ring_.resize(ring);
  head_bound_ = HeadWaitBound();
  completion_mask_ = ring - 1;
  pcs_.resize(npc);
  for (uint32_t i = 0; i < npc; ++i) {
    PseudoChannel& pc = pcs_[i];
    pc.slots.resize(config_.queue_depth);
    pc.free_slots.reserve(config_.queue_depth);
    for (uint32_t k = config_.queue_depth; k-- > 0;) pc.free_slots.push_back(k);
    pc.banks.resize(nbanks);
    for (Bank& b : pc.banks) b.queue.reserve(config_.queue_depth);
    pc.groups.resize(config_.bank_groups);
    // Refresh is aligned across pseudo-channels, not staggered: an in-order stream stalls on
    // whichever pseudo-channel is refreshing, so staggered refreshes would each cost the whole
    // device tRFC, while aligned ones cost it once per tREFI.
    pc.next_refresh = config_.refresh == RefreshMode::kAllBank ? cyc_.refi : refi_bank_;
  }
  UpdateNextRefresh();
}

std::string HbmModel::CheckRequest(const HbmRequest& r) const {
  const std::string line = std::to_string(kMaxRequestBytes);
  if (r.len == 0 || r.len > kMaxRequestBytes) return "len must be 1.." + line + " (got " + std::to_string(r.len) + ")";
  if ((r.addr % kMaxRequestBytes) + r.len > kMaxRequestBytes)
    return "request at " + std::to_string(r.addr) + " len " + std::to_string(r.len) + " crosses a " + line +
           "-byte boundary";
  if (!memory_.InRange(r.addr, r.len))
    return "request at " + std::to_string(r.addr) + " len " + std::to_string(r.len) + " is outside capacity " +
           std::to_string(config_.capacity_bytes);
  return "";
}

bool HbmModel::RoomFor(const HbmPlace* atoms, uint32_t n) const {
  const uint32_t a = atoms[0].pc_index;
  if (n == 1) return pcs_[a].queued < config_.queue_depth;
  const uint32_t b = atoms[1].pc_index;
  if (a == b) return pcs_[a].queued + 2 <= config_.queue_depth;
  return pcs_[a].queued < config_.queue_depth && pcs_[b].queued < config_.queue_depth;
}

uint32_t HbmModel::PlaceAtoms(uint64_t addr, uint32_t len, HbmPlace* atoms) const {
  const uint64_t first = addr & ~31ull, last = (addr + len - 1) & ~31ull;
  atoms[0] = map_.Place(first);
  if (last == first) return 1;
  atoms[1] = map_.Place(last);
  return 2;
}

bool HbmModel::CanAccept(uint64_t addr, uint32_t len) const {
  if (len == 0) return false;
  HbmPlace atoms[2];
  const uint32_t n = PlaceAtoms(addr, len, atoms);
  return RoomFor(atoms, n);
}

bool HbmModel::Submit(const HbmRequest& r) {
  // CheckRequest's conditions, without building its message unless one fails.
  if (r.len == 0 || r.len > kMaxRequestBytes || (r.addr % kMaxRequestBytes) + r.len > kMaxRequestBytes ||
      !memory_.InRange(r.addr, r.len)) {
    throw std::invalid_argument("HbmModel::Submit: " + CheckRequest(r));
  }
  // A producer retries a rejected request every cycle: until a column command frees a slot, the
  // answer stays no (queues only fill), and is given without placing the atoms again.
  if (r.addr == rejected_.addr && r.len == rejected_.len && columns_issued_ == rejected_.columns_issued) {
    ++pcs_[rejected_.pc_index].stats.rejected_full;
    return false;
  }
  // A request holds one or two 32-byte atoms (it does not cross a 64-byte boundary); each is
  // placed once, for the room check and for its queue entry.
  HbmPlace atoms[2];
  const uint32_t n = PlaceAtoms(r.addr, r.len, atoms);
  if (!RoomFor(atoms, n)) {
    ++pcs_[atoms[0].pc_index].stats.rejected_full;
    rejected_ = Rejected{r.addr, r.len, columns_issued_, atoms[0].pc_index};
    return false;
  }

  uint32_t ti;
  if (!free_trackers_.empty()) {
    ti = free_trackers_.back();
    free_trackers_.pop_back();
  } else {
    ti = static_cast<uint32_t>(trackers_.size());
    trackers_.emplace_back();
  }
  Tracker& t = trackers_[ti];
  t.response.tag = r.tag;
  t.response.addr = r.addr;
  t.response.len = r.len;
  t.response.is_write = r.is_write;
  t.response.submit_cycle = now_;
  t.response.completion_cycle = 0;
  t.completion_mc = 0;
  t.atoms_left = 0;
  if (r.is_write) {
    t.write_data = r.data;
    t.byte_enable = r.len == kMaxRequestBytes ? r.byte_enable : r.byte_enable & ((1ull << r.len) - 1);
  }
  ++outstanding_;

  for (uint32_t i = 0; i < n; ++i) {
    const HbmPlace& loc = atoms[i];
    const uint64_t atom = (r.addr & ~31ull) + 32ull * i;
    PseudoChannel& pc = pcs_[loc.pc_index];
    const uint32_t slot = pc.free_slots.back();
    pc.free_slots.pop_back();
    Entry& e = pc.slots[slot];
    e.seq = ++seq_;
    e.submit_cycle = now_;
    e.atom_addr = atom;
    e.row = loc.row;
    e.tracker = ti;
    e.column = loc.column;
    e.bank = static_cast<uint16_t>(loc.bank_index);
    e.bank_group = static_cast<uint8_t>(loc.bank_group);
    e.is_write = r.is_write;
    e.row_cause = 0;
    e.deps = 0;
    e.dependents = 0;
    Bank& bank = pc.banks[e.bank];
    if (pc.queued == 0) pc.head_since = now_;  // the oldest access from now on
    // Same-atom ordering: count older accesses this one must not overtake (an atom has one bank),
    // and count this one among the accesses waiting for each of them.
    uint16_t& bucket = pc.atom_buckets[AtomBucket(atom)];
    if (bucket != 0) {
      for (uint32_t o : bank.queue) {
        Entry& y = pc.slots[o];
        if (y.atom_addr == atom && (y.is_write || r.is_write)) {
          ++e.deps;
          ++y.dependents;
        }
      }
    }
    ++bucket;
    if (e.deps == 0) {
      ++bank.unblocked[e.is_write];
      ++pc.unblocked[e.is_write];
    }
    ++bank.queued;
    const bool hit = bank.open && bank.row == e.row;
    if (hit) {
      ++bank.queued_hits;
    } else {
      ++pc.non_hits;
      pc.row_wake = 0;
    }
    bank.queue.push_back(slot);
    pc.age.push_back(PseudoChannel::Age{e.seq, slot});
    if (bank.queue.size() == 1) UpdateRowAsker(pc, e.bank);
    // The new access is the youngest of its bank: it changes no older offer, and becomes its
    // direction's offer if that has none and it is an eligible hit (see FindOffers).
    if (((pc.stale_banks >> e.bank) & 1) == 0 && hit && e.deps == 0 && bank.offers[e.is_write].seq == ~0ull) {
      const bool behind_other_row = bank.queued != bank.queued_hits;
      if (!(behind_other_row && Capped(bank))) {
        SetOffer(pc, e.bank, e.is_write, Offer{e.seq, static_cast<uint32_t>(bank.queue.size() - 1), behind_other_row});
      }
    }
    // The pseudo-channel wakes for it: a hit once the bus allows a column command, an access to
    // another row at once (a row command may be due).
    pc.column_wake = 0;
    pc.sleep_until = std::min(pc.sleep_until, hit ? std::max(pc.bus_wake, now_) : now_);
    ++pc.queued;
    ++queued_atoms_;
    ++t.atoms_left;
  }
  return true;
}

uint64_t HbmModel::HeadWaitBound() const {
  const uint64_t refresh = config_.refresh == RefreshMode::kOff ? 0 : std::max(cyc_.rfc, cyc_.rfcsb);
  const uint64_t burst = cyc_.BurstCycles();
  // Closing the open row (tRAS since its ACT, or tWR after write data, then tRP), a refresh of the
  // bank (its own tFAW wait, tRFC), the promoted access's ACT (tFAW, tRRD_L behind other banks'),
  // tRCD, then the bus: turnaround (write data + tWTR_L, or the read-to-write gap), CL/WL and the
  // burst. 8 cycles of rounding slack (each timing is rounded up separately in the model).
  return config_.starvation_cycles + std::max(cyc_.ras, cyc_.wl + burst + cyc_.wr) + cyc_.rp + cyc_.faw + refresh +
         cyc_.faw + cyc_.rrd_l + cyc_.rcd + cyc_.wl + burst + std::max(cyc_.wtr_l, cyc_.rtw_gap) +
         std::max(cyc_.cl, cyc_.wl) + 2 * burst + 8;
}

std::string HbmModel::DescribeStall(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  const Entry& e = pc.slots[OldestSlot(pc)];
  const Bank& bank = pc.banks[e.bank];
  std::string s = "HbmModel: liveness bound broken: pseudo-channel " + std::to_string(pi) + "'s oldest access (" +
                  (e.is_write ? "write" : "read") + " to bank " + std::to_string(e.bank) + " row " +
                  std::to_string(e.row) + ", submitted at cycle " + std::to_string(e.submit_cycle) + ") has waited " +
                  std::to_string(now - pc.head_since) + " cycles as the oldest, past the bound " +
                  std::to_string(head_bound_) + " (cycle " + std::to_string(now) +
                  "); bank: " + (bank.open ? "open row " + std::to_string(bank.row) : std::string("closed")) +
                  ", queued " + std::to_string(bank.queued) + " (hits " + std::to_string(bank.queued_hits) +
                  "), capped columns " + std::to_string(bank.cap_count) + ", act_ok " + std::to_string(bank.act_ok) +
                  " pre_ok " + std::to_string(bank.pre_ok) + " col_ok " + std::to_string(bank.col_ok) +
                  " (milli-cycles); pseudo-channel: queued " + std::to_string(pc.queued) + ", row_wake " +
                  std::to_string(pc.row_wake) + ", column_wake " + std::to_string(pc.column_wake) + ", refresh " +
                  (pc.refresh_pending ? "pending on bank " + std::to_string(pc.refresh_bank) : "idle") + ", bus " +
                  (pc.last_write ? "writing" : "reading");
  return s;
}

uint64_t HbmModel::RowHitLatency(bool write) const {
  uint64_t mc = (write ? cyc_.wl : cyc_.cl) * kM + cyc_.burst_mc;
  return (mc + kM - 1) / kM;
}

void HbmModel::Tick() {
  const uint64_t now = now_;
  if (queued_atoms_ != 0 || now >= next_refresh_min_) {
    bool refresh_event = false;
    for (uint32_t i = 0; i < pcs_.size(); ++i) {
      PseudoChannel& pc = pcs_[i];
      if (pc.queued == 0 && !pc.refresh_pending && now < pc.next_refresh) continue;
      if (now < pc.sleep_until) {
        if (pc.queued != 0) ++pc.stats.busy_cycles;
        continue;
      }
      bool was_pending = pc.refresh_pending;
      uint64_t due = pc.next_refresh;
      TickPseudoChannel(i, now);
      refresh_event |= (was_pending != pc.refresh_pending) || due != pc.next_refresh;
    }
    if (refresh_event) UpdateNextRefresh();
  }
  std::vector<uint32_t>& bucket = completion_ring_[now & completion_mask_];
  if (bucket.size() > 1) std::sort(bucket.begin(), bucket.end());
  // A callback's Submit may reuse a tracker freed here, but never touches the ring.
  for (const uint32_t ti : bucket) {
    free_trackers_.push_back(ti);
    if (on_response_) {
      // Copy first: the callback may Submit, which can reuse this tracker or grow the pool.
      HbmResponse response = trackers_[ti].response;
      --outstanding_;
      on_response_(response);
    } else {
      ready_.push_back(trackers_[ti].response);  // still outstanding until popped
    }
  }
  completions_pending_ -= bucket.size();
  bucket.clear();
  now_ = now + 1;
}

uint64_t HbmModel::RunUntilIdle(uint64_t max_cycles) {
  uint64_t n = 0;
  while (!Idle() && n < max_cycles) {
    Tick();
    ++n;
  }
  return n;
}

bool HbmModel::PopResponse(HbmResponse* out) {
  if (ready_.empty()) return false;
  *out = ready_.front();
  ready_.pop_front();
  --outstanding_;
  return true;
}

void HbmModel::UpdateNextRefresh() {
  next_refresh_min_ = ~0ull;
  if (config_.refresh == RefreshMode::kOff) return;
  for (const PseudoChannel& pc : pcs_) {
    next_refresh_min_ = std::min(next_refresh_min_, pc.refresh_pending ? now_ : pc.next_refresh);
  }
}

void HbmModel::TickPseudoChannel(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  if (pc.queued != 0) ++pc.stats.busy_cycles;
  // Liveness: the scheduler's rules serve the oldest access within HeadWaitBound() of its becoming
  // the oldest. A wait past that is a scheduler bug, reported with the state that caused it.
  if (pc.queued != 0 && now - pc.head_since > head_bound_) throw std::logic_error(DescribeStall(pi, now));
  bool row_slot_used = false;
  if (config_.refresh != RefreshMode::kOff && (pc.refresh_pending || now >= pc.next_refresh)) {
    const bool was_pending = pc.refresh_pending;
    row_slot_used = HandleRefresh(pi, now);
    // A refresh that starts or ends blocks or frees a bank for the column scheduler.
    if (row_slot_used || was_pending != pc.refresh_pending) pc.column_wake = 0;
  }
  // Column commands: normally one per cycle; more only if a burst is shorter than a core cycle.
  for (int i = 0; i < 8 && pc.queued != 0 && now >= std::max(pc.bus_wake, pc.column_wake); ++i) {
    if (!TryColumn(pi, now)) break;
  }
  if (row_slot_used) pc.row_wake = 0;
  if (!row_slot_used && pc.non_hits != 0 && now * kM >= pc.row_wake) TryRowCommand(pi, now);
  // The next cycle in which any of the three could act, if no Submit comes first.
  uint64_t wake = ~0ull;
  if (pc.queued != 0) {
    wake = std::max({now + 1, pc.bus_wake, pc.column_wake});
    wake = std::min(wake, pc.head_since + head_bound_ + 1);  // the liveness check above runs in time
  }
  if (pc.non_hits != 0) wake = std::min(wake, std::max(now + 1, (pc.row_wake + kM - 1) / kM));
  if (config_.refresh != RefreshMode::kOff) {
    wake = std::min(wake, pc.refresh_pending ? now + 1 : std::max(now + 1, pc.next_refresh));
  }
  pc.sleep_until = wake;
}

bool HbmModel::FawAllows(const PseudoChannel& pc, uint64_t t_mc) const {
  if (pc.faw_count < 4) return true;
  return pc.faw[pc.faw_next] + cyc_.faw * kM <= t_mc;  // faw_next holds the oldest of the last four
}

void HbmModel::RecordAct(PseudoChannel& pc, uint64_t t_mc) {
  pc.faw[pc.faw_next] = t_mc;
  pc.faw_next = (pc.faw_next + 1) & 3;
  if (pc.faw_count < 4) ++pc.faw_count;
}

void HbmModel::ChooseRefreshBank(PseudoChannel& pc) {
  const uint32_t n = static_cast<uint32_t>(pc.banks.size());
  const uint64_t all = n == 64 ? ~0ull : ((1ull << n) - 1);
  if ((pc.refreshed_mask & all) == all) pc.refreshed_mask = 0;
  // Every bank once per round (tREFI); within a round, prefer a bank nobody is waiting for, and a
  // closed one over an open one, so refresh hides behind traffic to the other banks.
  int pick = -1, idle_open = -1, first = -1;
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t b = (pc.refresh_rr + k) % n;
    if (pc.refreshed_mask & (1ull << b)) continue;
    if (first < 0) first = static_cast<int>(b);
    if (pc.banks[b].queued == 0) {
      if (!pc.banks[b].open) {
        pick = static_cast<int>(b);
        break;
      }
      if (idle_open < 0) idle_open = static_cast<int>(b);
    }
  }
  if (pick < 0) pick = idle_open >= 0 ? idle_open : first;
  pc.refresh_bank = pick;
  pc.refresh_rr = (static_cast<uint32_t>(pick) + 1) % n;
}

bool HbmModel::HandleRefresh(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  const uint64_t t = now * kM;
  if (!pc.refresh_pending) {
    if (now < pc.next_refresh) return false;
    pc.refresh_pending = true;
    if (config_.refresh == RefreshMode::kPerBank) ChooseRefreshBank(pc);
  }
  if (config_.refresh == RefreshMode::kAllBank) {
    // PREA once every open bank may close, then REFab once every bank may take an ACT.
    bool any_open = false, can_close = true, can_refresh = true;
    for (const Bank& b : pc.banks) {
      if (b.open) {
        any_open = true;
        can_close &= b.pre_ok <= t;
      }
      can_refresh &= b.act_ok <= t;
    }
    if (any_open) {
      if (!can_close) return false;
      for (uint32_t b = 0; b < pc.banks.size(); ++b) {
        if (pc.banks[b].open) Precharge(pi, b, now);
      }
      return true;
    }
    if (!can_refresh) return false;
    for (Bank& b : pc.banks) b.act_ok = t + cyc_.rfc * kM;
    ++pc.stats.refreshes;
    Emit(HbmCommandKind::kRefreshAll, t, pi, 0, 0, 0);
    pc.refresh_pending = false;
    pc.next_refresh += cyc_.refi;
    return true;
  }
  // Per-bank: the target bank takes no new work; it is closed, then refreshed like an ACT would be
  // (tRRD, tFAW), and is busy for tRFCsb while the other banks carry on.
  const uint32_t b = static_cast<uint32_t>(pc.refresh_bank);
  Bank& bank = pc.banks[b];
  if (bank.open) {
    if (bank.pre_ok > t) return false;
    Precharge(pi, b, now);
    return true;
  }
  BankGroup& g = pc.groups[b >> group_shift_];
  if (bank.act_ok > t || pc.act_ok > t || g.act_ok > t || !FawAllows(pc, t)) return false;
  bank.act_ok = t + cyc_.rfcsb * kM;
  pc.act_ok = std::max(pc.act_ok, t + cyc_.rrd_s * kM);
  g.act_ok = std::max(g.act_ok, t + cyc_.rrd_l * kM);
  RecordAct(pc, t);
  ++pc.stats.refreshes;
  Emit(HbmCommandKind::kRefreshBank, t, pi, b, 0, 0);
  pc.refreshed_mask |= 1ull << b;
  pc.refresh_pending = false;
  pc.refresh_bank = -1;
  pc.next_refresh += refi_bank_;
  return true;
}

uint32_t HbmModel::OldestSlot(PseudoChannel& pc) {
  while (pc.slots[pc.age.front().slot].seq != pc.age.front().seq) pc.age.pop_front();
  return pc.age.front().slot;
}

void HbmModel::UpdateRowAsker(PseudoChannel& pc, uint32_t b) const {
  const Bank& bank = pc.banks[b];
  const bool asks = !bank.queue.empty() && !(bank.open && pc.slots[bank.queue.front()].row == bank.row);
  if (asks) {
    pc.row_askers |= uint64_t{1} << b;
  } else {
    pc.row_askers &= ~(uint64_t{1} << b);
  }
}

bool HbmModel::TryColumn(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  if (pc.refresh_pending && config_.refresh == RefreshMode::kAllBank) return false;
  const uint64_t t = now * kM;
  const uint64_t window_end = t + kM;
  const int blocked_bank = pc.refresh_pending ? pc.refresh_bank : -1;
  const uint64_t cl = cyc_.cl * kM, wl = cyc_.wl * kM;
  // Most cycles of a busy pseudo-channel the data bus is still carrying the previous burst: then
  // no access can issue, whatever its bank, and the queue need not be scanned.
  const uint64_t rd_floor = std::max({t, pc.rd_ok, pc.bus_free > cl ? pc.bus_free - cl : 0});
  const uint64_t wr_floor = std::max({t, pc.wr_ok, pc.bus_free > wl ? pc.bus_free - wl : 0});
  if (rd_floor >= window_end && wr_floor >= window_end) {
    pc.bus_wake = std::min(rd_floor, wr_floor) / kM;  // the first cycle whose window reaches a floor
    return false;
  }
  const Entry& oldest = pc.slots[OldestSlot(pc)];
  const bool starving = now - pc.head_since >= config_.starvation_cycles;
  const bool dir = pc.last_write;
  // FR-FCFS with read/write grouping: the oldest ready row hit in the current bus direction, else
  // the oldest ready row hit in the other direction, if turning the bus around is worth it. An
  // access is ready when its bank, bank group and the bus allow it in this cycle: the same for
  // every access of one bank and direction, so each bank offers its oldest eligible hit per
  // direction, and the oldest offer across banks wins.
  struct Pick {
    uint64_t seq = ~0ull;
    uint32_t bank = 0;
    size_t pos = 0;
    uint64_t ready = 0;
    bool bypasses = false;
  } same, other;
  // If nothing issues: the earliest time one of this cycle's time-dependent checks (a bank's
  // readiness, starvation, the turnaround's row cycle) changes; state changes reset it.
  uint64_t wake_mc = starving ? ~0ull : (pc.head_since + config_.starvation_cycles) * kM;
  for (uint64_t m = pc.stale_banks; m != 0; m &= m - 1) FindOffers(pc, static_cast<uint32_t>(__builtin_ctzll(m)));
  pc.stale_banks = 0;
  uint64_t allowed = ~uint64_t{0};
  if (blocked_bank >= 0) allowed &= ~(uint64_t{1} << blocked_bank);
  // A starving oldest access to another row of its bank: every hit there would bypass it.
  if (starving && pc.banks[oldest.bank].open && oldest.row != pc.banks[oldest.bank].row) {
    allowed &= ~(uint64_t{1} << oldest.bank);
  }
  // The oldest ready offer of direction w (offer_banks[w] holds exactly the banks with one).
  auto oldest_ready = [&](int w, Pick* p) {
    const uint64_t floor = w ? wr_floor : rd_floor;
    for (uint64_t m = pc.offer_banks[w] & allowed; m != 0; m &= m - 1) {
      const uint32_t b = static_cast<uint32_t>(__builtin_ctzll(m));
      const Bank& bank = pc.banks[b];
      const BankGroup& g = pc.groups[b >> group_shift_];
      const uint64_t ready = std::max({floor, bank.col_ok, w ? g.wr_ok : g.rd_ok});
      if (ready >= window_end) {
        wake_mc = std::min(wake_mc, ready);
        continue;
      }
      const Offer& o = bank.offers[w];
      if (o.seq < p->seq) *p = Pick{o.seq, b, o.pos, ready, o.bypasses};
    }
  };
  // A starving oldest access of the other direction is promoted over the current direction's hits:
  // the bus turns to it as soon as it is ready (otherwise a steady stream of hits to other banks
  // would keep it waiting for as long as it lasts).
  const bool head_turns = starving && oldest.is_write != dir;
  if (!head_turns) oldest_ready(dir, &same);
  if (same.seq != ~0ull) {
    IssueColumn(pi, same.bank, same.pos, same.ready, same.bypasses);
    return true;
  }
  oldest_ready(!dir, &other);
  if (other.seq == ~0ull) {
    pc.column_wake = wake_mc / kM;
    return false;
  }
  // A write-to-read turnaround idles the data bus for about tWTR + tCL, so keep the direction while
  // accesses in it are still coming (rows being opened), but never longer than a row cycle, nor for
  // more than a queue's worth of accesses, nor past a starving oldest request.
  const uint32_t same_unblocked =
      pc.unblocked[dir] - (blocked_bank >= 0 ? pc.banks[static_cast<uint32_t>(blocked_bank)].unblocked[dir] : 0);
  const bool turn = same_unblocked == 0 || pc.direction_count >= config_.queue_depth ||
                    now - pc.last_column_cycle >= cyc_.rp + cyc_.rcd || (starving && other.seq == oldest.seq);
  if (!turn) {
    wake_mc = std::min(wake_mc, (pc.last_column_cycle + cyc_.rp + cyc_.rcd) * kM);
    pc.column_wake = wake_mc / kM;
    return false;
  }
  IssueColumn(pi, other.bank, other.pos, other.ready, other.bypasses);
  return true;
}

void HbmModel::SetOffer(PseudoChannel& pc, uint32_t b, int w, const Offer& offer) {
  pc.banks[b].offers[w] = offer;
  pc.offer_banks[w] |= uint64_t{1} << b;
}

void HbmModel::FindOffers(PseudoChannel& pc, uint32_t b) const {
  Bank& bank = pc.banks[b];
  bank.offers = {};
  pc.offer_banks[0] &= ~(uint64_t{1} << b);
  pc.offer_banks[1] &= ~(uint64_t{1} << b);
  if (!bank.open || bank.queued_hits == 0) return;
  // A hit younger than an access to another row of its bank bypasses that access. FR-FCFS+Cap
  // (Mutlu & Moscibroda, MICRO 2007) caps the columns served from an open row while such an access
  // waits (counted as row_hit_count says): past the cap the hit waits and TryRowCommand closes the
  // row for the older access.
  const bool capped = Capped(bank);
  bool behind_other_row = false;
  int missing = 2;
  for (size_t k = 0; k < bank.queue.size(); ++k) {
    const Entry& e = pc.slots[bank.queue[k]];
    if (e.row != bank.row) {
      if (capped) break;  // every later hit would bypass it, past the cap
      behind_other_row = true;
      continue;
    }
    if (e.deps != 0) continue;
    if (bank.offers[e.is_write].seq != ~0ull) continue;
    SetOffer(pc, b, e.is_write, Offer{e.seq, static_cast<uint32_t>(k), behind_other_row});
    if (--missing == 0) break;
  }
}

void HbmModel::ResumeOffer(PseudoChannel& pc, uint32_t b, int w, size_t from, bool behind_other_row) const {
  Bank& bank = pc.banks[b];
  const bool capped = Capped(bank);
  for (size_t k = from; k < bank.queue.size(); ++k) {
    const Entry& e = pc.slots[bank.queue[k]];
    if (e.row != bank.row) {
      if (capped) break;
      behind_other_row = true;
      continue;
    }
    if (e.deps != 0 || e.is_write != (w != 0)) continue;
    SetOffer(pc, b, w, Offer{e.seq, static_cast<uint32_t>(k), behind_other_row});
    return;
  }
  bank.offers[w] = Offer{};
  pc.offer_banks[w] &= ~(uint64_t{1} << b);
}

void HbmModel::IssueColumn(uint32_t pi, uint32_t b, size_t pos, uint64_t tc, bool bypasses) {
  PseudoChannel& pc = pcs_[pi];
  Bank& bank = pc.banks[b];
  const uint32_t slot = bank.queue[pos];
  const Entry& e = pc.slots[slot];
  BankGroup& g = pc.groups[e.bank_group];
  Tracker& tr = trackers_[e.tracker];
  // The oldest access of the pseudo-channel is the first of its bank's queue; when it leaves, the
  // next oldest starts its wait at the head (the starvation guard's clock).
  const bool was_oldest = pos == 0 && OldestSlot(pc) == slot;
  if (was_oldest) pc.head_since = now_;
  HbmChannelStats& st = pc.stats;
  const uint32_t burst_bytes = config_.BurstBytes();
  uint64_t data_end;
  if (e.is_write) {
    data_end = tc + cyc_.wl * kM + cyc_.burst_mc;
    bank.pre_ok = std::max(bank.pre_ok, data_end + cyc_.wr * kM);
    pc.rd_ok = std::max(pc.rd_ok, data_end + cyc_.wtr_s * kM);
    g.rd_ok = std::max(g.rd_ok, data_end + cyc_.wtr_l * kM);
    pc.wr_ok = std::max(pc.wr_ok, tc + cyc_.ccd_s_mc);
    g.wr_ok = std::max(g.wr_ok, tc + cyc_.ccd_l_mc);
    const uint64_t req_lo = tr.response.addr, req_hi = req_lo + tr.response.len;
    const uint64_t lo = std::max(e.atom_addr, req_lo), hi = std::min(e.atom_addr + 32, req_hi);
    memory_.WriteMasked(lo, tr.write_data.data() + (lo - req_lo), hi - lo, tr.byte_enable >> (lo - req_lo));
    ++st.writes;
    st.bytes_written += burst_bytes;
    Emit(HbmCommandKind::kWrite, tc, pi, e.bank, e.row, e.column);
  } else {
    data_end = tc + cyc_.cl * kM + cyc_.burst_mc;
    bank.pre_ok = std::max(bank.pre_ok, tc + cyc_.rtp * kM);
    pc.rd_ok = std::max(pc.rd_ok, tc + cyc_.ccd_s_mc);
    g.rd_ok = std::max(g.rd_ok, tc + cyc_.ccd_l_mc);
    // Write data may follow read data only after the bus turns around.
    uint64_t turn = data_end + cyc_.rtw_gap * kM;
    turn = turn > cyc_.wl * kM ? turn - cyc_.wl * kM : 0;
    pc.wr_ok = std::max({pc.wr_ok, tc + cyc_.ccd_s_mc, turn});
    g.wr_ok = std::max(g.wr_ok, tc + cyc_.ccd_l_mc);
    const uint64_t req_lo = tr.response.addr, req_hi = req_lo + tr.response.len;
    const uint64_t lo = std::max(e.atom_addr, req_lo), hi = std::min(e.atom_addr + 32, req_hi);
    memory_.Read(lo, tr.response.data.data() + (lo - req_lo), hi - lo);
    ++st.reads;
    st.bytes_read += burst_bytes;
    Emit(HbmCommandKind::kRead, tc, pi, e.bank, e.row, e.column);
  }
  pc.bus_free = data_end;
  ++columns_issued_;
  // The floors TryColumn's first check computes, without the current time: the first cycle whose
  // window reaches one of them.
  const uint64_t cl = cyc_.cl * kM, wl = cyc_.wl * kM;
  pc.bus_wake = std::min(std::max(pc.rd_ok, pc.bus_free > cl ? pc.bus_free - cl : 0),
                         std::max(pc.wr_ok, pc.bus_free > wl ? pc.bus_free - wl : 0)) /
                kM;
  if (e.is_write == pc.last_write) {
    ++pc.direction_count;
  } else {
    pc.last_write = e.is_write;
    pc.direction_count = 1;
  }
  pc.last_column_cycle = tc / kM;
  st.data_bus_milli_cycles += cyc_.burst_mc;
  if (e.row_cause == 2) {
    ++st.row_conflicts;
  } else if (e.row_cause == 1) {
    ++st.row_misses;
  } else {
    ++st.row_hits;
  }
  const uint64_t done = (data_end + kM - 1) / kM;
  const uint64_t latency = done - e.submit_cycle;
  st.latency_sum += latency;
  ++st.latency_count;
  st.latency_max = std::max(st.latency_max, latency);

  tr.completion_mc = std::max(tr.completion_mc, data_end);
  if (--tr.atoms_left == 0) {
    tr.response.completion_cycle = (tr.completion_mc + kM - 1) / kM;
    const uint64_t ahead = tr.response.completion_cycle - now_;
    if (ahead > completion_mask_) throw std::logic_error("HbmModel: a response completes beyond the completion ring");
    completion_ring_[tr.response.completion_cycle & completion_mask_].push_back(e.tracker);
    ++completions_pending_;
  }
  --bank.queued;
  if (--bank.queued_hits == 0) pc.row_wake = 0;  // the row may close now
  // At the cap the row may close for the older access although hits are still queued.
  bool rescan = false;  // the bank's offers may have changed other than by this access leaving
  const bool counted = bypasses || config_.row_hit_count == RowHitCount::kSinceActivate;
  if (counted && config_.row_hit_cap != 0 && ++bank.cap_count == config_.row_hit_cap) {
    pc.row_wake = 0;
    rescan = true;  // now capped: hits behind an access to another row are no longer offered
  }
  // Younger accesses to the same atom (all in this bank) no longer wait for this one.
  uint32_t waiting = e.dependents;  // usually none: no scan
  for (size_t k = pos + 1; waiting != 0 && k < bank.queue.size(); ++k) {
    Entry& y = pc.slots[bank.queue[k]];
    if (y.atom_addr == e.atom_addr && (y.is_write || e.is_write)) {
      --waiting;
      if (--y.deps == 0) {
        rescan = true;  // y may now be offered
        pc.row_wake = 0;
        ++bank.unblocked[y.is_write];
        ++pc.unblocked[y.is_write];
      }
    }
  }
  --bank.unblocked[e.is_write];
  --pc.unblocked[e.is_write];
  --pc.atom_buckets[AtomBucket(e.atom_addr)];
  bank.queue.erase(bank.queue.begin() + static_cast<std::ptrdiff_t>(pos));
  if (pos == 0) {
    // A new oldest access of the bank, or none. If the bank now asks for a row command, or the
    // pseudo-channel's oldest access changed (the starvation guard's subject), the time TryRowCommand
    // last computed for its next try no longer holds: it may have been "never" because this access was
    // a starving row hit.
    const uint64_t askers = pc.row_askers;
    UpdateRowAsker(pc, b);
    if (pc.row_askers != askers || was_oldest) pc.row_wake = 0;
  }
  // The access was its direction's offer. Otherwise unchanged, the bank's next offer in that
  // direction is the first eligible hit after it (FindOffers' scan, resumed), and the other
  // direction's offer moves up one place if it was behind it.
  if (rescan) {
    pc.stale_banks |= uint64_t{1} << b;
  } else {
    const int w = e.is_write;
    Offer& other = bank.offers[!w];
    if (other.seq != ~0ull && other.pos > pos) --other.pos;
    ResumeOffer(pc, b, w, pos, bypasses);
  }
  pc.slots[slot].seq = 0;  // free: its entry in pc.age is dead
  pc.free_slots.push_back(slot);
  --pc.queued;
  --queued_atoms_;
}

void HbmModel::TryRowCommand(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  const bool all_bank_refresh = pc.refresh_pending && config_.refresh == RefreshMode::kAllBank;
  if (all_bank_refresh) return;
  const uint64_t t = now * kM;
  const int blocked_bank = pc.refresh_pending ? pc.refresh_bank : -1;
  const uint32_t oldest_slot = OldestSlot(pc);
  const uint64_t starve_at = pc.head_since + config_.starvation_cycles;
  const bool starving = now >= starve_at;
  // If nothing issues, the earliest time a timing constraint lifts; queue changes wake us earlier.
  uint64_t wake = starving ? ~0ull : starve_at * kM;
  // Each bank's oldest access asks for a row command; the oldest asker whose command may issue now
  // gets it (in submission order it would have been found first).
  uint64_t best_seq = ~0ull;
  uint32_t best_bank = 0;
  bool best_is_pre = false;
  for (uint64_t m = pc.row_askers; m != 0; m &= m - 1) {
    const uint32_t b = static_cast<uint32_t>(__builtin_ctzll(m));
    if (static_cast<int>(b) == blocked_bank) continue;
    Bank& bank = pc.banks[b];
    const uint32_t slot = bank.queue.front();
    const Entry& e = pc.slots[slot];
    if (bank.open) {  // and e's row is not the open one (row_askers)
      // Close the row only when nobody queued still wants it, or when the row-hit cap is reached
      // (FR-FCFS-Cap), or when the oldest request starves. All the queued hits are younger than e:
      // e is the oldest access to its bank.
      if (bank.queued_hits != 0 && !Capped(bank) && !(starving && slot == oldest_slot)) continue;
      if (bank.pre_ok > t) {
        wake = std::min(wake, bank.pre_ok);
        continue;
      }
      if (e.seq < best_seq) {
        best_seq = e.seq;
        best_bank = b;
        best_is_pre = true;
      }
      continue;
    }
    if (e.deps != 0) continue;  // an older access to the same atom opens the row for it
    const BankGroup& g = pc.groups[e.bank_group];
    if (bank.act_ok > t || pc.act_ok > t || g.act_ok > t || !FawAllows(pc, t)) {
      uint64_t faw_ok = pc.faw_count < 4 ? 0 : pc.faw[pc.faw_next] + cyc_.faw * kM;
      wake = std::min(wake, std::max({bank.act_ok, pc.act_ok, g.act_ok, faw_ok}));
      continue;
    }
    if (e.seq < best_seq) {
      best_seq = e.seq;
      best_bank = b;
      best_is_pre = false;
    }
  }
  if (best_seq == ~0ull) {
    pc.row_wake = wake;
    return;
  }
  Entry& e = pc.slots[pc.banks[best_bank].queue.front()];
  if (best_is_pre) {
    Precharge(pi, best_bank, now);
    e.row_cause = 2;
  } else {
    Activate(pi, best_bank, e.row, now);
    if (e.row_cause == 0) e.row_cause = 1;
  }
  pc.row_wake = 0;
}

void HbmModel::Activate(uint32_t pi, uint32_t b, uint64_t row, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  Bank& bank = pc.banks[b];
  BankGroup& g = pc.groups[b >> group_shift_];
  const uint64_t t = now * kM;
  pc.column_wake = 0;
  pc.stale_banks |= uint64_t{1} << b;
  bank.open = true;
  bank.row = row;
  bank.cap_count = 0;
  bank.col_ok = t + cyc_.rcd * kM;
  bank.pre_ok = std::max(bank.pre_ok, t + cyc_.ras * kM);
  bank.act_ok = t + cyc_.rc * kM;
  pc.act_ok = t + cyc_.rrd_s * kM;
  g.act_ok = t + cyc_.rrd_l * kM;
  RecordAct(pc, t);
  uint32_t hits = 0;
  for (uint32_t slot : bank.queue) hits += pc.slots[slot].row == row;
  bank.queued_hits = hits;
  UpdateRowAsker(pc, b);
  pc.non_hits -= hits;
  ++pc.stats.activates;
  Emit(HbmCommandKind::kActivate, t, pi, b, row, 0);
}

void HbmModel::Precharge(uint32_t pi, uint32_t b, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  Bank& bank = pc.banks[b];
  const uint64_t t = now * kM;
  pc.column_wake = 0;
  pc.stale_banks |= uint64_t{1} << b;
  bank.open = false;
  bank.cap_count = 0;
  pc.non_hits += bank.queued_hits;
  bank.queued_hits = 0;
  UpdateRowAsker(pc, b);
  bank.act_ok = std::max(bank.act_ok, t + cyc_.rp * kM);
  ++pc.stats.precharges;
  Emit(HbmCommandKind::kPrecharge, t, pi, b, bank.row, 0);
}

void HbmModel::Emit(HbmCommandKind kind, uint64_t t_mc, uint32_t pc, uint32_t bank, uint64_t row, uint32_t column) {
  if (!on_command_) return;
  on_command_(HbmCommand{kind, t_mc / kM, t_mc, pc, bank, row, column});
}

HbmStats HbmModel::Stats() const {
  HbmStats s;
  s.pseudo_channels_per_channel = config_.pseudo_channels;
  s.cycles = now_ - stats_start_;
  s.pc.reserve(pcs_.size());
  for (const PseudoChannel& pc : pcs_) s.pc.push_back(pc.stats);
  return s;
}

void HbmModel::ResetStats() {
  for (PseudoChannel& pc : pcs_) pc.stats = HbmChannelStats{};
  stats_start_ = now_;
}

}  // namespace strata::hbm
