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

// `text` as one CSV field (RFC 4180): always quoted, each quote doubled, and a ' before a leading =, +, -, @, tab or
// CR, which a spreadsheet would otherwise run as a formula (OWASP's CSV-injection rule). For every string field of
// a tool's CSV: names come from file names and reports, which may hold anything.
std::string CsvText(const std::string& text);

// `text` as XML character data or an attribute value: & < > " ' as entities, each byte that is not part of valid
// UTF-8 and each character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) as U+FFFD, so that a file name of any
// bytes still gives a well-formed document.
std::string XmlText(const std::string& text);

}  // namespace strata::tool

#endif  // STRATA_HOST_TOOL_TEXT_H_
