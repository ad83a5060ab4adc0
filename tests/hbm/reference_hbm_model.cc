// The frozen reference HbmModel (see reference_hbm_model.h); a verbatim copy of sim/hbm/hbm_model.cc at b61a9dd.
#include "reference_hbm_model.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace strata::hbm::reference {

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
  pcs_.resize(npc);
  for (uint32_t i = 0; i < npc; ++i) {
    PseudoChannel& pc = pcs_[i];
    pc.queue.reserve(config_.queue_depth);
    pc.banks.resize(nbanks);
    pc.groups.resize(config_.bank_groups);
    // Refresh is aligned across pseudo-channels, not staggered: an in-order stream stalls on
    // whichever pseudo-channel is refreshing, so staggered refreshes would each cost the whole
    // device tRFC, while aligned ones cost it once per tREFI.
    pc.next_refresh = config_.refresh == RefreshMode::kAllBank ? cyc_.refi : refi_bank_;
  }
  UpdateNextRefresh();
}

std::string HbmModel::CheckRequest(const HbmRequest& r) const {
  if (r.len == 0 || r.len > kMaxRequestBytes) return "len must be 1..64 (got " + std::to_string(r.len) + ")";
  if ((r.addr % kMaxRequestBytes) + r.len > kMaxRequestBytes)
    return "request at " + std::to_string(r.addr) + " len " + std::to_string(r.len) + " crosses a 64-byte boundary";
  if (!memory_.InRange(r.addr, r.len))
    return "request at " + std::to_string(r.addr) + " len " + std::to_string(r.len) + " is outside capacity " +
           std::to_string(config_.capacity_bytes);
  return "";
}

bool HbmModel::CanAccept(uint64_t addr, uint32_t len) const {
  if (len == 0) return false;
  uint64_t first = addr & ~31ull, last = (addr + len - 1) & ~31ull;
  uint32_t a = map_.Decode(first).pc_index;
  if (last == first) return pcs_[a].queue.size() < config_.queue_depth;
  uint32_t b = map_.Decode(last).pc_index;
  if (a == b) return pcs_[a].queue.size() + 2 <= config_.queue_depth;
  return pcs_[a].queue.size() < config_.queue_depth && pcs_[b].queue.size() < config_.queue_depth;
}

