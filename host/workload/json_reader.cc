// JSON -> Document through nlohmann's SAX interface: no recursion, depth and object count bounded.
#include "json_reader.h"

#include <bit>
#include <cstddef>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

namespace strata::workload {
namespace {

// A char iterator that publishes how far the parser has read, so SAX events know their byte offset.
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, const char* base, uint64_t* consumed) : p_(p), base_(base), consumed_(consumed) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    if (consumed_ != nullptr) *consumed_ = static_cast<uint64_t>(p_ - base_);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_ = nullptr;
  const char* base_ = nullptr;
  uint64_t* consumed_ = nullptr;
};

class Builder : public nlohmann::json_sax<nlohmann::json> {
 public:
  Builder(const JsonLimits& limits, Document* doc, const uint64_t* consumed)
      : lim_(limits), doc_(doc), consumed_(consumed) {}

  bool null() override { return Add(Value{Kind::kNone, 0, 0}); }
  bool boolean(bool v) override { return Add(Value{Kind::kBool, 0, v ? 1 : 0}); }
  bool number_integer(number_integer_t v) override { return Add(Value{Kind::kInt, 0, v}); }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<uint64_t>(INT64_MAX)) return Add(Value{Kind::kBigInt, 0, 8});
    return Add(Value{Kind::kInt, 0, static_cast<int64_t>(v)});
  }
  bool number_float(number_float_t v, const string_t&) override {
    return Add(Value{Kind::kFloat, 0, std::bit_cast<int64_t>(v)});
  }
  bool string(string_t& v) override { return AddString(Kind::kString, v); }
  bool binary(binary_t& v) override { return AddString(Kind::kBytes, std::string(v.begin(), v.end())); }
  bool key(string_t& v) override { return AddString(Kind::kString, v); }
  bool start_object(std::size_t) override { return Open(Kind::kDict); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(Kind::kList); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    // nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1, column 5: ...":
    // keep what follows "parse error" and give the byte offset the project's way.
    std::string what = ex.what();
    const size_t at = what.find("parse error");
    if (at != std::string::npos) what = what.substr(at);
    const size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    error = "byte " + std::to_string(position > 0 ? position - 1 : 0) + ": invalid JSON: " + what;
    return false;
  }

  std::string error;
  bool done = false;

 private:
  uint64_t Here() const { return *consumed_ > 0 ? *consumed_ - 1 : 0; }
  bool Fail(const std::string& what) {
    error = "byte " + std::to_string(Here()) + ": " + what;
    return false;
  }
  bool NewObject() {
    if (doc_->strings.size() + doc_->containers.size() >= lim_.max_objects) {
      return Fail("more than " + std::to_string(lim_.max_objects) + " strings and containers");
    }
    return true;
  }
  bool Add(const Value& v) {
    if (open_.empty()) {
      doc_->root = v;
      done = true;
      return true;
    }
    doc_->containers[open_.back()].items.push_back(v);
    return true;
  }
  bool AddString(Kind kind, std::string text) {
    if (!NewObject()) return false;
    doc_->strings.push_back(StringNode{std::move(text), Here()});
    return Add(Value{kind, static_cast<uint32_t>(doc_->strings.size() - 1), 0});
  }
  bool Open(Kind kind) {
    if (open_.size() >= lim_.max_depth) {
      return Fail("arrays and objects nested more than " + std::to_string(lim_.max_depth) + " deep");
    }
    if (!NewObject()) return false;
    doc_->containers.push_back(Container{kind, Here(), {}});
    const uint32_t index = static_cast<uint32_t>(doc_->containers.size() - 1);
    if (!Add(Value{kind, index, 0})) return false;
    done = false;
    open_.push_back(index);
    return true;
  }
  bool Close() {
    open_.pop_back();
    if (open_.empty()) done = true;
    return true;
  }

  const JsonLimits& lim_;
  Document* doc_;
  const uint64_t* consumed_;
  std::vector<uint32_t> open_;
};

}  // namespace

size_t JsonValueStart(std::string_view data) {
  const size_t bom = data.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  return data.find_first_not_of(" \t\r\n", bom);
}

bool ReadJson(std::string_view data, const JsonLimits& limits, Document* doc, std::string* error) {
  doc->Clear();
  if (data.size() > limits.max_bytes) {
    *error = "byte 0: the JSON is " + std::to_string(data.size()) + " bytes, over the limit of " +
             std::to_string(limits.max_bytes);
    return false;
  }
  uint64_t consumed = 0;
  Builder builder(limits, doc, &consumed);
  const char* base = data.data();
  CountingIterator first(base, base, &consumed), last(base + data.size(), base, nullptr);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(first, last, &builder, nlohmann::json::input_format_t::json, true, false);
  } catch (const std::exception& e) {  // the SAX parser reports through parse_error; this is a backstop
    builder.error = std::string("byte ") + std::to_string(consumed) + ": invalid JSON: " + e.what();
    ok = false;
  }
  if (!ok || !builder.done) {
    *error = builder.error.empty() ? "byte " + std::to_string(consumed) + ": invalid JSON" : builder.error;
    doc->Clear();
    return false;
  }
  return true;
}

}  // namespace strata::workload
