// Chrome trace-event JSON, written as the run goes (see trace_file.h).
#include "trace_file.h"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace strata::timeline {
namespace {

using nlohmann::json;

constexpr uint64_t kFlushEvery = 256;

}  // namespace

std::unique_ptr<TraceFile> TraceFile::Open(const std::string& path, uint64_t max_bytes, std::string* why) {
  if (path.empty()) {
    *why = "no path given";
    return nullptr;
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    *why = std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<TraceFile>(new TraceFile(f, max_bytes));
}

TraceFile::TraceFile(std::FILE* file, uint64_t max_bytes) : file_(file), max_bytes_(max_bytes) {
  std::fputs("[", file_);  // the format's array; each event follows on its own line (Write)
  bytes_ = 1;
}

TraceFile::~TraceFile() { Close(); }

namespace {
// One event's text; a name or path that is not UTF-8 gets U+FFFD instead of an exception.
std::string Text(const json& event) { return event.dump(-1, ' ', false, json::error_handler_t::replace); }
}  // namespace

void TraceFile::Write(const json& event, bool bounded) { WriteText(Text(event), bounded); }

void TraceFile::WriteText(const std::string& text, bool bounded) {
  if (file_ == nullptr) return;
  if (bounded && (truncated_ || bytes_ + text.size() + 2 > max_bytes_)) {  // once cut, cut for good
    truncated_ = true;
    return;
  }
  const char* sep = events_ == 0 ? "\n" : ",\n";  // no comma before the first event
  bytes_ += std::strlen(sep) + text.size();
  std::fputs(sep, file_);
  std::fputs(text.c_str(), file_);
  if (++events_ % kFlushEvery == 0) std::fflush(file_);
}

int TraceFile::AddProcess(const std::string& name) {
  const int pid = ++processes_;
  Write(json{{"ph", "M"}, {"pid", pid}, {"name", "process_name"}, {"args", {{"name", name}}}}, false);
  Write(json{{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", pid}}}}, false);
  return pid;
}

void TraceFile::Label(int pid, const std::string& text) {
  Write(json{{"ph", "M"}, {"pid", pid}, {"name", "process_labels"}, {"args", {{"labels", text}}}}, false);
}

int TraceFile::Thread(int pid, const std::string& name) {
  const auto key = std::make_pair(pid, name);
  const auto it = threads_.find(key);
  if (it != threads_.end()) return it->second;
  const int tid = ++thread_counts_[pid];
  threads_[key] = tid;
  Write(json{{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}}, false);
  Write(json{{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_sort_index"}, {"args", {{"sort_index", tid}}}},
        false);
  return tid;
}

void TraceFile::Complete(int pid, int tid, const std::string& name, double ts, double dur, const json& args) {
  Write(json{{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"ts", ts}, {"dur", dur}, {"args", args}});
}

void TraceFile::Async(int pid, int tid, const std::string& category, const std::string& name, double begin, double end,
                      const json& args) {
  const uint64_t id = async_id_ + 1;
  const std::string b = Text(json{{"ph", "b"},
                                  {"pid", pid},
                                  {"tid", tid},
                                  {"cat", category},
                                  {"id", id},
                                  {"name", name},
                                  {"ts", begin},
                                  {"args", args}});
  const std::string e =
      Text(json{{"ph", "e"}, {"pid", pid}, {"tid", tid}, {"cat", category}, {"id", id}, {"name", name}, {"ts", end}});
  if (truncated_ || bytes_ + b.size() + e.size() + 4 > max_bytes_) {  // both halves or neither: a lone "b" stays open
    truncated_ = true;
    return;
  }
  async_id_ = id;
  WriteText(b, false);
  WriteText(e, false);
}

void TraceFile::Instant(int pid, int tid, const std::string& name, double ts, const json& args) {
  Write(json{{"ph", "i"}, {"s", "t"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"ts", ts}, {"args", args}});
}

void TraceFile::Counter(int pid, const std::string& name, double ts, const json& values) {
  Write(json{{"ph", "C"}, {"pid", pid}, {"name", name}, {"ts", ts}, {"args", values}});
}

bool TraceFile::Close() {
  if (file_ == nullptr) return ok_;
  if (truncated_) {
    for (int pid = 1; pid <= processes_; ++pid) Label(pid, "timeline cut at its size bound: later events are missing");
  }
  std::fputs("\n]\n", file_);
  ok_ = std::ferror(file_) == 0;
  ok_ = std::fclose(file_) == 0 && ok_;  // a full disk shows here at the latest
  file_ = nullptr;
  return ok_;
}

}  // namespace strata::timeline