bool HbmModel::Submit(const HbmRequest& r) {
  std::string err = CheckRequest(r);
  if (!err.empty()) throw std::invalid_argument("HbmModel::Submit: " + err);
  if (!CanAccept(r.addr, r.len)) {
    PseudoChannel& pc = pcs_[map_.Decode(r.addr).pc_index];
    ++pc.stats.rejected_full;
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
    t.byte_enable = r.len == 64 ? r.byte_enable : r.byte_enable & ((1ull << r.len) - 1);
  }
  ++outstanding_;

  const uint64_t end = r.addr + r.len;
  for (uint64_t atom = r.addr & ~31ull; atom < end; atom += 32) {
    HbmLocation loc = map_.Decode(atom);
    PseudoChannel& pc = pcs_[loc.pc_index];
    Entry e;
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
    // Same-atom ordering: count older accesses this one must not overtake.
    for (const Entry& o : pc.queue) {
      if (o.atom_addr == atom && (o.is_write || r.is_write)) ++e.deps;
    }
    Bank& bank = pc.banks[e.bank];
    ++bank.queued;
    if (pc.queue.empty()) pc.head_since = now_;
    if (bank.open && bank.row == e.row) {
      ++bank.queued_hits;
    } else {
      ++pc.non_hits;
    }
    pc.queue.push_back(e);
    ++queued_atoms_;
    ++t.atoms_left;
  }
  return true;
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
      if (pc.queue.empty() && !pc.refresh_pending && now < pc.next_refresh) continue;
      bool was_pending = pc.refresh_pending;
      uint64_t due = pc.next_refresh;
      TickPseudoChannel(i, now);
      refresh_event |= (was_pending != pc.refresh_pending) || due != pc.next_refresh;
    }
    if (refresh_event) UpdateNextRefresh();
  }
  while (!completions_.empty() && completions_.top().first <= now) {
    uint32_t ti = completions_.top().second;
    completions_.pop();
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
  if (!pc.queue.empty()) ++pc.stats.busy_cycles;
  bool row_slot_used = false;
  if (config_.refresh != RefreshMode::kOff) row_slot_used = HandleRefresh(pi, now);
  // Column commands: normally one per cycle; more only if a burst is shorter than a core cycle.
  for (int i = 0; i < 8 && !pc.queue.empty(); ++i) {
    if (!TryColumn(pi, now)) break;
  }
  if (!row_slot_used && pc.non_hits != 0) TryRowCommand(pi, now);
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
  BankGroup& g = pc.groups[b / config_.banks_per_group];
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

bool HbmModel::TryColumn(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  if (pc.refresh_pending && config_.refresh == RefreshMode::kAllBank) return false;
  const uint64_t t = now * kM;
  const uint64_t window_end = t + kM;
  const int blocked_bank = pc.refresh_pending ? pc.refresh_bank : -1;
  const Entry& oldest = pc.queue.front();
  const bool starving = now - pc.head_since >= config_.starvation_cycles;
  // A starving oldest access of the other direction turns the bus: no hit of the current one goes first.
  const bool head_turns = starving && oldest.is_write != pc.last_write;
  const uint64_t cl = cyc_.cl * kM, wl = cyc_.wl * kM;
  // Most cycles of a busy pseudo-channel the data bus is still carrying the previous burst: then
  // no access can issue, whatever its bank, and the queue need not be scanned.
  const uint64_t rd_floor = std::max({t, pc.rd_ok, pc.bus_free > cl ? pc.bus_free - cl : 0});
  const uint64_t wr_floor = std::max({t, pc.wr_ok, pc.bus_free > wl ? pc.bus_free - wl : 0});
  if (rd_floor >= window_end && wr_floor >= window_end) return false;
  // FR-FCFS with read/write grouping: the oldest ready row hit in the current bus direction, else
  // the oldest ready row hit in the other direction, if turning the bus around is worth it.
  int other = -1;
  bool other_bypasses = false;
  bool same_waiting = false;  // an access in the current direction is queued and not hazard-blocked
  uint64_t row_waiting = 0;   // banks with an access to another row than the open one, seen so far
  const uint32_t cap = config_.row_hit_cap;
  for (size_t qi = 0; qi < pc.queue.size(); ++qi) {
    const Entry& e = pc.queue[qi];
    const Bank& bank = pc.banks[e.bank];
    const uint64_t bank_bit = 1ull << e.bank;
    const bool hit = bank.open && bank.row == e.row;
    // A hit younger than an access to another row of its bank bypasses that access. FR-FCFS+Cap
    // (Mutlu & Moscibroda, MICRO 2007) caps those bypasses per open row: past the cap the hit
    // waits and TryRowCommand closes the row for the older access.
    const bool bypasses = hit && (row_waiting & bank_bit) != 0;
    if (!hit) row_waiting |= bank_bit;
    if (e.deps != 0 || e.bank == blocked_bank) continue;
    const bool same = e.is_write == pc.last_write;
    same_waiting |= same;
    if (!hit) continue;
    if (bypasses && cap != 0 && bank.cap_count >= cap) continue;
    if (starving && qi != 0 && e.bank == oldest.bank && oldest.row != e.row) continue;
    if (!same && other >= 0) continue;
    const BankGroup& g = pc.groups[e.bank_group];
    uint64_t ready = std::max(t, bank.col_ok);
    if (e.is_write) {
      ready = std::max({ready, pc.wr_ok, g.wr_ok, pc.bus_free > wl ? pc.bus_free - wl : 0});
    } else {
      ready = std::max({ready, pc.rd_ok, g.rd_ok, pc.bus_free > cl ? pc.bus_free - cl : 0});
    }
    if (ready >= window_end) continue;
    if (same && head_turns) continue;
    if (same) {
      IssueColumn(pi, qi, ready, bypasses);
      return true;
    }
    other = static_cast<int>(qi);
    other_bypasses = bypasses;
  }
  if (other < 0) return false;
  // A write-to-read turnaround idles the data bus for about tWTR + tCL, so keep the direction while
  // accesses in it are still coming (rows being opened), but never longer than a row cycle, nor for
  // more than a queue's worth of accesses, nor past a starving oldest request.
  const bool turn = !same_waiting || pc.direction_count >= config_.queue_depth ||
                    now - pc.last_column_cycle >= cyc_.rp + cyc_.rcd || (starving && other == 0);
  if (!turn) return false;
  const Entry& e = pc.queue[other];
  const Bank& bank = pc.banks[e.bank];
  const BankGroup& g = pc.groups[e.bank_group];
  uint64_t ready = std::max(t, bank.col_ok);
  if (e.is_write) {
    ready = std::max({ready, pc.wr_ok, g.wr_ok, pc.bus_free > wl ? pc.bus_free - wl : 0});
  } else {
    ready = std::max({ready, pc.rd_ok, g.rd_ok, pc.bus_free > cl ? pc.bus_free - cl : 0});
  }
  IssueColumn(pi, static_cast<size_t>(other), ready, other_bypasses);
  return true;
}

void HbmModel::IssueColumn(uint32_t pi, size_t qi, uint64_t tc, bool bypasses) {
  PseudoChannel& pc = pcs_[pi];
  Entry e = pc.queue[qi];
  Bank& bank = pc.banks[e.bank];
  BankGroup& g = pc.groups[e.bank_group];
  Tracker& tr = trackers_[e.tracker];
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
    completions_.emplace(tr.response.completion_cycle, e.tracker);
  }
  --bank.queued;
  --bank.queued_hits;
  // At the cap the row may close for the older access although hits are still queued.
  if ((bypasses || config_.row_hit_count == RowHitCount::kSinceActivate) && config_.row_hit_cap != 0) ++bank.cap_count;
  for (size_t k = qi + 1; k < pc.queue.size(); ++k) {
    Entry& y = pc.queue[k];
    if (y.atom_addr == e.atom_addr && (y.is_write || e.is_write)) {
      --y.deps;
    }
  }
  pc.queue.erase(pc.queue.begin() + static_cast<std::ptrdiff_t>(qi));
  if (qi == 0) pc.head_since = now_;  // the next oldest starts its wait at the head
  --queued_atoms_;
}

