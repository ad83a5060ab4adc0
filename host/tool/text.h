// Text for people, as every tool prints it: byte counts in binary units, and what came from an input made safe to
// print on a terminal.
#ifndef STRATA_HOST_TOOL_TEXT_H_
#define STRATA_HOST_TOOL_TEXT_H_

#include <stdint.h>

#include <cstddef>
#include <string>

namespace strata::tool {

// "1.41 GiB", "512 B": bytes in the largest binary unit below 1024 of it (two decimals above bytes).
std::string HumanBytes(uint64_t bytes);

// `text` safe to print on a terminal: each control character (C0, DEL) as \n, \t or \xHH and each backslash
// doubled, so a name or a field from a file cannot move the cursor, recolour or retitle the terminal; cut at
// `max_bytes` of the text with "..." after it. For everything a tool prints that came from an input.
std::string Printable(const std::string& text, size_t max_bytes = SIZE_MAX);

}  // namespace strata::tool

#endif  // STRATA_HOST_TOOL_TEXT_H_
