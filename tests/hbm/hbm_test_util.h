// Helpers shared by the HBM model tests: request builders and a submit-and-wait driver.
#ifndef STRATA_TESTS_HBM_HBM_TEST_UTIL_H_
#define STRATA_TESTS_HBM_HBM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hbm/hbm_model.h"

namespace strata::hbm::testing {

inline HbmRequest Read(uint64_t addr, uint32_t len = 32, uint64_t tag = 0) {
  HbmRequest r;
  r.addr = addr;
  r.len = len;
  r.tag = tag;
  return r;
}

inline HbmRequest Write(uint64_t addr, uint32_t len, uint8_t seed, uint64_t tag = 0) {
  HbmRequest r = Read(addr, len, tag);
  r.is_write = true;
  for (uint32_t i = 0; i < len; ++i) r.data[i] = static_cast<uint8_t>(seed + i * 7);
  return r;
}

// Submits one request into an otherwise idle model and ticks until its response; returns it.
inline HbmResponse RunOne(HbmModel& m, const HbmRequest& r) {
  EXPECT_TRUE(m.Submit(r));
  HbmResponse out;
  for (int i = 0; i < 100000; ++i) {
    m.Tick();
    if (m.PopResponse(&out)) return out;
  }
  ADD_FAILURE() << "no response";
  return out;
}

// Submits the requests in order (retrying on back-pressure, up to `per_cycle` per cycle), ticks until
// all responses are back, and returns the cycles that took.
inline uint64_t RunAll(HbmModel& m, const std::vector<HbmRequest>& reqs, uint32_t per_cycle = 64,
                       std::vector<HbmResponse>* responses = nullptr) {
  const uint64_t start = m.Now();
  size_t next = 0, done = 0;
  HbmResponse r;
  while (done < reqs.size()) {
    for (uint32_t k = 0; k < per_cycle && next < reqs.size(); ++k) {
      if (!m.Submit(reqs[next])) break;
      ++next;
    }
    m.Tick();
    while (m.PopResponse(&r)) {
      ++done;
      if (responses) responses->push_back(r);
    }
    if (m.Now() - start > 100000000) {
      ADD_FAILURE() << "RunAll did not finish";
      break;
    }
  }
  return m.Now() - start;
}

}  // namespace strata::hbm::testing

#endif  // STRATA_TESTS_HBM_HBM_TEST_UTIL_H_
