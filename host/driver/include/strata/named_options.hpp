// strata::NamedOptions: open options given as text (`--option NAME=VALUE`) turned into typed strata_named_values.
// It lives in strata/strata.hpp now, beside the strata::Device constructor that takes named options; this header
// is kept for the programs that include it.
#ifndef STRATA_NAMED_OPTIONS_HPP_
#define STRATA_NAMED_OPTIONS_HPP_

#include "strata/strata.hpp"

#endif  // STRATA_NAMED_OPTIONS_HPP_
