// strata-fit's outputs: the matrix on one screen, JSON, CSV and the SVG heat map.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fit.h"
#include "json_lines.h"
#include "report.h"
#include "text.h"

namespace strata::fit {
namespace {

std::string Fixed(double x, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

const char* ShortKind(const std::string& kind) {
  if (kind == "capacity") return "capacity";
  if (kind == "fragmentation") return "frag";
  return kind.c_str();
}

// One cell of the matrix as text: "fits 5.69x" or "cap@252".
std::string CellText(const Cell& c) {
  if (c.outcome.completed) return c.min_found ? "fits " + Fixed(c.headroom, 2) + "x" : "fits";
  return std::string(ShortKind(c.outcome.kind)) + "@" + std::to_string(c.outcome.first_event);
}

std::string Pad(const std::string& s, size_t n) { return s.size() >= n ? s + " " : s + std::string(n - s.size(), ' '); }

replay::Json OutcomeJson(const Outcome& o) {
  replay::Json j;
  j["completed"] = o.completed;
  j["failed_allocs"] = o.failed_allocs;
  j["first_oom"] = {{"kind", o.kind},
                    {"event", o.first_event},
                    {"buffer_id", o.first_buffer},
                    {"request_bytes", o.request_bytes},
                    {"live_bytes", o.live_bytes},
                    {"reserved_bytes", o.reserved_at_oom_bytes},
                    {"largest_free_bytes", o.largest_free_bytes},
                    {"message", o.message}};
  j["peak_reserved_bytes"] = o.peak_reserved_bytes;
  j["device_calls"] = o.device_calls;
  j["syncs"] = o.syncs;
  j["bytes_moved"] = o.bytes_moved;
  return j;
}

// Headroom to colour: red for a failure, then yellow (just fits) to green (4x and more), on a log scale.
std::string Colour(const Cell& c) {
  if (!c.outcome.completed) return c.fix.found ? "#f4a582" : "#d6604d";
  const double t = c.min_found ? std::clamp(std::log2(std::max(c.headroom, 1.0)) / 2.0, 0.0, 1.0) : 1.0;
  const int r = static_cast<int>(std::lround(255 - t * (255 - 102))),
            g = static_cast<int>(std::lround(224 - t * (224 - 189))),
            b = static_cast<int>(std::lround(120 - t * (120 - 99)));
  char s[16];
  std::snprintf(s, sizeof s, "#%02x%02x%02x", r, g, b);
  return s;
}

}  // namespace

std::string ToTable(const Report& r) {
  std::string out = tool::Printable(r.workload) + " (" + tool::Printable(r.source) + "): " + std::to_string(r.buffers) +
                    " buffers, peak " + tool::HumanBytes(r.max_load_bytes) + " live" +
                    (r.tpu_max_load_bytes ? "; TPU columns padded to the TPU's tiles, peak " +
                                                tool::HumanBytes(r.tpu_max_load_bytes) + " live"
                                          : std::string()) +
                    "\n";
  out +=
      "cells: fits HEADROOMx (device memory over the least it needs under that policy), or KIND@EVENT (the first "
      "OOM)\n";
  const size_t w0 = 19, w = 14;
  std::string header = Pad("policy", w0);
  for (const devices::Device* d : r.devices) header += Pad(d->name, w);
  while (!header.empty() && header.back() == ' ') header.pop_back();
  out += header + "\n";
  for (size_t c = 0; c < r.contenders.size(); ++c) {
    std::string line = Pad(r.contenders[c], w0);
    for (size_t d = 0; d < r.devices.size(); ++d) line += Pad(CellText(r.cells[d * r.contenders.size() + c]), w);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  // Where no setting helps on a device, one line says so for every policy it concerns, and the levers that do
  // help follow once; each other failing cell gets its own line.
  bool advice = false, nothing_helps = false;
  for (size_t d = 0; d < r.devices.size(); ++d) {
    std::string why, who;
    size_t count = 0;
    for (size_t c = 0; c < r.contenders.size(); ++c) {
      const Cell& cell = r.cells[d * r.contenders.size() + c];
      if (cell.outcome.completed || !cell.fix.needed) continue;
      if (!advice) out += "what would have saved it:\n";
      advice = true;
      if (cell.fix.capacity) {
        why = cell.fix.why;
        who = cell.contender;
        ++count;
        continue;
      }
      out += "  " + cell.device + " / " + cell.contender + " (" + cell.outcome.kind + " at event " +
             std::to_string(cell.outcome.first_event) + "): " + cell.fix.why + "\n";
    }
    if (count == 0) continue;
    nothing_helps = true;
    out += "  " + std::string(r.devices[d]->name) + " / " +
           (count == 1 ? who : "the " + std::to_string(count) + " policies") + ": " + why + "\n";
  }
  if (nothing_helps) {
    out += compare::Levers(r.max_load_bytes) + "\n";  // the unpadded peak: a bound for every column
  }
  return out;
}

std::string ToJson(const Report& r) {
  replay::Json j;
  j["tool"] = "strata-fit";
  j["version"] = 1;
  j["workload"] = r.workload;
  j["source"] = r.source;
  j["buffers"] = r.buffers;
  j["max_load_bytes"] = r.max_load_bytes;
  if (r.tpu_max_load_bytes) j["tpu_max_load_bytes"] = r.tpu_max_load_bytes;  // the TPU columns' padded trace
  j["devices"] = replay::Json::array();
  for (const devices::Device* d : r.devices) {
    j["devices"].push_back({{"name", d->name},
                            {"model", d->model},
                            {"kind", devices::KindName(d->kind)},
                            {"total_bytes", d->total_bytes},
                            {"context_bytes", d->context_bytes}});
  }
  j["policies"] = r.contenders;
  j["cells"] = replay::Json::array();
  for (const Cell& c : r.cells) {
    replay::Json cell;
    cell["device"] = c.device;
    cell["policy"] = c.contender;
    cell["fits"] = c.outcome.completed;
    cell["outcome"] = OutcomeJson(c.outcome);
    cell["min_total_bytes"] = c.min_found ? replay::Json(c.min_total_bytes) : replay::Json(nullptr);
    cell["headroom"] = c.min_found ? replay::Json(tool::JsonRound(c.headroom, 4)) : replay::Json(nullptr);
    if (c.fix.needed) {
      replay::Json f;
      f["found"] = c.fix.found;
      f["capacity"] = c.fix.capacity;
      f["tried"] = c.fix.tried;
      f["advice"] = c.fix.why;
      if (c.fix.found) {
        f["line"] = c.fix.setting.line;
        f["policy"] = c.fix.setting.contender;
        f["options"] = c.fix.setting.options;
        f["outcome"] = OutcomeJson(c.fix.outcome);
      }
      f["alternatives"] = replay::Json::array();
      for (const auto& [setting, outcome] : c.fix.alternatives) {
        f["alternatives"].push_back({{"line", setting.line},
                                     {"policy", setting.contender},
                                     {"options", setting.options},
                                     {"tier", setting.tier},
                                     {"peak_reserved_bytes", outcome.peak_reserved_bytes},
                                     {"syncs", outcome.syncs},
                                     {"device_calls", outcome.device_calls},
                                     {"bytes_moved", outcome.bytes_moved}});
      }
      cell["fix"] = f;
    }
    j["cells"].push_back(cell);
  }
  j["wall_seconds"] = tool::JsonRound(r.wall_seconds, 3);
  return tool::JsonLine(j) + "\n";
}

std::string CsvHeader() {
  return "workload,device,policy,fits,oom_kind,first_oom_event,min_total_bytes,headroom,fix_found,fix_line,"
         "fix_reserved_bytes,fix_device_calls,fix_bytes_moved,advice\n";
}

std::string ToCsv(const Report& r) {
  std::string out;
  for (const Cell& c : r.cells) {
    out += tool::CsvText(r.workload) + "," + tool::CsvText(c.device) + "," + tool::CsvText(c.contender) + "," +
           (c.outcome.completed ? "true" : "false") + "," + tool::CsvText(c.outcome.kind) + "," +
           std::to_string(c.outcome.first_event) + "," + (c.min_found ? std::to_string(c.min_total_bytes) : "") + "," +
           (c.min_found ? Fixed(c.headroom, 4) : "") + "," + (c.fix.found ? "true" : "false") + "," +
           tool::CsvText(c.fix.found ? c.fix.setting.line : "") + "," +
           (c.fix.found ? std::to_string(c.fix.outcome.peak_reserved_bytes) : "") + "," +
           (c.fix.found ? std::to_string(c.fix.outcome.device_calls) : "") + "," +
           (c.fix.found ? std::to_string(c.fix.outcome.bytes_moved) : "") + "," + tool::CsvText(c.fix.why) + "\n";
  }
  return out;
}

std::string ToSvg(const Report& r) {
  const int cw = 96, ch = 28, left = 150, top = 70, legend = 40;
  const int width = left + cw * static_cast<int>(r.devices.size()) + 20;
  const int height = top + ch * static_cast<int>(r.contenders.size()) + legend + 20;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                  std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"10\" y=\"20\" font-size=\"14\">Will it fit? " + tool::XmlText(tool::Printable(r.workload, 80)) +
       " (peak " + tool::XmlText(tool::HumanBytes(r.max_load_bytes)) + " live)</text>\n";
  for (size_t d = 0; d < r.devices.size(); ++d) {
    const int x = left + cw * static_cast<int>(d) + cw / 2;
    s += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(top - 8) + "\" text-anchor=\"middle\">" +
         tool::XmlText(r.devices[d]->name) + "</text>\n";
  }
  for (size_t c = 0; c < r.contenders.size(); ++c) {
    const int y = top + ch * static_cast<int>(c);
    s += "<text x=\"" + std::to_string(left - 8) + "\" y=\"" + std::to_string(y + ch / 2 + 4) +
         "\" text-anchor=\"end\">" + tool::XmlText(r.contenders[c]) + "</text>\n";
    for (size_t d = 0; d < r.devices.size(); ++d) {
      const Cell& cell = r.cells[d * r.contenders.size() + c];
      const int x = left + cw * static_cast<int>(d);
      s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(cw - 2) +
           "\" height=\"" + std::to_string(ch - 2) + "\" fill=\"" + Colour(cell) + "\"><title>" +
           tool::XmlText(cell.device + " / " + cell.contender + ": " +
                         (cell.outcome.completed ? "fits"
                          : cell.fix.needed      ? cell.fix.why
                                                 : "fails")) +
           "</title></rect>\n";
      s += "<text x=\"" + std::to_string(x + cw / 2 - 1) + "\" y=\"" + std::to_string(y + ch / 2 + 3) +
           "\" text-anchor=\"middle\" font-size=\"11\">" + tool::XmlText(CellText(cell)) + "</text>\n";
    }
  }
  const int ly = top + ch * static_cast<int>(r.contenders.size()) + 24;
  s += "<text x=\"10\" y=\"" + std::to_string(ly) +
       "\">green: fits with room (headroom = device memory / least needed; yellow near 1x); "
       "salmon: fails, a setting saves it; red: fails, none does</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace strata::fit
