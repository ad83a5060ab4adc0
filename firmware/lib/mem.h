// Declarations of the freestanding memory functions (the device has no C library headers).
#ifndef STRATA_FW_LIB_MEM_H_
#define STRATA_FW_LIB_MEM_H_

#include <stddef.h>

#if defined(__riscv)
extern "C" {
void* memcpy(void* dst, const void* src, size_t n);
void* memset(void* dst, int c, size_t n);
void* memmove(void* dst, const void* src, size_t n);
int memcmp(const void* a, const void* b, size_t n);
}
#else
#include <string.h>  // host builds: the C library's
#endif

#endif  // STRATA_FW_LIB_MEM_H_
