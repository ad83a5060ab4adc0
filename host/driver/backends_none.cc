// The builtin-backend list of a core-only build (the driver core's unit tests register fakes themselves).
#include "backend.h"

namespace strata::driver {
void RegisterBuiltinBackends() {}
}  // namespace strata::driver
