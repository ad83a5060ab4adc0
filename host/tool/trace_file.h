// A Chrome trace-event JSON file (the format ui.perfetto.dev and chrome://tracing open), written as events
// happen: processes and named threads, complete ("X") and async ("b"/"e") slices, instants and counters.
// Every event is one line; the file is flushed every few hundred events, and the format's closing bracket
// is optional, so a run that stops early still leaves a file the viewers open. A size bound drops events
// past it and says so in each process's label. Knows nothing about Strata: device_timeline.h maps a
// device's events onto it, strata-compare its policies' series.
#ifndef STRATA_HOST_TOOL_TRACE_FILE_H_
#define STRATA_HOST_TOOL_TRACE_FILE_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>

namespace strata::timeline {

class TraceFile {
 public:
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{256} << 20;  // every tool's default size bound
  static constexpr uint64_t kMinMaxBytes = 4096;                     // the least bound any tool accepts
  // Creates (truncates) the file; null with *why set when it cannot be written.
  static std::unique_ptr<TraceFile> Open(const std::string& path, uint64_t max_bytes, std::string* why);
  ~TraceFile();  // Close(), its answer lost: call Close() to know
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  // A new process (1, 2, ...): one per device or per policy, stacked in this order.
  int AddProcess(const std::string& name);
  // A line of text under the process's name (the clock it uses, what was cut).
  void Label(int pid, const std::string& text);
  // The thread (row) `name` of a process, created on first use in the order of first use.
  int Thread(int pid, const std::string& name);

  // Times are microseconds, as the format has them.
  void Complete(int pid, int tid, const std::string& name, double ts, double dur, const nlohmann::json& args);
  // A slice that may overlap others on its row (each gets its own lane).
  void Async(int pid, int tid, const std::string& category, const std::string& name, double begin, double end,
             const nlohmann::json& args);
  void Instant(int pid, int tid, const std::string& name, double ts, const nlohmann::json& args);
  // One sample of the counter track `name` (one series per key of `values`).
  void Counter(int pid, const std::string& name, double ts, const nlohmann::json& values);

  // Labels every process whose events were cut, writes the closing bracket, closes (idempotent). False when
  // anything could not be written (a full disk): the file is then incomplete.
  bool Close();

 private:
  TraceFile(std::FILE* file, uint64_t max_bytes);
  // One event on its own line; past max_bytes it is dropped unless `bounded` is false (metadata).
  void Write(const nlohmann::json& event, bool bounded = true);
  void WriteText(const std::string& text, bool bounded);

  std::FILE* file_;
  uint64_t max_bytes_;
  bool truncated_ = false;
  bool ok_ = true;  // Close()'s answer
  uint64_t bytes_ = 0;
  uint64_t events_ = 0;
  uint64_t async_id_ = 0;
  int processes_ = 0;
  std::map<std::pair<int, std::string>, int> threads_;  // (pid, name) -> tid
  std::map<int, int> thread_counts_;                    // pid -> threads so far
};

}  // namespace strata::timeline

#endif  // STRATA_HOST_TOOL_TRACE_FILE_H_
