// strata-compare --html (see html_report.h).
#include "html_report.h"

#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "html_assets.h"
#include "report.h"

namespace strata::compare {
namespace {

using Json = nlohmann::ordered_json;

// The series as bands (first event, last event, least and most in use and reserved): the run's own, or its
// downsampled series where it has none (each point a band of one event).
Json BandsJson(const Run& r) {
  std::vector<SeriesBand> points;  // a point of the downsampled series is a band of one event
  if (r.bands.empty()) {
    for (const SeriesPoint& p : r.series)
      points.push_back({p.event, p.event, p.in_use, p.in_use, p.reserved, p.reserved});
  }
  Json e0 = Json::array(), e1 = Json::array(), umin = Json::array(), umax = Json::array(), rmin = Json::array(),
       rmax = Json::array();
  for (const SeriesBand& b : r.bands.empty() ? points : r.bands) {
    e0.push_back(b.first);
    e1.push_back(b.last);
    umin.push_back(b.in_use_min);
    umax.push_back(b.in_use_max);
    rmin.push_back(b.reserved_min);
    rmax.push_back(b.reserved_max);
  }
  return Json{{"e0", e0}, {"e1", e1}, {"umin", umin}, {"umax", umax}, {"rmin", rmin}, {"rmax", rmax}};
}

Json RunJson(const Run& r) {
  Json ooms{{"e", Json::array()}, {"k", Json::array()}, {"b", Json::array()}, {"n", Json::array()}};
  if (!r.oom_marks.empty()) {
    for (const OomMark& m : r.oom_marks) {
      ooms["e"].push_back(m.event);
      ooms["k"].push_back(m.kind);
      ooms["b"].push_back(m.buffer_id);
      ooms["n"].push_back(m.request_bytes);
    }
  } else {  // a report read back: the events and kinds only
    for (const auto& [event, kind] : r.oom_events) {
      ooms["e"].push_back(event);
      ooms["k"].push_back(kind);
      ooms["b"].push_back(nullptr);
      ooms["n"].push_back(nullptr);
    }
  }
  Json compactions{{"e", Json::array()}, {"n", Json::array()}};
  for (const auto& [event, bytes] : r.compactions) {
    compactions["e"].push_back(event);
    compactions["n"].push_back(bytes);
  }
  Json places = nullptr;
  if (r.has_places) {
    places = Json{
        {"b", Json::array()}, {"o", Json::array()}, {"n", Json::array()}, {"t0", Json::array()}, {"t1", Json::array()}};
    for (const replay::PlacedSpan& p : r.places) {
      places["b"].push_back(p.buffer);
      places["o"].push_back(p.offset);
      places["n"].push_back(p.bytes);
      places["t0"].push_back(p.from);
      places["t1"].push_back(p.to);
    }
  }
  const MinCapacity& m = r.min_capacity;
  return Json{
      {"contender", r.contender},
      {"family", r.family},
      {"backend", r.backend},
      {"allocator", r.allocator},
      {"capacity_bytes", r.capacity_bytes},
      {"completed", r.completed()},
      {"allocs", r.allocs},
      {"failed_allocs", r.failed_allocs},
      {"peak_live_bytes", r.peak_live_bytes},
      {"peak_reserved_bytes", r.peak_reserved_bytes},
      {"first_oom", FirstOomJson(r.first_oom)},
      {"min_capacity", m.searched ? Json{{"found", m.found}, {"bytes", m.bytes}, {"ratio", m.ratio}} : Json(nullptr)},
      {"bytes_moved", r.cost.bytes_moved},
      {"advice", r.advice},
      {"bands", BandsJson(r)},
      {"ooms", ooms},
      {"compactions", compactions},
      {"places", places}};
}

Json WorkloadJson(const WorkloadReport& w) {
  Json runs = Json::array();
  for (const Run& r : w.runs) runs.push_back(RunJson(r));
  // The trace's own live bytes are the same for every contender: once, from the first run with bands.
  Json live{{"e", Json::array()}, {"v", Json::array()}};
  for (const Run& r : w.runs) {
    if (r.bands.empty()) continue;
    for (const SeriesBand& b : r.bands) {
      live["e"].push_back(b.first);
      live["v"].push_back(b.live_max);
    }
    break;
  }
  Json buffers = nullptr;
  if (!w.buffer_list.empty()) {
    buffers = Json{{"id", Json::array()}, {"size", Json::array()}, {"lower", Json::array()}, {"upper", Json::array()}};
    for (const replay::TraceBuffer& b : w.buffer_list) {
      buffers["id"].push_back(b.id);
      buffers["size"].push_back(b.size);
      buffers["lower"].push_back(b.lower);
      buffers["upper"].push_back(b.upper);
    }
    // Labels as one table of distinct texts and an index per buffer (-1: none), as the trace keeps them.
    if (w.buffer_labels.size() == w.buffer_list.size()) {
      Json text = Json::array(), index = Json::array();
      std::unordered_map<std::string_view, int64_t> seen;
      for (std::string_view label : w.buffer_labels) {
        if (label.empty()) {
          index.push_back(-1);
          continue;
        }
        auto [it, fresh] = seen.try_emplace(label, static_cast<int64_t>(text.size()));
        if (fresh) text.push_back(std::string(label));
        index.push_back(it->second);
      }
      if (!seen.empty()) {
        buffers["label_text"] = std::move(text);
        buffers["label"] = std::move(index);
      }
    }
  }
  return Json{{"name", w.name},
              {"source", w.source},
              {"buffers", w.buffers},
              {"events", w.events},
              {"max_load_bytes", w.max_load_bytes},
              {"capacity", w.capacity_text},
              {"capacity_bytes", w.capacity_bytes},
              {"page_note", PageNote(w)},
              {"verdict", Verdict(w)},
              {"table", ToTable(w)},
              {"live", live},
              {"buffer_list", buffers},
              {"runs", runs}};
}

std::string Embedded(const unsigned char* bytes, size_t size) {
  return std::string(reinterpret_cast<const char*>(bytes), size);
}

}  // namespace

std::string HtmlData(const std::vector<WorkloadReport>& reports, const std::string& fit_json) {
  Json workloads = Json::array();
  for (const WorkloadReport& w : reports) workloads.push_back(WorkloadJson(w));
  Json doc{{"tool", "strata-compare-html"}, {"version", kHtmlDataVersion}, {"workloads", workloads}};
  if (!fit_json.empty()) doc["fit"] = Json::parse(fit_json);  // strata-fit's own report: well-formed
  const std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);  // not UTF-8: U+FFFD
  // '<', '>' and '&' occur in JSON text only inside strings, where \uXXXX means the same character: the element's
  // text then holds no "</script", "<!--" or character reference, whatever a workload is named.
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ToHtml(const std::vector<WorkloadReport>& reports, const std::string& fit_json) {
  // The template's slots, each once, filled in order: the inserted text is never searched for the next slot.
  const std::string page = Embedded(html::kPage, html::kPage_size);
  const std::pair<const char*, std::string> slots[] = {
      {"/*@STYLE@*/", Embedded(html::kStyle, html::kStyle_size)},
      {"@DATA@", HtmlData(reports, fit_json)},
      {"/*@SCRIPT@*/", Embedded(html::kScript, html::kScript_size)},
  };
  std::string out;
  size_t at = 0;
  for (const auto& [slot, text] : slots) {
    const size_t found = page.find(slot, at);
    if (found == std::string::npos) continue;  // a template without it (checked by test compare.html_page)
    out.append(page, at, found - at);
    out += text;
    at = found + std::string(slot).size();
  }
  out.append(page, at, std::string::npos);
  return out;
}

}  // namespace strata::compare
