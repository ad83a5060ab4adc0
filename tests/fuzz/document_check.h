// What a Document from the pickle or JSON reader promises (shared by their fuzz targets): every string and
// container reference points into the arenas, containers have the kind that refers to them, dicts hold pairs.
#ifndef STRATA_TESTS_FUZZ_DOCUMENT_CHECK_H_
#define STRATA_TESTS_FUZZ_DOCUMENT_CHECK_H_

#include <string>

#include "document.h"
#include "fuzz_check.h"

namespace strata::fuzz {

inline void CheckValue(const workload::Document& doc, const workload::Value& v) {
  using workload::Kind;
  switch (v.kind) {
    case Kind::kString:
    case Kind::kBytes:
      FUZZ_CHECK(v.ref < doc.strings.size());
      break;
    case Kind::kList:
    case Kind::kTuple:
    case Kind::kDict:
      FUZZ_CHECK(v.ref < doc.containers.size());
      // Containers are shared by reference (the memo), never retyped: the value names the container's kind.
      FUZZ_CHECK(doc.containers[v.ref].kind == v.kind, std::string(workload::KindName(v.kind)));
      break;
    case Kind::kBool:
      FUZZ_CHECK(v.i == 0 || v.i == 1);
      break;
    default:
      break;
  }
}

inline void CheckDocument(const workload::Document& doc) {
  CheckValue(doc, doc.root);
  for (const workload::Container& c : doc.containers) {
    if (c.kind == workload::Kind::kDict) FUZZ_CHECK(c.items.size() % 2 == 0);
    for (const workload::Value& v : c.items) CheckValue(doc, v);
  }
}

}  // namespace strata::fuzz

#endif  // STRATA_TESTS_FUZZ_DOCUMENT_CHECK_H_
