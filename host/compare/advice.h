// What would have saved a failing run: the settings a contender's framework offers (JAX's fraction, preallocation
// and allocator; TensorFlow's growth, async allocator and reserve; PyTorch's max_split_size_mb, expandable segments and
// rounding; JAX's Defragment(); Strata's compaction), each replayed through RunContender, and the cheapest that
// completes as the exact line to set (docs/fit.md, "What would have saved it"). strata-fit's matrix and
// strata-compare's verdict both ask it.
#ifndef STRATA_HOST_COMPARE_ADVICE_H_
#define STRATA_HOST_COMPARE_ADVICE_H_

#include <stdint.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compare.h"
#include "devices.h"

namespace strata::compare {

// One way to run the workload: a strata-compare contender with the framework settings applied to it.
struct Setting {
  std::string contender;                       // "jax", "torch", "strata", "jax+defrag", ...
  std::map<std::string, std::string> options;  // the policy's options (host/gpu PolicyOptions), e.g. mem_fraction
  std::string line;  // what the user sets: "XLA_PYTHON_CLIENT_MEM_FRACTION=0.80"; empty: the defaults
  // How far it departs from the failing setting: 0 tunes the same allocator (a fraction, a reserve, a split or
  // rounding rule), 1 switches the allocator's mode (growth, expandable segments, an async pool, no cache), 2 moves
  // live data (JAX's Defragment(), Strata's compaction).
  int tier = 0;
};

// A replay at one device.
struct Outcome {
  bool completed = false;
  uint64_t failed_allocs = 0;
  std::string kind = "none";  // the first OOM's kind: capacity, cap, fragmentation
  int64_t first_event = -1;   // its index in replay order
  int64_t first_buffer = 0;
  uint64_t request_bytes = 0, live_bytes = 0, reserved_at_oom_bytes = 0, largest_free_bytes = 0;
  std::string message;  // what the framework would print
  uint64_t peak_reserved_bytes = 0;
  uint64_t device_calls = 0;  // device allocations, frees, maps and unmaps
  uint64_t syncs = 0;         // device and stream synchronisations
  uint64_t bytes_moved = 0;   // Strata: HBM->HBM by compaction; JAX's Defragment(): through the host
};

// The setting that saves a failing (device, policy), or why none does.
struct Fix {
  bool needed = false;    // the cell failed
  bool found = false;     // a setting completes
  bool capacity = false;  // the workload's peak does not fit the device: no setting helps
  Setting setting;
  Outcome outcome;  // the fix's run
  uint32_t tried = 0;
  std::vector<std::pair<Setting, Outcome>> alternatives;  // every setting tried that completes, in the order tried
  std::string why;                                        // found: one line of advice; else why nothing helps
};

// One setting at one device, through RunContender. `record` fills the first OOM and peaks. A device not in the
// table (the capacity of a strata-compare run) runs as a GPU of that memory.
bool RunSetting(const replay::Trace& trace, const Setting& setting, const devices::Device& device,
                const std::map<std::string, std::string>& gpu_options, bool record, Outcome* out, std::string* error);

// The settings of the contender's framework worth trying when it fails (fraction searches are done by FindFix):
// each with the exact line to set. `least_split_mb`: the least max_split_size_mb the user's PyTorch accepts
// (gpu::LeastMaxSplitSizeMb).
std::vector<Setting> Candidates(const std::string& contender, uint64_t least_split_mb);
// Searches the framework's settings for the cheapest one that completes on `device`. Cheapest: the lowest tier, then
// the fewest bytes moved, the fewest synchronisations, the least peak reserved memory and the fewest device calls
// (docs/fit.md); the first tried among equals.
bool FindFix(const replay::Trace& trace, const std::string& contender, const devices::Device& device,
             const std::map<std::string, std::string>& gpu_options, Fix* fix, std::string* error);
// The searched settings (a fraction in hundredths, a reserve in MiB, a process's share): `at(v, &completes)` replays at
// v; `bad` is known to fail, `good` is tried first. *found: `good` completes, and *boundary is then the completing
// value nearest `bad` with a failing one next to it (completion need not be monotone; the answer itself always
// completes).
bool BisectSetting(int bad, int good, const std::function<bool(int, bool*)>& at, int* boundary, bool* found);
// True when a is cheaper than b under that rule.
bool Cheaper(const Setting& sa, const Outcome& a, const Setting& sb, const Outcome& b);

// The contender of that name (AllContenders); false when there is none.
bool FindContender(const std::string& name, Contender* out);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_ADVICE_H_
