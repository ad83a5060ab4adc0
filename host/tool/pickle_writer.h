// Writes Python pickles (protocol 2) of plain data: dicts, lists, strings, integers, booleans, None and floats, the
// subset PyTorch's memory snapshots use (strata-compare --memory-viz). The reader of the same subset is
// host/workload/pickle_reader.h. Nothing here names a class or a function: what it writes loads with
// pickle.load and restricted unpicklers alike.
#ifndef STRATA_HOST_TOOL_PICKLE_WRITER_H_
#define STRATA_HOST_TOOL_PICKLE_WRITER_H_

#include <stdint.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::tool {

// Values go in as they are written: Begin*/End* nest containers, a dict takes key, value, key, value, ... . Items
// are pushed in batches of kBatch between MARK and APPENDS/SETITEMS (as Python's own pickler does), so that a reader
// never holds more than one batch of a container on its stack.
class PickleWriter {
 public:
  static constexpr uint32_t kBatch = 1000;

  PickleWriter();  // the PROTO 2 header

  void BeginDict();
  void EndDict();
  void BeginList();
  void EndList();
  void Str(std::string_view s);
  // A string written once and referred to by its memo slot after that: dict keys and other short strings that
  // recur (an action name, a file name), so a snapshot of a million entries does not spell each key a million times.
  void Name(std::string_view s);
  void Int(int64_t v);
  void UInt(uint64_t v);
  void Bool(bool v);
  void None();
  void Float(double v);

  // The pickle, with its STOP; the writer is spent. Every container must be closed (false otherwise).
  bool Finish(std::string* out);

 private:
  struct Open {
    bool dict;
    uint32_t items;  // values written since the last MARK (a dict's keys and values both count)
  };
  void Item();            // a value is about to be written into the innermost container
  void Flush(bool dict);  // APPENDS / SETITEMS for the pending batch
  void Put(uint8_t op) { out_.push_back(static_cast<char>(op)); }
  void Le(uint64_t v, int bytes);

  std::string out_;
  std::vector<Open> open_;
  std::unordered_map<std::string, uint32_t> memo_;
  bool broken_ = false;  // a key without a value, an End* that closes nothing
};

}  // namespace strata::tool

#endif  // STRATA_HOST_TOOL_PICKLE_WRITER_H_
