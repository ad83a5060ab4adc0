#include "report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "names.h"
#include "policy.h"
#include "static_plans.h"
#include "strata/strata.hpp"
#include "text.h"

namespace strata::compare {
namespace {

using tool::Printable;  // every string from a workload or a report, in the table

using Json = nlohmann::ordered_json;

// A report's numbers are read exactly or refused: nlohmann's get<> would wrap a negative count into a
// huge unsigned one, truncate 1.5 to 1, and turn 2^70 (parsed as a double) into INT_MIN.
uint64_t U64(const Json& v) {
  if (!v.is_number_unsigned()) throw std::out_of_range("expected a count (an integer >= 0), found " + v.dump());
  return v.get<uint64_t>();
}
int64_t I64(const Json& v) {
  if (!v.is_number_integer()) throw std::out_of_range("expected an integer, found " + v.dump());
  return v.get<int64_t>();
}

FirstOom OomFrom(const Json& j) {
  FirstOom f;
  if (j.is_null()) return f;
  f.event = I64(j.at("event"));
  f.buffer_id = I64(j.at("buffer_id"));
  f.kind = j.at("kind").get<std::string>();
  f.request_bytes = U64(j.at("request_bytes"));
  f.live_bytes = U64(j.at("live_bytes"));
  f.reserved_bytes = U64(j.at("reserved_bytes"));
  f.largest_free_bytes = U64(j.at("largest_free_bytes"));
  f.limit_bytes = U64(j.at("limit_bytes"));
  f.message = j.at("message").get<std::string>();
  f.tenant = j.value("tenant", "");
  return f;
}

Json RunJson(const Run& r) {
  const Cost& c = r.cost;
  const MinCapacity& m = r.min_capacity;
  Json series{
      {"event", Json::array()}, {"live", Json::array()}, {"in_use", Json::array()}, {"reserved", Json::array()}};
  for (const SeriesPoint& p : r.series) {
    series["event"].push_back(p.event);
    series["live"].push_back(p.live);
    series["in_use"].push_back(p.in_use);
    series["reserved"].push_back(p.reserved);
  }
  Json ooms = Json::array();
  for (const auto& [event, kind] : r.oom_events) ooms.push_back(Json::array({event, kind}));
  Json tenants = Json::array();
  for (const TenantResult& t : r.tenants) {
    tenants.push_back({{"name", t.name},
                       {"policy", t.policy},
                       {"workload", t.workload},
                       {"quota_bytes", t.quota_bytes},
                       {"allocs", t.allocs},
                       {"failed_allocs", t.failed_allocs},
                       {"peak_in_use_bytes", t.peak_in_use_bytes},
                       {"first_oom", FirstOomJson(t.first_oom)}});
  }
  Json j{{"contender", r.contender},
         {"family", r.family},
         {"backend", r.backend},
         {"allocator", r.allocator},
         {"capacity_bytes", r.capacity_bytes},
         {"completed", r.completed()},
         {"events", r.events},
         {"allocs", r.allocs},
         {"failed_allocs", r.failed_allocs},
         {"oom",
          {{"capacity", r.oom_capacity},
           {"cap", r.oom_cap},
           {"fragmentation", r.oom_fragmentation},
           {"quota", r.oom_quota}}},
         {"first_oom", FirstOomJson(r.first_oom)},
         {"peak_live_bytes", r.peak_live_bytes},
         {"peak_reserved_bytes", r.peak_reserved_bytes},
         {"cost",
          {{"compactions", c.compactions},
           {"moves", c.moves},
           {"bytes_moved", c.bytes_moved},
           {"compaction_cycles", c.compaction_cycles},
           {"cycles_source", c.cycles_source},
           {"cycles_error_bound", c.cycles_error_bound},
           {"defragmentations", c.defragmentations},
           {"host_bytes_copied", c.host_bytes_copied},
           {"device_allocs", c.device_allocs},
           {"device_frees", c.device_frees},
           {"device_syncs", c.device_syncs},
           {"stream_syncs", c.stream_syncs},
           {"maps", c.maps},
           {"unmaps", c.unmaps},
           {"retries", c.retries}}},
         {"wall_seconds", r.wall_seconds},
         {"min_capacity", m.searched ? Json{{"found", m.found},
                                            {"bytes", m.bytes},
                                            {"ratio", m.ratio},
                                            {"fails_at_bytes", m.fails_at_bytes},
                                            {"resolution_bytes", m.resolution_bytes},
                                            {"probes", m.probes}}
                                     : Json(nullptr)},
         {"series", series},
         {"oom_events", ooms}};
  if (!r.tenants.empty()) j["tenants"] = tenants;
  if (!r.note.empty()) j["note"] = r.note;
  if (!r.advice.empty()) j["advice"] = r.advice;
  return j;
}

Run RunFrom(const Json& j) {
  Run r;
  r.contender = j.at("contender").get<std::string>();
  r.family = j.at("family").get<std::string>();
  r.backend = j.at("backend").get<std::string>();
  r.allocator = j.at("allocator").get<std::string>();
  r.capacity_bytes = U64(j.at("capacity_bytes"));
  r.events = U64(j.at("events"));
  r.allocs = U64(j.at("allocs"));
  r.failed_allocs = U64(j.at("failed_allocs"));
  if (j.at("completed").get<bool>() != (r.failed_allocs == 0)) {
    throw std::out_of_range("\"completed\" disagrees with \"failed_allocs\"");
  }
  const Json& oom = j.at("oom");
  r.oom_capacity = U64(oom.at("capacity"));
  r.oom_cap = U64(oom.at("cap"));
  r.oom_fragmentation = U64(oom.at("fragmentation"));
  r.oom_quota = U64(oom.at("quota"));
  r.first_oom = OomFrom(j.at("first_oom"));
  r.peak_live_bytes = U64(j.at("peak_live_bytes"));
  r.peak_reserved_bytes = U64(j.at("peak_reserved_bytes"));
  const Json& c = j.at("cost");
  r.cost.compactions = U64(c.at("compactions"));
  r.cost.moves = U64(c.at("moves"));
  r.cost.bytes_moved = U64(c.at("bytes_moved"));
  r.cost.compaction_cycles = U64(c.at("compaction_cycles"));
  r.cost.cycles_source = c.at("cycles_source").get<std::string>();
  r.cost.cycles_error_bound = c.value("cycles_error_bound", 0.0);
  r.cost.defragmentations = U64(c.at("defragmentations"));
  r.cost.host_bytes_copied = U64(c.at("host_bytes_copied"));
  r.cost.device_allocs = U64(c.at("device_allocs"));
  r.cost.device_frees = U64(c.at("device_frees"));
  r.cost.device_syncs = U64(c.at("device_syncs"));
  r.cost.stream_syncs = U64(c.at("stream_syncs"));
  r.cost.maps = U64(c.at("maps"));
  r.cost.unmaps = U64(c.at("unmaps"));
  r.cost.retries = U64(c.at("retries"));
  r.wall_seconds = j.at("wall_seconds").get<double>();
  const Json& m = j.at("min_capacity");
  if (!m.is_null()) {
    r.min_capacity.searched = true;
    r.min_capacity.found = m.at("found").get<bool>();
    r.min_capacity.bytes = U64(m.at("bytes"));
    r.min_capacity.ratio = m.at("ratio").get<double>();
    r.min_capacity.fails_at_bytes = U64(m.at("fails_at_bytes"));
    r.min_capacity.resolution_bytes = U64(m.at("resolution_bytes"));
    r.min_capacity.probes = m.at("probes").get<uint32_t>();
  }
  const Json& s = j.at("series");
  const Json &ev = s.at("event"), &live = s.at("live"), &in_use = s.at("in_use"), &reserved = s.at("reserved");
  if (live.size() != ev.size() || in_use.size() != ev.size() || reserved.size() != ev.size()) {
    throw std::out_of_range("series: event, live, in_use and reserved differ in length");
  }
  for (size_t i = 0; i < ev.size(); ++i) {
    r.series.push_back({U64(ev[i]), U64(live[i]), U64(in_use[i]), U64(reserved[i])});
  }
  for (const Json& o : j.at("oom_events")) r.oom_events.emplace_back(U64(o.at(0)), o.at(1).get<std::string>());
  if (j.contains("tenants")) {
    for (const Json& t : j.at("tenants")) {
      TenantResult tr;
      tr.name = t.at("name").get<std::string>();
      tr.policy = t.at("policy").get<std::string>();
      tr.workload = t.at("workload").get<std::string>();
      tr.quota_bytes = U64(t.at("quota_bytes"));
      tr.allocs = U64(t.at("allocs"));
      tr.failed_allocs = U64(t.at("failed_allocs"));
      tr.peak_in_use_bytes = U64(t.at("peak_in_use_bytes"));
      tr.first_oom = OomFrom(t.at("first_oom"));
      r.tenants.push_back(tr);
    }
  }
  r.note = j.value("note", "");
  r.advice = j.value("advice", "");
  return r;
}

// The first of a run's names that holds a control character, or null: --merge refuses such a report. strata-compare
// writes these from fixed lists (contenders, families, backends, OOM kinds) and a parsed capacity, so one that
// holds a control character was not written by it. (A workload's name is its file's name, which may hold anything;
// the table escapes it and the CSV quotes it.)
const char* ControlCharacterIn(const WorkloadReport& w, const Run& r) {
  const std::pair<const char*, const std::string*> fields[] = {{"capacity", &w.capacity_text},
                                                               {"contender", &r.contender},
                                                               {"family", &r.family},
                                                               {"backend", &r.backend},
                                                               {"first OOM kind", &r.first_oom.kind}};
  for (const auto& [field, text] : fields) {
    for (char c : *text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return field;
    }
  }
  return nullptr;
}

// "" when strata-compare runs a contender of this name on this backend; else what is wrong. The names a report may
// hold: the contenders (AllContenders: Strata's on host or sim, the GPU policies on gpu-emu or cuda), the static plans'
// rows (host) and the tenant runs ("gpu: jax + tf" on gpu-emu, "strata: 2 contexts" on host). --merge refuses any
// other: a report strata-compare did not write would be merged, ranked, and read as if it had been measured.
std::string UnknownRun(const Run& r) {
  const std::vector<Contender> all = AllContenders();
  std::vector<std::string> backends;
  for (const Contender& c : all) {
    if (c.name == r.contender) {
      backends = c.strata ? std::vector<std::string>{"host", "sim"} : std::vector<std::string>{"gpu-emu", "cuda"};
    }
  }
  for (const char* name : kStaticPlanRows) {
    if (r.contender == name) backends = {"host"};
  }
  const std::vector<std::string> policies = strata::OptionChoices("gpu-emu", "policy");
  if (r.contender.rfind("gpu: ", 0) == 0) {  // the tenants' policies, " + " between them
    bool all_policies = true;
    for (size_t start = 5;;) {
      const size_t plus = r.contender.find(" + ", start);
      const std::string p = r.contender.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      all_policies = all_policies && std::find(policies.begin(), policies.end(), p) != policies.end();
      if (plus == std::string::npos) break;
      start = plus + 3;
    }
    if (all_policies) backends = {"gpu-emu"};
  }
  for (const char* kind : {"strata: ", "strata-no-compact: "}) {  // "strata: N contexts"
    const std::string k = kind;
    if (r.contender.rfind(k, 0) != 0 || r.contender.size() <= k.size() + 9 ||
        r.contender.compare(r.contender.size() - 9, 9, " contexts") != 0) {
      continue;
    }
    const std::string n = r.contender.substr(k.size(), r.contender.size() - k.size() - 9);
    if (n.find_first_not_of("0123456789") == std::string::npos) backends = {"host"};
  }
  if (backends.empty()) {
    std::string names;
    for (const Contender& c : all) names += (names.empty() ? "" : ", ") + c.name;
    return "unknown contender '" + Printable(r.contender) + "' (strata-compare runs " + names +
           ", the static plans and tenant runs; not a report strata-compare wrote)";
  }
  if (std::find(backends.begin(), backends.end(), r.backend) == backends.end()) {
    return "contender '" + Printable(r.contender) + "' on backend '" + Printable(r.backend) + "' (it runs on " +
           tool::JoinNames(backends, ", ", " or ") + "; not a report strata-compare wrote)";
  }
  return "";
}

std::string Ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", r);
  return buf;
}

// An estimate and its error bound: "est. +-5%", "est. +-5.5%"; "est." alone for a report written before bounds.
std::string Estimated(double bound) {
  if (!(bound > 0)) return "est.";
  char b[48];
  std::snprintf(b, sizeof b, "est. +-%g%%", bound * 100);
  return b;
}

std::string Count(uint64_t n) {
  char buf[32];
  if (n >= 10'000'000) {
    std::snprintf(buf, sizeof buf, "%.1fM", static_cast<double>(n) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  }
  return buf;
}

// What avoiding (or suffering) the OOMs cost, in one cell.
std::string CostCell(const Run& r) {
  const Cost& c = r.cost;
  if (r.family == "strata") {
    if (c.bytes_moved == 0) return "no compaction";
    return tool::HumanBytes(c.bytes_moved) + " HBM->HBM, " + Count(c.moves) + " moves, " + Count(c.compaction_cycles) +
           " cycles" + (c.cycles_source == "estimate" ? " (" + Estimated(c.cycles_error_bound) + ")" : "");
  }
  std::string s;
  if (c.defragmentations) {
    s += std::to_string(c.defragmentations) + " defrag, " + tool::HumanBytes(c.host_bytes_copied) + " over PCIe; ";
  }
  s += Count(c.device_allocs) + " dev allocs, " + Count(c.device_frees) + " frees, " +
       Count(c.device_syncs + c.stream_syncs) + " syncs";
  if (c.maps) s += ", " + Count(c.maps) + " maps";
  return s;
}

}  // namespace

Json FirstOomJson(const FirstOom& f) {
  if (f.event < 0) return nullptr;
  Json j{{"event", f.event},
         {"buffer_id", f.buffer_id},
         {"kind", f.kind},
         {"request_bytes", f.request_bytes},
         {"live_bytes", f.live_bytes},
         {"reserved_bytes", f.reserved_bytes},
         {"largest_free_bytes", f.largest_free_bytes},
         {"limit_bytes", f.limit_bytes},
         {"message", f.message}};
  if (!f.tenant.empty()) j["tenant"] = f.tenant;
  return j;
}

// Less to hold (a smaller batch or sequence, recomputing activations instead of keeping them), or the same program
// sharded over more devices, each holding at least its share.
std::string Levers(uint64_t peak) {
  std::string s =
      "what helps instead: a smaller batch or sequence, rematerialization (recompute activations in the "
      "backward pass), or sharding over 2, 4 or 8 devices (at least";
  for (uint64_t n : {2, 4, 8}) s += (n == 2 ? " " : ", ") + tool::HumanBytes((peak + n - 1) / n);
  return s + " each: the peak split evenly, a bound)";
}

// A few lines a reader can act on: who completes, who fails first and why, who needs the least memory.
std::string Verdict(const WorkloadReport& w) {
  std::string ok, out;
  std::vector<const Run*> failed;
  for (const Run& r : w.runs) {
    if (r.completed()) {
      ok += (ok.empty() ? "" : ", ") + Printable(r.contender);
      if (r.cost.bytes_moved) {
        ok += " (compacted: " + tool::HumanBytes(r.cost.bytes_moved) + " moved HBM->HBM, " +
              Count(r.cost.compaction_cycles) + " device cycles" +
              (r.cost.cycles_source == "estimate" ? " " + Estimated(r.cost.cycles_error_bound) : "") + ")";
      } else if (r.cost.defragmentations) {
        ok += " (" + std::to_string(r.cost.defragmentations) + " host-bounce defragmentations, " +
              tool::HumanBytes(r.cost.host_bytes_copied) + " over PCIe)";
      }
    } else {
      failed.push_back(&r);
    }
  }
  std::stable_sort(failed.begin(), failed.end(),
                   [](const Run* a, const Run* b) { return a->first_oom.event < b->first_oom.event; });
  out += "verdict at " + tool::HumanBytes(w.capacity_bytes) + ":\n";
  out += "  completes: " + (ok.empty() ? std::string("none") : ok) + "\n";
  if (!failed.empty()) {
    out += "  fails (earliest first):";
    for (const Run* r : failed) {
      out += " " + Printable(r->contender) + " (event " + std::to_string(r->first_oom.event) + ", " +
             Printable(r->first_oom.kind) + ")";
      if (r != failed.back()) out += ";";
    }
    out += "\n";
    // One line per distinct advice, naming every contender it answers (twelve rows saying "no setting helps" is
    // one fact).
    struct Advice {
      std::string text, who;
      size_t count = 0;
    };
    std::vector<Advice> advice;
    bool nothing_helps = false;
    for (const Run* r : failed) {
      if (r->advice.empty()) continue;
      nothing_helps = nothing_helps || r->advice.rfind(kNoSettingHelps, 0) == 0;
      auto it = std::find_if(advice.begin(), advice.end(), [&](const Advice& a) { return a.text == r->advice; });
      if (it == advice.end()) it = advice.insert(advice.end(), Advice{r->advice, "", 0});
      it->who += (it->count++ ? ", " : "") + Printable(r->contender);
    }
    if (!advice.empty()) out += "  what would have saved it (the framework's settings, tried at this capacity):\n";
    for (const Advice& a : advice) {
      out += "    " + (a.count > 3 ? "the " + std::to_string(a.count) + " allocators" : a.who) + ": " +
             Printable(a.text) + "\n";
    }
    if (nothing_helps) out += "  " + Levers(w.max_load_bytes) + "\n";
  }
  const Run* best_strata = nullptr;
  const Run* best_gpu = nullptr;
  const Run* xla_plan = nullptr;
  for (const Run& r : w.runs) {
    if (!r.min_capacity.searched || !r.min_capacity.found) continue;
    if (r.family == "static") {
      if (r.contender == kStaticPlanRows[0]) xla_plan = &r;
      continue;  // a plan made ahead of time is no GPU policy
    }
    const Run*& best = r.family == "strata" ? best_strata : best_gpu;
    if (best == nullptr || r.min_capacity.bytes < best->min_capacity.bytes) best = &r;
  }
  if (best_strata && best_gpu) {
    out += "  least memory: " + Printable(best_strata->contender) + " " + Ratio(best_strata->min_capacity.ratio) +
           " of the max load; the best GPU policy, " + Printable(best_gpu->contender) + ", " +
           Ratio(best_gpu->min_capacity.ratio) +
           (xla_plan ? "; XLA's own plan " + Ratio(xla_plan->min_capacity.ratio) : std::string()) + "\n";
  }
  return out;
}

namespace {

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string ToJson(const std::vector<WorkloadReport>& reports) {
  Json workloads = Json::array();
  for (const WorkloadReport& w : reports) {
    Json runs = Json::array();
    for (const Run& r : w.runs) runs.push_back(RunJson(r));
    Json occupancy = Json::array();
    for (const Occupancy& o : w.occupancy) {
      Json blocks = Json::array();
      for (const Block& b : o.blocks) blocks.push_back(Json::array({b.offset, b.bytes, b.buffer_id}));
      occupancy.push_back(
          {{"contender", o.contender}, {"event", o.event}, {"extent_bytes", o.extent_bytes}, {"blocks", blocks}});
    }
    workloads.push_back({{"name", w.name},
                         {"source", w.source},
                         {"buffers", w.buffers},
                         {"events", w.events},
                         {"max_load_bytes", w.max_load_bytes},
                         {"capacity", w.capacity_text},
                         {"capacity_bytes", w.capacity_bytes},
                         {"gpu_page_bytes", w.gpu_page_bytes},
                         {"page_note", PageNote(w)},
                         {"runs", runs},
                         {"occupancy", occupancy}});
  }
  Json doc{{"tool", "strata-compare"}, {"version", kReportVersion}, {"workloads", workloads}};
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";  // bytes that are not UTF-8: U+FFFD
}

bool FromJson(const std::string& text, std::vector<WorkloadReport>* reports, std::string* error) {
  try {
    const Json doc = Json::parse(text);
    if (doc.value("tool", "") != "strata-compare") {
      *error = "not a strata-compare report (no \"tool\":\"strata-compare\")";
      return false;
    }
    const Json& version = doc.at("version");
    if (!version.is_number_integer() || version.get<int64_t>() != kReportVersion) {
      *error =
          "report version " + version.dump() + " (this strata-compare reads " + std::to_string(kReportVersion) + ")";
      return false;
    }
    reports->clear();
    for (const Json& wj : doc.at("workloads")) {
      WorkloadReport w;
      w.name = wj.at("name").get<std::string>();
      w.source = wj.at("source").get<std::string>();
      w.buffers = U64(wj.at("buffers"));
      w.events = U64(wj.at("events"));
      w.max_load_bytes = U64(wj.at("max_load_bytes"));
      w.capacity_text = wj.at("capacity").get<std::string>();
      w.capacity_bytes = U64(wj.at("capacity_bytes"));
      if (wj.contains("gpu_page_bytes")) w.gpu_page_bytes = U64(wj.at("gpu_page_bytes"));
      for (const Json& rj : wj.at("runs")) w.runs.push_back(RunFrom(rj));
      for (const Json& oj : wj.at("occupancy")) {
        Occupancy o;
        o.contender = oj.at("contender").get<std::string>();
        o.event = U64(oj.at("event"));
        o.extent_bytes = U64(oj.at("extent_bytes"));
        for (const Json& b : oj.at("blocks")) {
          o.blocks.push_back({U64(b.at(0)), U64(b.at(1)), I64(b.at(2))});
        }
        w.occupancy.push_back(std::move(o));
      }
      reports->push_back(std::move(w));
    }
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

std::string CsvHeader() {
  return "workload,contender,family,backend,capacity_bytes,max_load_bytes,completed,failed_allocs,oom_capacity,"
         "oom_cap,oom_fragmentation,oom_quota,first_oom_event,first_oom_buffer_id,first_oom_kind,"
         "peak_live_bytes,peak_reserved_bytes,min_capacity_bytes,min_capacity_ratio,min_capacity_found,"
         "fails_at_bytes,resolution_bytes,compactions,moves,bytes_moved,compaction_cycles,cycles_source,"
         "defragmentations,host_bytes_copied,device_allocs,device_frees,device_syncs,stream_syncs,maps,unmaps,"
         "wall_seconds\n";
}

std::string ToCsv(const WorkloadReport& w) {
  std::ostringstream os;
  for (const Run& r : w.runs) {
    const MinCapacity& m = r.min_capacity;
    const Cost& c = r.cost;
    os << tool::CsvText(w.name) << ',' << tool::CsvText(r.contender) << ',' << tool::CsvText(r.family) << ','
       << tool::CsvText(r.backend) << ',' << r.capacity_bytes << ',' << w.max_load_bytes << ','
       << (r.completed() ? "true" : "false") << ',' << r.failed_allocs << ',' << r.oom_capacity << ',' << r.oom_cap
       << ',' << r.oom_fragmentation << ',' << r.oom_quota << ',' << r.first_oom.event << ','
       << (r.first_oom.event < 0 ? 0 : r.first_oom.buffer_id) << ',' << tool::CsvText(r.first_oom.kind) << ','
       << r.peak_live_bytes << ',' << r.peak_reserved_bytes << ',';
    if (m.searched) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.6f", m.ratio);
      os << m.bytes << ',' << ratio << ',' << (m.found ? "true" : "false") << ',' << m.fails_at_bytes << ','
         << m.resolution_bytes << ',';
    } else {
      os << ",,,,,";
    }
    char wall[32];
    std::snprintf(wall, sizeof wall, "%.4f", r.wall_seconds);
    os << c.compactions << ',' << c.moves << ',' << c.bytes_moved << ',' << c.compaction_cycles << ','
       << tool::CsvText(c.cycles_source) << ',' << c.defragmentations << ',' << c.host_bytes_copied << ','
       << c.device_allocs << ',' << c.device_frees << ',' << c.device_syncs << ',' << c.stream_syncs << ',' << c.maps
       << ',' << c.unmaps << ',' << wall << '\n';
  }
  return os.str();
}

std::string ToTable(const WorkloadReport& w) {
  std::ostringstream os;
  const double at =
      w.max_load_bytes ? static_cast<double>(w.capacity_bytes) / static_cast<double>(w.max_load_bytes) : 0;
  os << "strata-compare: " << Printable(w.name) << " (" << Printable(w.source) << "): " << w.buffers << " buffers, "
     << w.events << " events, max load " << tool::HumanBytes(w.max_load_bytes) << "; capacity "
     << tool::HumanBytes(w.capacity_bytes) << " (" << Ratio(at)
     << (w.capacity_text.empty() ? "" : ", " + Printable(w.capacity_text)) << ")\n";
  const std::string page_note = PageNote(w);
  if (!page_note.empty()) os << "note: " << page_note << "\n";
  const std::vector<std::string> head = {
      "contender",   "backend",       "at capacity",  "first OOM (event, buffer, kind)", "OOMs capacity/cap/frag/quota",
      "peak in use", "peak reserved", "min capacity", "what avoiding OOMs cost",         "wall"};
  std::vector<std::vector<std::string>> rows;
  for (const Run& r : w.runs) {
    const MinCapacity& m = r.min_capacity;
    std::string min = "-";
    if (m.searched) min = m.found ? Ratio(m.ratio) : "> " + Ratio(m.ratio);
    char wall[32];
    std::snprintf(wall, sizeof wall, "%.2f s", r.wall_seconds);
    rows.push_back(
        {Printable(r.contender), Printable(r.backend),
         r.completed() ? "ok" : "FAIL (" + std::to_string(r.failed_allocs) + ")",
         r.first_oom.event < 0 ? "-"
                               : std::to_string(r.first_oom.event) + ", " + std::to_string(r.first_oom.buffer_id) +
                                     ", " + Printable(r.first_oom.kind),
         std::to_string(r.oom_capacity) + "/" + std::to_string(r.oom_cap) + "/" + std::to_string(r.oom_fragmentation) +
             "/" + std::to_string(r.oom_quota),
         tool::HumanBytes(r.peak_live_bytes), tool::HumanBytes(r.peak_reserved_bytes), min, CostCell(r), wall});
  }
  std::vector<size_t> width(head.size());
  for (size_t k = 0; k < head.size(); ++k) {
    width[k] = head[k].size();
    for (const auto& row : rows) width[k] = std::max(width[k], row[k].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = " ";
    for (size_t k = 0; k < cells.size(); ++k) s += " " + (k + 1 == cells.size() ? cells[k] : Pad(cells[k], width[k]));
    os << s << "\n";
  };
  line(head);
  for (const auto& row : rows) line(row);
  bool any = false;
  for (const Run& r : w.runs) {
    if (r.first_oom.event < 0 && r.note.empty()) continue;
    if (!any) os << "why:\n";
    any = true;
    if (r.first_oom.event >= 0 && r.family == "static") {
      // A plan made ahead of time has no allocator state to show: what it needs, against the capacity.
      os << "  " << Printable(r.contender) << ": " << Printable(r.first_oom.kind) << " at event " << r.first_oom.event
         << " (buffer " << r.first_oom.buffer_id << "): " << Printable(r.first_oom.message) << "\n";
    } else if (r.first_oom.event >= 0) {
      os << "  " << Printable(r.contender) << ": " << Printable(r.first_oom.kind) << " at event " << r.first_oom.event
         << " (buffer " << r.first_oom.buffer_id
         << (r.first_oom.tenant.empty() ? "" : ", tenant " + Printable(r.first_oom.tenant))
         << "): " << tool::HumanBytes(r.first_oom.request_bytes) << " requested, "
         << tool::HumanBytes(r.first_oom.live_bytes) << " in use, " << tool::HumanBytes(r.first_oom.reserved_bytes)
         << " reserved, largest free " << tool::HumanBytes(r.first_oom.largest_free_bytes)
         << (r.first_oom.limit_bytes ? ", limit " + tool::HumanBytes(r.first_oom.limit_bytes) : std::string())
         << (r.first_oom.limit_bytes > r.capacity_bytes ? " > device " + tool::HumanBytes(r.capacity_bytes)
                                                        : std::string())
         << (r.family == "gpu" && !page_note.empty()
                 ? " (pages of " + tool::HumanBytes(w.gpu_page_bytes) + ": --option page_bytes=)"
                 : std::string())
         << "\n";
      if (!r.first_oom.message.empty()) {
        // The message's own lines, indented; anything else that is not printable escaped.
        std::string m = r.first_oom.message;
        while (!m.empty() && m.back() == '\n') m.pop_back();
        size_t begin = 0;
        for (size_t end; (end = m.find('\n', begin)) != std::string::npos; begin = end + 1) {
          os << "      " << Printable(m.substr(begin, end - begin)) << "\n";
        }
        os << "      " << Printable(m.substr(begin)) << "\n";
      }
    }
    if (!r.note.empty()) os << "  " << Printable(r.contender) << ": " << Printable(r.note) << "\n";
  }
  for (const Run& r : w.runs) {
    for (const TenantResult& t : r.tenants) {
      os << "  " << Printable(r.contender) << " / " << Printable(t.name) << ": " << t.allocs << " allocations, "
         << t.failed_allocs << " failed, peak " << tool::HumanBytes(t.peak_in_use_bytes)
         << (t.quota_bytes ? ", quota " + tool::HumanBytes(t.quota_bytes) : std::string()) << "\n";
    }
  }
  os << Verdict(w);
  if (!w.runs.empty() && w.runs.front().min_capacity.searched) {
    os << "min capacity: the least device memory (x max load) at which the run completes, to "
       << tool::HumanBytes(w.runs.front().min_capacity.resolution_bytes) << "\n";
  }
  return os.str();
}

bool Merge(const std::vector<std::vector<WorkloadReport>>& parts, std::vector<WorkloadReport>* merged,
           std::string* error) {
  const std::vector<Contender> all = AllContenders();
  auto rank = [&](const std::string& name) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].name == name) return i;
    }
    return all.size();
  };
  merged->clear();
  std::map<std::pair<std::string, std::string>, size_t> index;  // (name, capacity) -> position in *merged
  for (const auto& part : parts) {
    for (const WorkloadReport& w : part) {
      const auto key = std::make_pair(w.name, w.capacity_text);
      auto it = index.find(key);
      if (it == index.end()) {
        // The first report of this workload goes through the same checks as the rest: a run listed twice in one
        // file is as wrong as one in two files.
        it = index.emplace(key, merged->size()).first;
        WorkloadReport first = w;
        first.runs.clear();
        first.occupancy.clear();
        merged->push_back(std::move(first));
      }
      WorkloadReport& m = (*merged)[it->second];
      if (m.max_load_bytes != w.max_load_bytes || m.buffers != w.buffers || m.events != w.events ||
          m.capacity_bytes != w.capacity_bytes) {
        *error = "two reports disagree about workload '" + tool::Printable(w.name) + "' (different files of one name?)";
        return false;
      }
      // A job of Strata's contenders alone knows no GPU page; any job with a GPU contender does, and all agree.
      if (m.gpu_page_bytes == 0) m.gpu_page_bytes = w.gpu_page_bytes;
      if (w.gpu_page_bytes != 0 && w.gpu_page_bytes != m.gpu_page_bytes) {
        *error = "two reports disagree about workload '" + tool::Printable(w.name) + "': GPU pages of " +
                 std::to_string(m.gpu_page_bytes) + " and " + std::to_string(w.gpu_page_bytes) + " bytes";
        return false;
      }
      for (const Run& r : w.runs) {
        if (const char* field = ControlCharacterIn(w, r)) {
          *error = "workload '" + tool::Printable(w.name) + "': run '" + tool::Printable(r.contender) +
                   "': a control character in its " + field + " (not a report strata-compare wrote)";
          return false;
        }
        if (const std::string why = UnknownRun(r); !why.empty()) {
          *error = "workload '" + tool::Printable(w.name) + "': run '" + tool::Printable(r.contender) + "': " + why;
          return false;
        }
        for (const Run& have : m.runs) {
          if (have.contender == r.contender && have.backend == r.backend) {
            *error = "workload '" + w.name + "': run '" + r.contender + "' (" + r.backend + ") appears twice";
            return false;
          }
        }
        m.runs.push_back(r);
      }
      m.occupancy.insert(m.occupancy.end(), w.occupancy.begin(), w.occupancy.end());
    }
  }
  for (WorkloadReport& m : *merged) {
    std::stable_sort(m.runs.begin(), m.runs.end(),
                     [&](const Run& a, const Run& b) { return rank(a.contender) < rank(b.contender); });
    std::stable_sort(m.occupancy.begin(), m.occupancy.end(),
                     [&](const Occupancy& a, const Occupancy& b) { return rank(a.contender) < rank(b.contender); });
  }
  return true;
}

}  // namespace strata::compare
