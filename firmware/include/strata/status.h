// Canonical status codes shared by firmware, the simulator and the host driver (C and C++).
#ifndef STRATA_STATUS_H_
#define STRATA_STATUS_H_

#ifdef __cplusplus
extern "C" {
#endif

// Numbered as the canonical (gRPC/absl) codes so that names and numbers match what users know.
typedef enum strata_status {
  STRATA_OK = 0,
  STRATA_INVALID_ARGUMENT = 3,
  STRATA_NOT_FOUND = 5,
  STRATA_PERMISSION_DENIED = 7,
  STRATA_RESOURCE_EXHAUSTED = 8,
  STRATA_FAILED_PRECONDITION = 9,
  STRATA_ABORTED = 10,
  STRATA_OUT_OF_RANGE = 11,
  STRATA_UNIMPLEMENTED = 12,
  STRATA_INTERNAL = 13,
  STRATA_UNAVAILABLE = 14,
  STRATA_DATA_LOSS = 15,
} strata_status;

// Name of a status code ("RESOURCE_EXHAUSTED"), or "UNKNOWN" for a number outside the set.
static inline const char* strata_status_name(int status) {
  switch (status) {
    case STRATA_OK:
      return "OK";
    case STRATA_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case STRATA_NOT_FOUND:
      return "NOT_FOUND";
    case STRATA_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case STRATA_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case STRATA_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case STRATA_ABORTED:
      return "ABORTED";
    case STRATA_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case STRATA_UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case STRATA_INTERNAL:
      return "INTERNAL";
    case STRATA_UNAVAILABLE:
      return "UNAVAILABLE";
    case STRATA_DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN";
  }
}

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // STRATA_STATUS_H_
