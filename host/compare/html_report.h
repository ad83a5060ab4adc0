// strata-compare --html: the whole comparison as one self-contained page that opens offline in any browser: memory
// over the run per contender on one time axis, OOMs and compactions marked, the verdict, and where every buffer was
// (address x time). The page's template, style and script are host/compare/html/, compiled in (cmake/EmbedFiles.cmake);
// the report is one JSON object inside the page (docs/comparison.md, "One page: --html").
#ifndef STRATA_HOST_COMPARE_HTML_REPORT_H_
#define STRATA_HOST_COMPARE_HTML_REPORT_H_

#include <string>
#include <vector>

#include "compare.h"

namespace strata::compare {

constexpr int kHtmlDataVersion = 1;
// The bands of each run's series the page draws (Options::detail_points for --html).
constexpr size_t kHtmlSeriesBands = 4096;

// The page's data: {"tool":"strata-compare-html","version":1,"workloads":[...]} as JSON text, with every '<', '>' and
// '&' written as a \u escape so that no name can end the <script> element that holds it or open a comment there.
// `fit_json`: strata-fit's report (fit::ToJson), drawn as the device x policy heat map above the workloads, which are
// then its runs, one per device; empty: none.
std::string HtmlData(const std::vector<WorkloadReport>& reports, const std::string& fit_json = "");
// The whole page. Runs without bands (a merged report, a tenant run) are drawn from their downsampled series.
std::string ToHtml(const std::vector<WorkloadReport>& reports, const std::string& fit_json = "");

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_HTML_REPORT_H_
