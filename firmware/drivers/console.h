// Console driver: text out through the CTRL block's CONSOLE_TX register, with a small printf.
#ifndef STRATA_FW_DRIVERS_CONSOLE_H_
#define STRATA_FW_DRIVERS_CONSOLE_H_

#include <stdarg.h>
#include <stdint.h>

namespace strata::console {

void PutChar(char c);
void Puts(const char* s);  // no newline added
// Supports %d %i %u %x %X %c %s %p %% with optional '-' (left-justify), '0' padding and width, and the l/ll
// length modifiers (64-bit with ll).
void Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void VPrintf(const char* fmt, va_list args);

// Formats into buf (always NUL-terminated); returns the length it wanted to write.
int SNPrintf(char* buf, uint32_t size, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace strata::console

#endif  // STRATA_FW_DRIVERS_CONSOLE_H_