void HbmModel::TryRowCommand(uint32_t pi, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  const bool all_bank_refresh = pc.refresh_pending && config_.refresh == RefreshMode::kAllBank;
  if (all_bank_refresh) return;
  const uint64_t t = now * kM;
  const int blocked_bank = pc.refresh_pending ? pc.refresh_bank : -1;
  const uint64_t starve_at = pc.head_since + config_.starvation_cycles;
  const bool starving = now >= starve_at;
  uint64_t seen = 0;  // banks whose oldest request was already considered this cycle
  for (size_t qi = 0; qi < pc.queue.size(); ++qi) {
    Entry& e = pc.queue[qi];
    const uint64_t bit = 1ull << e.bank;
    if (seen & bit) continue;
    seen |= bit;
    if (e.bank == blocked_bank) continue;
    Bank& bank = pc.banks[e.bank];
    if (bank.open) {
      if (bank.row == e.row) continue;  // a hit: the column scheduler serves it
      // Close the row only when nobody queued still wants it, or when the row-hit cap is reached
      // (FR-FCFS-Cap), or when the oldest request starves. All the
      // queued hits are younger than e: e is the oldest access to its bank.
      const bool capped = config_.row_hit_cap != 0 && bank.cap_count >= config_.row_hit_cap;
      if (bank.queued_hits != 0 && !capped && !(starving && qi == 0)) continue;
      if (bank.pre_ok > t) continue;
      Precharge(pi, e.bank, now);
      e.row_cause = 2;
      return;
    }
    if (e.deps != 0) continue;  // an older access to the same atom opens the row for it
    const BankGroup& g = pc.groups[e.bank_group];
    if (bank.act_ok > t || pc.act_ok > t || g.act_ok > t || !FawAllows(pc, t)) continue;
    Activate(pi, e.bank, e.row, now);
    if (e.row_cause == 0) e.row_cause = 1;
    return;
  }
}

void HbmModel::Activate(uint32_t pi, uint32_t b, uint64_t row, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  Bank& bank = pc.banks[b];
  BankGroup& g = pc.groups[b / config_.banks_per_group];
  const uint64_t t = now * kM;
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
  for (const Entry& e : pc.queue) hits += (e.bank == b && e.row == row);
  bank.queued_hits = hits;
  pc.non_hits -= hits;
  ++pc.stats.activates;
  Emit(HbmCommandKind::kActivate, t, pi, b, row, 0);
}

void HbmModel::Precharge(uint32_t pi, uint32_t b, uint64_t now) {
  PseudoChannel& pc = pcs_[pi];
  Bank& bank = pc.banks[b];
  const uint64_t t = now * kM;
  bank.open = false;
  bank.cap_count = 0;
  pc.non_hits += bank.queued_hits;
  bank.queued_hits = 0;
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

}  // namespace strata::hbm::reference
