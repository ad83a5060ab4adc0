// JSON output as every tool writes it: built as nlohmann::ordered_json (keys in the order written) and printed by
// JsonLine as one line, never malformed (bytes that are not UTF-8 become U+FFFD instead of an exception).
#ifndef STRATA_HOST_TOOL_JSON_LINES_H_
#define STRATA_HOST_TOOL_JSON_LINES_H_

#include <nlohmann/json.hpp>
#include <string>

namespace strata::tool {

using Json = nlohmann::ordered_json;

// `value` as one line of JSON text, no trailing newline.
std::string JsonLine(const Json& value);
// `value` as one line on stdout, flushed at once (a benchmark's result line shows as it comes).
void PrintJsonLine(const Json& value);
// x to `digits` decimals, for JSON numbers (the shortest text for it is printed).
double JsonRound(double x, int digits);
// The body of a JSON string for `s` (quotes, backslashes and control characters escaped), by nlohmann-json; for
// callers that still splice JSON text (python/src/tools_module.cc).
std::string JsonEscape(const std::string& s);

}  // namespace strata::tool

#endif  // STRATA_HOST_TOOL_JSON_LINES_H_
