// The reference for the host replay: Strata's allocator library driven directly, one call per event, as
// strata-replay's host replay did before it ran through the C API (host/replay/runner.h) on the `host` backend.
// The tests hold the backend and replay::Replay to it.
#ifndef STRATA_TESTS_HOST_DIRECT_REPLAY_H_
#define STRATA_TESTS_HOST_DIRECT_REPLAY_H_

#include <string>

#include "replay.h"

namespace strata::replay {

// Replay() with the allocator called directly: the same options (but progress and verbose) and every figure of the
// result, the wall-clock ones measured around the allocator's calls.
bool DirectReplay(const Trace& trace, const ReplayOptions& options, ReplayResult* result, std::string* error);

}  // namespace strata::replay

#endif  // STRATA_TESTS_HOST_DIRECT_REPLAY_H_
