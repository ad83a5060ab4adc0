// strata_workload: the safe pickle reader, the PyTorch snapshot / RMM log importers and the CSV exporter.
// Realistic snapshots come from Python's own pickler (make_snapshots.py, a CTest fixture); malformed and
// hostile ones are assembled here byte by byte, and PickleWriter builds small valid ones for semantic cases.
#include "workload.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "document.h"
#include "json_reader.h"
#include "numbers.h"
#include "pickle_reader.h"
#include "pickle_writer.h"
#include "trace.h"

namespace strata::workload {
namespace {

// Bytes from a literal, embedded NULs included.
template <size_t N>
std::string B(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::string Snapshots() { return STRATA_WORKLOAD_SNAPSHOTS; }

std::string ReadFile(const std::string& name) {
  const std::string path = Snapshots() + "/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path << " is missing: run the tests through ctest (fixture workload.make_snapshots)";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Csv(const replay::Trace& trace) {
  std::ostringstream out;
  std::string error;
  EXPECT_TRUE(WriteTraceCsv(trace, out, &error)) << error;
  return out.str();
}

// ---- A tiny pickle writer: the shape Python's pickler gives (memoized strings and containers, FRAME from
// protocol 4), for small valid snapshots whose content a test wants to get wrong on purpose.

struct Py {
  enum T { kNone, kInt, kFloat, kStr, kList, kTuple, kDict } t = kNone;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<Py> items;  // kDict: key, value, ...
};
Py None() { return Py{}; }
Py I(int64_t v) { return Py{Py::kInt, v, 0, "", {}}; }
Py F(double v) { return Py{Py::kFloat, 0, v, "", {}}; }
Py S(const std::string& v) { return Py{Py::kStr, 0, 0, v, {}}; }
Py L(std::vector<Py> v) { return Py{Py::kList, 0, 0, "", std::move(v)}; }
Py T(std::vector<Py> v) { return Py{Py::kTuple, 0, 0, "", std::move(v)}; }
Py D(std::vector<std::pair<std::string, Py>> kv) {
  Py d{Py::kDict, 0, 0, "", {}};
  for (auto& [k, v] : kv) {
    d.items.push_back(S(k));
    d.items.push_back(std::move(v));
  }
  return d;
}

class PickleWriter {
 public:
  explicit PickleWriter(int protocol) : protocol_(protocol) {}
  std::string Dump(const Py& v) {
    body_.clear();
    strings_.clear();
    next_memo_ = 0;
    Write(v);
    std::string out = "\x80";
    out += static_cast<char>(protocol_);
    if (protocol_ >= 4) {
      out += '\x95';
      Le(&out, body_.size() + 1, 8);  // the frame holds everything up to and including STOP
    }
    return out + body_ + ".";
  }
  // Offsets (in the dumped pickle) of every EMPTY_DICT, in writing order.
  std::vector<size_t> dict_offsets;

 private:
  static void Le(std::string* out, uint64_t v, int n) {
    for (int k = 0; k < n; ++k) out->push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  }
  size_t HeaderBytes() const { return protocol_ >= 4 ? 11 : 2; }
  void Memoize() {
    if (protocol_ >= 4) {
      body_ += '\x94';
    } else if (next_memo_ < 256) {
      body_ += 'q';
      body_ += static_cast<char>(next_memo_);
    } else {
      body_ += 'r';
      Le(&body_, next_memo_, 4);
    }
    ++next_memo_;
  }
  void Get(uint32_t index) {
    if (index < 256) {
      body_ += 'h';
      body_ += static_cast<char>(index);
    } else {
      body_ += 'j';
      Le(&body_, index, 4);
    }
  }
  void Write(const Py& v) {
    switch (v.t) {
      case Py::kNone:
        body_ += 'N';
        return;
      case Py::kInt:
        if (v.i >= 0 && v.i < 256) {
          body_ += 'K';
          Le(&body_, static_cast<uint64_t>(v.i), 1);
        } else if (v.i >= 0 && v.i < 65536) {
          body_ += 'M';
          Le(&body_, static_cast<uint64_t>(v.i), 2);
        } else if (v.i >= INT32_MIN && v.i <= INT32_MAX) {
          body_ += 'J';
          Le(&body_, static_cast<uint64_t>(v.i), 4);
        } else {
          // LONG1, fewest bytes of two's complement that keep the sign.
          int n = 1;
          while (n < 8 && !(v.i >= -(int64_t{1} << (8 * n - 1)) && v.i < (int64_t{1} << (8 * n - 1)))) ++n;
          body_ += '\x8a';
          body_ += static_cast<char>(n);
          Le(&body_, static_cast<uint64_t>(v.i), n);
        }
        return;
      case Py::kFloat: {
        uint64_t bits;
        std::memcpy(&bits, &v.f, 8);
        body_ += 'G';
        for (int k = 7; k >= 0; --k) body_ += static_cast<char>((bits >> (8 * k)) & 0xff);
        return;
      }
      case Py::kStr: {
        auto it = strings_.find(v.s);
        if (it != strings_.end()) return Get(it->second);
        if (protocol_ >= 4 && v.s.size() < 256) {
          body_ += '\x8c';
          Le(&body_, v.s.size(), 1);
        } else {
          body_ += 'X';
          Le(&body_, v.s.size(), 4);
        }
        body_ += v.s;
        strings_[v.s] = next_memo_;
        Memoize();
        return;
      }
      case Py::kTuple:
        if (v.items.empty()) {
          body_ += ')';
          return;
        }
        if (v.items.size() > 3) body_ += '(';
        for (const Py& x : v.items) Write(x);
        body_ += v.items.size() == 1 ? '\x85' : v.items.size() == 2 ? '\x86' : v.items.size() == 3 ? '\x87' : 't';
        Memoize();
        return;
      case Py::kList:
      case Py::kDict:
        if (v.t == Py::kDict) dict_offsets.push_back(HeaderBytes() + body_.size());
        body_ += v.t == Py::kList ? ']' : '}';
        Memoize();
        if (v.items.empty()) return;
        body_ += '(';
        for (const Py& x : v.items) Write(x);
        body_ += v.t == Py::kList ? 'e' : 'u';
        return;
    }
  }
  int protocol_;
  std::string body_;
  std::map<std::string, uint32_t> strings_;
  uint32_t next_memo_ = 0;
};

// A trace entry as PyTorch writes it.
Py Entry(const std::string& action, int64_t addr, int64_t size, int64_t t) {
  return D({{"action", S(action)},
            {"addr", I(addr)},
            {"size", I(size)},
            {"stream", I(0)},
            {"time_us", I(1'700'000'000'000'000 + t)},
            {"frames", L({D({{"filename", S("train.py")}, {"line", I(7)}, {"name", S("step")}})})}});
}
Py Snapshot(std::vector<Py> trace, std::vector<Py> segments = {}) {
  // Settings last, so the dicts before them keep their writing order; they exercise floats, tuples, None.
  return D({{"segments", L(std::move(segments))},
            {"device_traces", L({L(std::move(trace))})},
            {"allocator_settings", D({{"garbage_collection_threshold", F(0.5)},
                                      {"segment_pool_id", T({I(0), I(-1)})},
                                      {"four", T({I(1), I(2), I(3), I(int64_t{1} << 40)})},
                                      {"empty", T({})},
                                      {"last_allocator_settings", None()}})}});
}

bool ImportBytes(const std::string& data, replay::Trace* trace, ImportStats* stats, std::string* error,
                 const ImportOptions& options = {}) {
  return Import(data, Format::kAuto, "test", options, trace, stats, error);
}

std::string ImportError(const std::string& data, const ImportOptions& options = {}) {
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  EXPECT_FALSE(ImportBytes(data, &trace, &stats, &error, options)) << "accepted: " << Csv(trace);
  return error;
}

std::string PickleError(const std::string& data, const PickleLimits& limits = {}) {
  Document doc;
  std::string error;
  EXPECT_FALSE(ReadPickle(data, limits, &doc, nullptr, &error));
  return error;
}

// "\x80\x04" + body + "." without a frame.
std::string P4(const std::string& body) { return std::string("\x80\x04", 2) + body + "."; }

// ---- The reader on Python's own pickles.

TEST(PickleReader, DecodesEveryValueKindPythonWritesInProtocols2To5) {
  for (int protocol = 2; protocol <= 5; ++protocol) {
    SCOPED_TRACE("protocol " + std::to_string(protocol));
    const std::string data = ReadFile("values_p" + std::to_string(protocol) + ".pickle");
    Document doc;
    PickleInfo info;
    std::string error;
    ASSERT_TRUE(ReadPickle(data, {}, &doc, &info, &error)) << error;
    EXPECT_EQ(info.protocol, protocol);
    const Container* root = doc.Node(doc.root);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->items.size(), protocol >= 3 ? 25u : 24u);
    const std::vector<Value>& v = root->items;
    const Container* t3 = doc.Node(v[0]);
    ASSERT_TRUE(t3 != nullptr && t3->kind == Kind::kTuple && t3->items.size() == 3);
    EXPECT_EQ(t3->items[2].i, 3);
    EXPECT_EQ(doc.Node(v[1])->items.size(), 0u);
    EXPECT_EQ(doc.Node(v[2])->items.size(), 1u);
    EXPECT_EQ(doc.Node(v[3])->items.size(), 4u);
    EXPECT_EQ(v[4].kind, Kind::kBigInt);  // 2**3000 (LONG4)
    EXPECT_EQ(v[5].kind, Kind::kBigInt);
    EXPECT_EQ(v[6].i, -1);
    EXPECT_EQ(v[7].i, -129);
    EXPECT_EQ(v[8].i, int64_t{1} << 31);
    EXPECT_EQ(v[9].i, -(int64_t{1} << 31));
    EXPECT_EQ(v[10].kind, Kind::kInt);
    EXPECT_EQ(v[10].i, INT64_MAX);
    EXPECT_EQ(v[11].i, INT64_MIN);
    EXPECT_EQ(v[12].kind, Kind::kBigInt);  // 2**64
    EXPECT_EQ(doc.Float(v[13]), 1.5);
    EXPECT_TRUE(std::signbit(doc.Float(v[14])));
    std::string e200;
    for (int k = 0; k < 200; ++k) e200 += "\xc3\xa9";
    EXPECT_EQ(*doc.Str(v[15]), e200);
    EXPECT_EQ(v[16].kind, Kind::kBool);
    EXPECT_EQ(v[16].i, 1);
    EXPECT_EQ(v[17].i, 0);
    EXPECT_EQ(v[18].kind, Kind::kNone);
    const Value* k = doc.Get(v[19], "k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->kind, Kind::kList);
    // The same list twice is one container, as in Python.
    EXPECT_EQ(v[20].kind, Kind::kList);
    EXPECT_EQ(v[20].ref, v[21].ref);
    EXPECT_EQ(v[22].i, 65535);
    EXPECT_EQ(v[23].i, 65536);
    if (protocol >= 3) {
      EXPECT_EQ(v[24].kind, Kind::kBytes);
      EXPECT_EQ(doc.strings[v[24].ref].text, std::string(300, 'y'));
    }
  }
}

TEST(PickleReader, DecodesHandAssembledOpcodesPythonRarelyWrites) {
  // MARK ... LIST / DICT / TUPLE, DUP, POP, POP_MARK, BINUNICODE8, BINBYTES8, LONG4, negative BININT.
  std::string body;
  body += "(";             // MARK
  body += "(K\x01K\x02l";  // [1, 2]
  body +=
      B("(\x8c\x01kK\x03"
        "d");                                           // {'k': 3}
  body += "(NNNNt";                                     // (None,)*4
  body += std::string("\x8d\x02\0\0\0\0\0\0\0hi", 11);  // BINUNICODE8 'hi'
  body += std::string("\x8e\x01\0\0\0\0\0\0\0z", 10);   // BINBYTES8 b'z'
  body += std::string("\x8b\x02\0\0\0\xff\x7f", 7);     // LONG4 0x7fff
  body += std::string("J\xfe\xff\xff\xff", 5);          // BININT -2
  body +=
      "K\x09"
      "2"
      "0";  // 9, DUP, POP
  body +=
      "(K\x01K\x02"
      "1";      // MARK 1 2 POP_MARK
  body += "l";  // LIST of everything since the first MARK
  Document doc;
  std::string error;
  ASSERT_TRUE(ReadPickle(P4(body), {}, &doc, nullptr, &error)) << error;
  const Container* root = doc.Node(doc.root);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->items.size(), 8u);
  EXPECT_EQ(doc.Node(root->items[0])->items[1].i, 2);
  EXPECT_EQ(doc.Get(root->items[1], "k")->i, 3);
  EXPECT_EQ(doc.Node(root->items[2])->kind, Kind::kTuple);
  EXPECT_EQ(*doc.Str(root->items[3]), "hi");
  EXPECT_EQ(root->items[4].kind, Kind::kBytes);
  EXPECT_EQ(root->items[5].i, 0x7fff);
  EXPECT_EQ(root->items[6].i, -2);
  EXPECT_EQ(root->items[7].i, 9);
}

// ---- The writer (host/tool/pickle_writer.h, strata-compare --memory-viz): the bytes pickletools documents for each
// integer width, and what the reader makes of a spread of values, batches and memo slots. Python's own pickle reads
// the writer's snapshots in test compare.memory_viz.

std::string Written(const std::function<void(tool::PickleWriter&)>& write) {
  tool::PickleWriter w;
  write(w);
  std::string out;
  EXPECT_TRUE(w.Finish(&out));
  return out;
}

TEST(PickleWriter, WritesEachIntegerInItsShortestOpcode) {
  using B = std::string;
  const std::vector<std::pair<int64_t, B>> ints = {
      {0, B("K\x00", 2)},
      {255, B("K\xff", 2)},
      {256, B("M\x00\x01", 3)},
      {65535, B("M\xff\xff", 3)},
      {65536, B("J\x00\x00\x01\x00", 5)},
      {-1, B("J\xff\xff\xff\xff", 5)},
      {INT32_MAX, B("J\xff\xff\xff\x7f", 5)},
      {INT32_MIN, B("J\x00\x00\x00\x80", 5)},
      {int64_t{1} << 31, B("\x8a\x05\x00\x00\x00\x80\x00", 7)},  // 5 bytes: the 4th's top bit would read negative
      {-(int64_t{1} << 31) - 1, B("\x8a\x05\xff\xff\xff\x7f\xff", 7)},  // the 5th byte keeps it negative
      {INT64_MAX, B("\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f", 10)},
      {INT64_MIN, B("\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80", 10)},
  };
  for (const auto& [v, body] : ints) {
    SCOPED_TRACE(v);
    EXPECT_EQ(Written([&](tool::PickleWriter& w) { w.Int(v); }), B("\x80\x02", 2) + body + ".");
  }
  // 2^63 and above: 9 bytes, the last 0 keeping it positive.
  EXPECT_EQ(Written([](tool::PickleWriter& w) { w.UInt(uint64_t{1} << 63); }),
            B("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00.", 14));
  EXPECT_EQ(Written([](tool::PickleWriter& w) { w.Float(1.5); }), B("\x80\x02G\x3f\xf8\0\0\0\0\0\0.", 12));
}

TEST(PickleWriter, WhatItWritesReadsBackValueForValue) {
  const std::string data = Written([](tool::PickleWriter& w) {
    w.BeginList();
    for (int64_t i = 0; i < 2500; ++i) w.Int(i * 3000017 - 4000000000);  // 3 batches of APPENDS, every int width
    w.BeginDict();
    for (int i = 0; i < 1500; ++i) {  // keys written once and then from the memo: past 256 slots, LONG_BINGET
      w.Name("key" + std::to_string(i % 700));
      w.UInt(uint64_t{1} << (i % 64));
    }
    w.EndDict();
    w.Str(std::string("caf\xc3\xa9"));
    w.Bool(true);
    w.Bool(false);
    w.None();
    w.Float(-0.25);
    w.BeginList();
    w.EndList();
    w.EndList();
  });
  Document doc;
  PickleInfo info;
  std::string error;
  ASSERT_TRUE(ReadPickle(data, {}, &doc, &info, &error)) << error;
  EXPECT_EQ(info.protocol, 2);
  const std::vector<Value>& v = doc.Node(doc.root)->items;
  ASSERT_EQ(v.size(), 2500u + 7u);
  for (int64_t i = 0; i < 2500; ++i) ASSERT_EQ(v[i].i, i * 3000017 - 4000000000) << i;
  const Container* dict = doc.Node(v[2500]);
  ASSERT_EQ(dict->kind, Kind::kDict);
  ASSERT_EQ(dict->items.size(), 3000u);
  for (int i = 0; i < 1500; ++i) {
    ASSERT_EQ(*doc.Str(dict->items[2 * i]), "key" + std::to_string(i % 700)) << i;
    const Value& n = dict->items[2 * i + 1];
    if (i % 64 == 63) {
      ASSERT_EQ(n.kind, Kind::kBigInt) << i;  // 2^63 is beyond int64
    } else {
      ASSERT_EQ(n.i, int64_t{1} << (i % 64)) << i;
    }
  }
  EXPECT_EQ(*doc.Str(v[2501]), "caf\xc3\xa9");
  EXPECT_EQ(v[2502].kind, Kind::kBool);
  EXPECT_EQ(v[2502].i, 1);
  EXPECT_EQ(v[2503].i, 0);
  EXPECT_EQ(v[2504].kind, Kind::kNone);
  EXPECT_EQ(doc.Float(v[2505]), -0.25);
  EXPECT_EQ(doc.Node(v[2506])->items.size(), 0u);
}

TEST(PickleWriter, RefusesToFinishWhatIsNotClosed) {
  for (int k = 0; k < 3; ++k) {
    tool::PickleWriter w;
    if (k == 0) w.BeginList();  // left open
    if (k == 1) {               // a key without its value
      w.BeginDict();
      w.Name("k");
      w.EndDict();
    }
    if (k == 2) w.EndList();  // closes nothing
    std::string out = "kept";
    EXPECT_FALSE(w.Finish(&out)) << k;
    EXPECT_EQ(out, "kept");
  }
}

TEST(PickleReader, AListThatHoldsItselfIsReadAndRejectedAsASnapshotWithoutLooping) {
  const std::string data = ReadFile("cycle.pickle");
  Document doc;
  std::string error;
  ASSERT_TRUE(ReadPickle(data, {}, &doc, nullptr, &error)) << error;
  const Value* traces = doc.Get(doc.root, "device_traces");
  ASSERT_NE(traces, nullptr);
  EXPECT_EQ(doc.Node(*traces)->items[0].ref, traces->ref);
  EXPECT_NE(ImportError(data).find("device_traces[0][0] is a list, not a dict"), std::string::npos);
}

// ---- Hostile and broken pickles.

TEST(PickleReader, RefusesEveryOpcodeThatImportsOrCallsCode) {
  const std::vector<std::pair<uint8_t, std::string>> refused = {
      {'c', "GLOBAL"}, {0x93, "STACK_GLOBAL"}, {'R', "REDUCE"},     {'b', "BUILD"}, {'i', "INST"},
      {'o', "OBJ"},    {0x81, "NEWOBJ"},       {0x92, "NEWOBJ_EX"}, {0x82, "EXT1"}, {0x83, "EXT2"},
      {0x84, "EXT4"},  {'P', "PERSID"},        {'Q', "BINPERSID"}};
  for (const auto& [op, name] : refused) {
    const std::string error = PickleError(P4(std::string("N") + static_cast<char>(op) + "os\nsystem\n"));
    EXPECT_NE(error.find("byte 3: opcode " + name + " ("), std::string::npos) << error;
    EXPECT_NE(error.find("refused"), std::string::npos) << error;
  }
  // A protocol-2 GLOBAL as os.system would be pickled.
  const std::string global =
      B("\x80\x02"
        "cposix\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85R.");
  EXPECT_EQ(PickleError(global).rfind("byte 2: opcode GLOBAL (0x63) refused", 0), 0u) << PickleError(global);
  // Python's own pickle of a call to os.system (STACK_GLOBAL then REDUCE).
  const std::string evil = ReadFile("evil.pickle");
  EXPECT_EQ(ImportError(evil).rfind("byte 25: opcode STACK_GLOBAL (0x93) refused", 0), 0u) << ImportError(evil);
}

TEST(PickleReader, NamesUnsupportedAndUnknownOpcodes) {
  EXPECT_NE(PickleError(P4("I1\n")).find("byte 2: opcode INT (0x49) is not supported"), std::string::npos);
  EXPECT_NE(PickleError(P4("\x8f")).find("EMPTY_SET (0x8f) is not supported"), std::string::npos);
  EXPECT_NE(PickleError(P4("\x97")).find("NEXT_BUFFER (0x97) is not supported"), std::string::npos);
  EXPECT_NE(PickleError(P4("N\xff")).find("byte 3: byte 0xff is not a pickle opcode"), std::string::npos);
  EXPECT_NE(PickleError(std::string("\x80\x01N.", 4)).find("byte 0: pickle protocol 1 is not supported"),
            std::string::npos);
  EXPECT_NE(PickleError(std::string("\x80\x06N.", 4)).find("protocol 6 is not supported"), std::string::npos);
}

TEST(PickleReader, RejectsAbsurdLengthsBeforeAllocating) {
  const std::string cases[] = {
      P4(std::string("X\xff\xff\xff\xff", 5) + "abc"),                   // BINUNICODE 4 GiB
      P4(std::string("\x8d\xff\xff\xff\xff\xff\xff\xff\x7f", 9) + "a"),  // BINUNICODE8 2^63
      P4(std::string("\x8e\xff\xff\xff\xff\xff\xff\xff\xff", 9)),        // BINBYTES8 2^64-1
      P4(std::string("B\x00\x00\x00\x80", 5)),                           // BINBYTES 2 GiB
      P4(std::string("C\xc8", 2) + "xyz"),                               // SHORT_BINBYTES 200
      P4(std::string("\x8c\xff", 2) + "x"),                              // SHORT_BINUNICODE 255
      P4(std::string("\x8b\xff\xff\xff\x7f", 5)),                        // LONG4 2 GiB
      P4(std::string("\x8a\xff", 2) + "12"),                             // LONG1 255
  };
  for (const std::string& data : cases) {
    const std::string error = PickleError(data);
    EXPECT_EQ(error.rfind("byte 2: ", 0), 0u) << error;
    EXPECT_NE(error.find("left"), std::string::npos) << error;
  }
  EXPECT_NE(PickleError(P4(std::string("\x8b\xff\xff\xff\xff", 5))).find("LONG4 (0x8b) with a negative length -1"),
            std::string::npos);
  const std::string frame = std::string("\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\xff", 11) + "N.";
  EXPECT_NE(PickleError(frame).find("byte 2: FRAME of 18446744073709551615 bytes runs past the end"),
            std::string::npos);
  const std::string nested_frame =
      std::string("\x80\x04\x95\x0a\0\0\0\0\0\0\0", 11) + std::string("\x95\x01\0\0\0\0\0\0\0N", 10) + ".";
  EXPECT_NE(PickleError(nested_frame).find("byte 11: FRAME starts 1 bytes before the end of the previous frame"),
            std::string::npos)
      << PickleError(nested_frame);
}

TEST(PickleReader, BoundsNestingMemoAndObjects) {
  // 100,000 MARKs: refused at the 1,025th (byte 2 + 1024).
  EXPECT_NE(PickleError(P4(std::string(100000, '('))).find("byte 1026: more than 1024 MARKs open"), std::string::npos);
  PickleLimits small;
  small.max_stack = 1000;
  EXPECT_NE(PickleError(P4(std::string(2000, ']')), small).find("byte 1002: more than 1000 values on the stack"),
            std::string::npos);
  // A list nested 100,000 deep through the stack is within the default bounds and costs no recursion.
  Document doc;
  std::string error;
  const std::string deep = P4(std::string(100000, ']') + std::string(99999, 'a'));
  ASSERT_TRUE(ReadPickle(deep, {}, &doc, nullptr, &error)) << error;
  EXPECT_EQ(ImportError(deep), "byte 3: a segment is a list, not a dict");

  PickleLimits memo;
  memo.max_memo = 10;
  EXPECT_NE(PickleError(P4(std::string(20, 'N') + std::string(20, '\x94')), memo).find("byte 32: more than 10 memo"),
            std::string::npos);
  PickleLimits objects;
  objects.max_objects = 5;
  EXPECT_NE(PickleError(P4(std::string(6, ']')), objects).find("byte 7: more than 5 strings and containers"),
            std::string::npos);
  PickleLimits bytes;
  bytes.max_bytes = 3;
  EXPECT_NE(PickleError(P4("N"), bytes).find("byte 0: the pickle is 4 bytes, over the limit of 3"), std::string::npos);
}

TEST(PickleReader, SharedReferencesDoNotMultiplyMemory) {
  // "Billion laughs": each level is a list of 100 references to the level below; 20 levels would be 100^20
  // elements if copied. Shared, it is 20 small containers.
  std::string body =
      B("]\x94"
        "0");  // level 0: memo 0, popped (the memo keeps it)
  for (int level = 1; level <= 20; ++level) {
    body += "](";
    for (int k = 0; k < 100; ++k) body += 'j' + std::string(1, static_cast<char>(level - 1)) + std::string(3, '\0');
    body += "e\x94";  // memo `level`
    if (level < 20) body += "0";
  }
  Document doc;
  std::string error;
  ASSERT_TRUE(ReadPickle(P4(body), {}, &doc, nullptr, &error)) << error;
  EXPECT_EQ(doc.containers.size(), 21u);
}

TEST(PickleReader, RejectsStructuralErrorsWithTheirOffset) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {P4("}K\x01"
          "a"),
       "byte 5: APPEND (0x61) needs a list below its values, found a dict"},
      {P4("](K\x01K\x02u"), "byte 8: SETITEMS (0x75) needs a dict below its values, found a list"},
      {P4("}(K\x01u"), "byte 6: SETITEMS (0x75) with an odd number of values (1)"},
      {P4("}]K\x01s"), "byte 6: SETITEM (0x73): a list cannot be a dict key"},
      {P4("(]K\x01"
          "d"),
       "byte 6: DICT (0x64): a list cannot be a dict key"},
      {P4("NN"), "byte 4: STOP with 2 values on the stack (expected 1)"},
      {P4("(N"), "byte 4: STOP with 1 MARK(s) open"},
      {P4("N") + "junk", "byte 4: 4 bytes after STOP"},
      {P4("NN\x87"), "byte 4: TUPLE3 (0x87) needs 3 values, the stack has 2"},
      {P4("]Ne"), "byte 4: APPENDS (0x65) without a MARK"},
      {P4("(e"), "byte 3: APPENDS (0x65) needs a list below its MARK, found none"},
      {P4("0"), "byte 2: POP (0x30) without a MARK"},
      {P4("]\x94h\x05"), "byte 4: BINGET (0x68) of memo entry 5, which was never stored"},
      {P4("\x94"), "byte 2: MEMOIZE (0x94) on an empty stack"},
      {P4("N(a"), "byte 4: APPEND (0x61) needs a list and a value; the stack has 0 values"},
      {std::string("\x80\x04", 2), "byte 2: the data ends without STOP: truncated"},
      {"", "byte 0: the data ends without STOP"},
  };
  for (const auto& [data, want] : cases) {
    const std::string error = PickleError(data);
    EXPECT_EQ(error.rfind(want, 0), 0u) << "got: " << error << "\nwant: " << want;
  }
}

TEST(PickleReader, EveryTruncationOfARealSnapshotIsRejected) {
  for (const char* name : {"small_p4.pickle", "basic_p2.pickle", "basic_p4.pickle"}) {
    const std::string data = ReadFile(name);
    ASSERT_GT(data.size(), 100u);
    Document doc;
    std::string error;
    ASSERT_TRUE(ReadPickle(data, {}, &doc, nullptr, &error)) << name << ": " << error;
    for (size_t n = 0; n < data.size(); ++n) {
      replay::Trace trace;
      ImportStats stats;
      ASSERT_FALSE(ImportTorchSnapshot(std::string_view(data).substr(0, n), {}, &trace, &stats, &error))
          << name << " cut at " << n;
      ASSERT_EQ(error.rfind("byte ", 0), 0u) << name << " cut at " << n << ": " << error;
      ASSERT_TRUE(trace.buffers.empty());
    }
  }
}

TEST(PickleReader, SurvivesEveryByteOfASnapshotReplaced) {
  // Not a check of what is accepted, only that nothing crashes, hangs or reads out of bounds (run it under
  // STRATA_SANITIZE=ON to be sure of the last).
  const std::string data = ReadFile("small_p4.pickle");
  const uint8_t replacements[] = {0x00, 0xff, 0x80, 0x7f, '(',  ')',  ']',  '}',  '.',  'h',  'j',  'a', 'e', 'u', 's',
                                  't',  'd',  'l',  0x85, 0x87, 0x8a, 0x8b, 0x8c, 0x8d, 0x94, 0x95, 'X', '0', '1', '2'};
  size_t accepted = 0;
  for (size_t k = 0; k < data.size(); ++k) {
    for (uint8_t r : replacements) {
      std::string mutated = data;
      mutated[k] = static_cast<char>(r);
      replay::Trace trace;
      ImportStats stats;
      std::string error;
      if (ImportTorchSnapshot(mutated, {}, &trace, &stats, &error)) {
        ++accepted;
      } else {
        EXPECT_EQ(error.rfind("byte ", 0), 0u) << error;
      }
    }
  }
  std::mt19937_64 rng(20240611);
  const std::string big = ReadFile("basic_p4.pickle");
  for (int round = 0; round < 3000; ++round) {
    std::string mutated = big;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) mutated[rng() % mutated.size()] = static_cast<char>(rng() & 0xff);
    replay::Trace trace;
    ImportStats stats;
    std::string error;
    if (ImportTorchSnapshot(mutated, {}, &trace, &stats, &error)) {
      std::string csv_error;
      std::ostringstream out;
      EXPECT_TRUE(WriteTraceCsv(trace, out, &csv_error)) << csv_error;  // whatever is accepted is a valid trace
    }
  }
  EXPECT_GT(accepted, 0u);  // some replacements are harmless (a different integer), and that is fine
}

// ---- PyTorch snapshots.

// The trace basic() in make_snapshots.py describes, event k at time k + 1 (14 events, end 15).
constexpr const char* kBasicDevice0 =
    "id,lower,upper,size\n"
    "0,0,7,4096\n"  // freed at event 6 with no alloc: live from the start
    "1,0,10,64\n"   // free_requested at event 9, never completed, no alloc
    "2,0,15,300\n"  // active_allocated block at dump, no alloc in the trace: requested_size
    "3,2,5,512\n"   // alloc, free_requested, free_completed: closed at the completion
    "4,3,9,1000\n"
    "5,6,15,256\n"    // the same address again, never freed
    "6,11,12,128\n";  // free_requested with no free_completed: closed at the request

TEST(TorchSnapshot, ImportsProtocols2To5AndJsonToTheSameTrace) {
  for (const char* name : {"basic_p2.pickle", "basic_p3.pickle", "basic_p4.pickle", "basic_p5.pickle", "basic.json"}) {
    SCOPED_TRACE(name);
    replay::Trace trace;
    ImportStats stats;
    std::string error;
    ASSERT_TRUE(ImportFile(Snapshots() + "/" + name, Format::kAuto, {}, &trace, &stats, &error)) << error;
    EXPECT_EQ(Csv(trace), kBasicDevice0);
    EXPECT_EQ(stats.events, 14u);
    EXPECT_EQ(stats.allocs, 4u);
    EXPECT_EQ(stats.frees, 3u);
    EXPECT_EQ(stats.free_requests, 4u);
    EXPECT_EQ(stats.initially_live, 3u);
    EXPECT_EQ(stats.never_freed, 2u);
    EXPECT_EQ(stats.closed_by_request, 2u);
    EXPECT_EQ(stats.segment_blocks, 1u);
    EXPECT_EQ(stats.devices, 2u);
    EXPECT_EQ(stats.device, 0);
    EXPECT_EQ(stats.peak_live_bytes, 5972u);
    const std::vector<std::pair<std::string, uint64_t>> skipped = {{"segment_alloc", 1}, {"snapshot", 1}, {"oom", 1}};
    EXPECT_EQ(stats.skipped, skipped);
    const std::string kind = std::string(name).find("json") != std::string::npos
                                 ? "torch JSON"
                                 : "torch pickle (protocol " + std::string(1, name[7]) + ")";
    EXPECT_EQ(stats.source, kind);
    EXPECT_EQ(SummaryLine(trace, stats),
              std::string(name) + ": " + kind +
                  ", device 0 of 2: 14 events, 7 buffers (3 initially live, 2 never freed), peak live 5972 bytes, "
                  "2 freed at free_requested; skipped 1 segment_alloc, 1 snapshot, 1 oom");
  }
}

// Each buffer keeps its innermost user frame as a label (torch's own frames skipped), the allocating entry's or,
// for a block live before recording, the block's own; a buffer whose allocation was not recorded has none.
TEST(TorchSnapshot, LabelsTheBuffersFromTheirInnermostUserFrame) {
  for (const char* name : {"basic_p2.pickle", "basic_p4.pickle", "basic.json"}) {
    SCOPED_TRACE(name);
    replay::Trace trace;
    ImportStats stats;
    std::string error;
    ASSERT_TRUE(ImportFile(Snapshots() + "/" + name, Format::kAuto, {}, &trace, &stats, &error)) << error;
    ASSERT_EQ(trace.labels.size(), trace.buffers.size());
    size_t labelled = 0;
    for (size_t i = 0; i < trace.buffers.size(); ++i) {
      if (trace.labels[i].empty()) continue;
      ++labelled;
      EXPECT_EQ(trace.labels[i], "/home/\xc3\xbc/train.py:42:step") << i;  // FRAMES[1]: FRAMES[0] is torch's
    }
    EXPECT_EQ(labelled, stats.allocs + stats.segment_blocks);  // not the frees of unrecorded allocations
    EXPECT_EQ(stats.labels, 1u);                               // one text, shared
  }
}

TEST(TorchSnapshot, LabelsAreCleanedCutAndFallBackToTorchFrames) {
  const auto frame = [](const std::string& file, int64_t line, const std::string& fn) {
    return D({{"filename", S(file)}, {"line", I(line)}, {"name", S(fn)}});
  };
  const auto alloc = [](int64_t addr, Py frames) {
    return D({{"action", S("alloc")}, {"addr", I(addr)}, {"size", I(64)}, {"frames", std::move(frames)}});
  };
  const std::string huge = "/x/<script>alert(\"'1'\")</script>" + std::string(10000, 'a') + "\xc3\xbc.py";
  const Py snap = Snapshot({
      alloc(0x100, L({frame("??", 0, "c10::alloc"), frame("/src/c10/cuda/Alloc.cpp", 9, "malloc"),
                      frame(huge, 3, std::string("bad\x01\xff\xc3name") + std::string(100, 'f'))})),
      alloc(0x200, L({frame("/usr/lib/python3/site-packages/torch/nn/functional.py", 5, "linear")})),
      alloc(0x300, L({frame("/src/c10/cuda/Alloc.cpp", 9, "malloc")})),
      alloc(0x400, L({})),
      D({{"action", S("alloc")}, {"addr", I(0x500)}, {"size", I(64)}}),
  });
  PickleWriter writer(4);
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportBytes(writer.Dump(snap), &trace, &stats, &error)) << error;
  ASSERT_EQ(trace.labels.size(), 5u);
  const std::string_view cut = trace.labels[0];
  EXPECT_LE(cut.size(), 160u);
  EXPECT_EQ(cut.substr(0, 3), "...");                                               // the file name's head goes
  EXPECT_NE(cut.find("a\xc3\xbc.py:3:bad???name"), std::string_view::npos) << cut;  // control and invalid bytes: '?'
  EXPECT_EQ(cut.find('<'), std::string_view::npos);
  EXPECT_EQ(trace.labels[1], "/usr/lib/python3/site-packages/torch/nn/functional.py:5:linear");  // no user frame
  EXPECT_EQ(trace.labels[2], "");                                                                // C++ frames only
  EXPECT_EQ(trace.labels[3], "");
  EXPECT_EQ(trace.labels[4], "");  // no frames at all
  // A file name shorter than the cut keeps its markup: the page and the export escape it, not the importer.
  const Py markup = Snapshot({alloc(0x100, L({frame("<b>&\"'.py", 1, "<i>")}))});
  ASSERT_TRUE(ImportBytes(writer.Dump(markup), &trace, &stats, &error)) << error;
  ASSERT_EQ(trace.labels.size(), 1u);
  EXPECT_EQ(trace.labels[0], "<b>&\"'.py:1:<i>");
}

// Distinct labels from a small file (one long file name, memo-shared, with a new line number per entry): their text
// (each charged 128 bytes more for its bookkeeping) stops at 4 bytes per byte of input plus 1 MiB, and the buffers
// past it keep no label.
TEST(TorchSnapshot, LabelTextIsBoundedByTheFile) {
  std::vector<Py> entries;
  const std::string file = "/" + std::string(150, 'u') + ".py";
  for (int64_t k = 0; k < 20000; ++k) {
    entries.push_back(D({{"action", S("alloc")},
                         {"addr", I(0x1000 + 64 * k)},
                         {"size", I(64)},
                         {"frames", L({D({{"filename", S(file)}, {"line", I(k)}, {"name", S("f")}})})}}));
  }
  PickleWriter writer(4);
  const std::string data = writer.Dump(Snapshot(std::move(entries)));
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportBytes(data, &trace, &stats, &error)) << error;
  ASSERT_EQ(trace.labels.size(), 20000u);
  std::set<std::string_view> distinct(trace.labels.begin(), trace.labels.end());
  distinct.erase("");
  uint64_t text = 0;
  for (std::string_view s : distinct) text += s.size() + 128;
  EXPECT_LE(text, 4 * data.size() + (1u << 20));
  EXPECT_GT(stats.labels_dropped, 0u);
  EXPECT_EQ(stats.labels, distinct.size());
  EXPECT_EQ(stats.labels + stats.labels_dropped, 20000u);
  EXPECT_FALSE(trace.labels.front().empty());
  EXPECT_TRUE(trace.labels.back().empty());
}

TEST(TorchSnapshot, PicksAnotherDevice) {
  ImportOptions options;
  options.device = 1;
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportFile(Snapshots() + "/basic_p4.pickle", Format::kTorch, options, &trace, &stats, &error)) << error;
  // alloc 0x1000 (t1) freed (t2), alloc 0x1000 again (t3, open: its block is not initial), block 0x2000 initial.
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,0,4,50\n1,1,2,100\n2,3,4,200\n");
  options.device = 2;
  EXPECT_FALSE(ImportFile(Snapshots() + "/basic_p4.pickle", Format::kTorch, options, &trace, &stats, &error));
  EXPECT_NE(error.find("basic_p4.pickle: byte 11: device 2 is not in the snapshot (it has devices 0 to 1)"),
            std::string::npos)
      << error;
}

TEST(TorchSnapshot, StateOnlySnapshotSeedsTheLiveBlocksFromTheirSegment) {
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportFile(Snapshots() + "/state_only.pickle", Format::kAuto, {}, &trace, &stats, &error)) << error;
  // Blocks without addresses tile the segment; without requested_size their size is used.
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,0,1,512\n1,0,1,2048\n");
  EXPECT_EQ(stats.events, 0u);
  EXPECT_EQ(stats.initially_live, 2u);
  EXPECT_EQ(stats.peak_live_bytes, 2560u);
}

TEST(TorchSnapshot, OldStyleTraceWithAFreeAndASnapshot) {
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportFile(Snapshots() + "/quirk_2024.pickle", Format::kAuto, {}, &trace, &stats, &error)) << error;
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,0,1,512\n");
  EXPECT_EQ(stats.events, 2u);
  EXPECT_EQ(stats.skipped.size(), 1u);
}

TEST(TorchSnapshot, WriterPicklesInEveryProtocolImportAlike) {
  // Address reuse twice over, and a free before any alloc at an address that is then allocated again.
  const Py snap = Snapshot({Entry("free_completed", 0x5000, 64, 0), Entry("alloc", 0x5000, 32, 1),
                            Entry("alloc", 0x6000, 16, 2), Entry("free_completed", 0x5000, 32, 3),
                            Entry("alloc", 0x5000, 48, 4), Entry("free_requested", 0x5000, 48, 5),
                            Entry("free_completed", 0x5000, 48, 6), Entry("free_completed", 0x6000, 16, 7)});
  for (int protocol = 2; protocol <= 5; ++protocol) {
    PickleWriter writer(protocol);
    replay::Trace trace;
    ImportStats stats;
    std::string error;
    ASSERT_TRUE(ImportBytes(writer.Dump(snap), &trace, &stats, &error)) << error;
    EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,0,1,64\n1,2,4,32\n2,3,8,16\n3,5,7,48\n") << protocol;
    EXPECT_EQ(stats.initially_live, 1u);
  }
}

TEST(TorchSnapshot, ZeroByteBuffersAreDroppedAndCounted) {
  PickleWriter writer(4);
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportBytes(writer.Dump(Snapshot({Entry("alloc", 0x10, 0, 0), Entry("alloc", 0x20, 8, 1)})), &trace,
                          &stats, &error))
      << error;
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,2,3,8\n");
  EXPECT_EQ(stats.zero_size_dropped, 1u);
}

TEST(TorchSnapshot, ContentErrorsNameTheEntryAndItsByteOffset) {
  struct Case {
    Py snapshot;
    size_t dict;  // which EMPTY_DICT the error must point at (writing order)
    std::string want;
  };
  const std::vector<Case> cases = {
      {Snapshot({Entry("alloc", 1, 2, 0), D({{"action", S("alloc")}, {"addr", I(5)}})}), 3,
       "device_traces[0][1] (alloc) has no 'size'"},
      {Snapshot({D({{"action", S("alloc")}, {"addr", I(5)}, {"size", I(-3)}})}), 1,
       "device_traces[0][0] (alloc): 'size' is negative (-3)"},
      {Snapshot({D({{"action", S("free_completed")}, {"addr", S("0x10")}, {"size", I(3)}})}), 1,
       "device_traces[0][0] (free_completed): 'addr' is a str, not an integer"},
      {Snapshot({D({{"action", I(1)}})}), 1, "device_traces[0][0]: 'action' is a int, not a string"},
      {Snapshot({D({{"addr", I(1)}})}), 1, "device_traces[0][0] has no 'action'"},
      {Snapshot({D({{"action", S("alloc")}, {"addr", I(5)}, {"size", I(int64_t{1} << 62 | 1)}})}), 1,
       "device_traces[0][0] (alloc): 'size' (4611686018427387905 bytes) is beyond any device"},
      {Snapshot({}, {D({{"device", I(0)}, {"address", I(0)}, {"blocks", I(3)}})}), 1,
       "a segment's 'blocks' is not a list"},
      {D({{"segments", L({})}, {"device_traces", D({})}}), 1, "'device_traces' is not a list"},
      {D({{"nothing", L({})}}), 0,
       "the top-level dict has neither 'segments' nor 'device_traces': not a PyTorch memory snapshot"},
  };
  for (int protocol : {2, 4}) {
    for (const Case& c : cases) {
      PickleWriter writer(protocol);
      const std::string data = writer.Dump(c.snapshot);
      const std::string error = ImportError(data);
      ASSERT_LT(c.dict, writer.dict_offsets.size());
      const size_t at = writer.dict_offsets[c.dict];
      EXPECT_EQ(data[at], '}');
      EXPECT_EQ(error, "byte " + std::to_string(at) + ": " + c.want) << "protocol " << protocol;
    }
  }
  EXPECT_EQ(ImportError(PickleWriter(4).Dump(I(7))),
            "byte 0: the top level is a int, not a dict with 'segments' and 'device_traces': not a PyTorch memory "
            "snapshot");
}

TEST(TorchSnapshot, AForcedFormatReadsAnythingButJsonAsAPickle) {
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  // pickle.dumps({}, protocol=0): "(dp0\n." uses PUT, a text opcode.
  EXPECT_FALSE(Import("(dp0\n.", Format::kTorch, "p0", {}, &trace, &stats, &error));
  EXPECT_EQ(error, "byte 2: opcode PUT (0x70) is not supported (not used by memory snapshots)");
  EXPECT_FALSE(Import("", Format::kTorch, "empty", {}, &trace, &stats, &error));
  EXPECT_EQ(error, "byte 0: the data ends without STOP: truncated");
  // A bare list of segments (torch.cuda.memory_snapshot()) in JSON.
  ASSERT_TRUE(
      Import(" [{\"device\": 0, \"address\": 4096, \"blocks\": [{\"size\": 64, \"state\": \"active_allocated\"}]}]",
             Format::kTorch, "segs", {}, &trace, &stats, &error))
      << error;
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,0,1,64\n");
}

TEST(TorchSnapshot, JsonErrorsNameTheirByteOffset) {
  const std::string cut = "{\"segments\": [], \"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1";
  EXPECT_EQ(ImportError(cut),
            "byte " + std::to_string(cut.size()) +
                ": invalid JSON: syntax error while parsing object - unexpected end of input; expected '}'");
  EXPECT_EQ(ImportError("{\"segments\": [}"),
            "byte 14: invalid JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or a "
            "literal");
  std::string deep = "{\"segments\": ";
  deep += std::string(100000, '[');
  EXPECT_EQ(ImportError(deep), "byte 268: arrays and objects nested more than 256 deep");
  const std::string entry_error =
      ImportError("{\"segments\": [], \"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1}]]}");
  EXPECT_EQ(entry_error, "byte 36: device_traces[0][0] (alloc) has no 'size'");
  // Every truncation of a small JSON snapshot is rejected.
  const std::string json =
      "{\"segments\": [], \"device_traces\": [[{\"action\": \"alloc\", \"addr\": 16, \"size\": 8}, "
      "{\"action\": \"free_completed\", \"addr\": 16, \"size\": 8}]]}";
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportBytes(json, &trace, &stats, &error)) << error;
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,1,2,8\n");
  for (size_t n = 1; n < json.size(); ++n) {
    EXPECT_FALSE(ImportTorchSnapshot(json.substr(0, n), {}, &trace, &stats, &error)) << n;
    EXPECT_EQ(error.rfind("byte ", 0), 0u) << error;
  }
}

// ---- RMM logs.

TEST(RmmLog, PairsPerPointerSkipsFailuresAndSeedsEarlierBlocks) {
  const std::string log =
      "Thread,Time,Action,Pointer,Size,Stream\n"
      "140,12:00:00.000001,allocate,0x7f0000000000,256,0x0\n"           // 1
      "140,12:00:00.000002,allocate,0x7f0000000100,512,0x0\n"           // 2
      "140,12:00:00.000003,free,0x7f0000000000,256,0x0\n"               // 3
      "140,12:00:00.000004,allocate failure,(nil),1099511627776,0x0\n"  // 4
      "140,12:00:00.000005,allocate,0x7F0000000000,128,0x0\r\n"         // 5: reuse, CRLF, upper-case hex
      "141,12:00:00.000006,free,0x7f00000ff000,64,0x1\n"                // 6: allocated before logging
      "\n"
      "140,12:00:00.000007,free,0x7f0000000100,512,0x0\n";  // 7
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_EQ(DetectFormat(log), Format::kRmm);
  ASSERT_TRUE(ImportBytes(log, &trace, &stats, &error)) << error;
  EXPECT_EQ(Csv(trace), "id,lower,upper,size\n0,0,6,64\n1,1,3,256\n2,2,7,512\n3,5,8,128\n");
  EXPECT_EQ(stats.events, 7u);
  EXPECT_EQ(stats.failed_allocs, 1u);
  EXPECT_EQ(stats.initially_live, 1u);
  EXPECT_EQ(stats.never_freed, 1u);
  EXPECT_EQ(stats.peak_live_bytes, 832u);
  EXPECT_EQ(SummaryLine(trace, stats),
            "test: RMM log: 7 events, 4 buffers (1 initially live, 1 never freed), peak live 832 bytes; skipped 1 "
            "allocate failure");
}

TEST(RmmLog, ErrorsNameTheLine) {
  const std::string header = "Thread,Time,Action,Pointer,Size,Stream\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {header + "1,t,allocate,0x10,8,0\n1,t,realloc,0x10,8,0\n",
       "3: action 'realloc' is not one of allocate, "
       "allocate failure, free"},
      {header + "1,t,allocate,0xZZ,8,0\n", "2: pointer '0xZZ' is not a hex address or (nil)"},
      {header + "1,t,allocate,0x10,-8,0\n", "2: size '-8' is not a non-negative integer"},
      {header + "1,t,allocate,0x10,8\n", "2: expected 6 fields, got 5"},
      {header + "\n\n1,t,allocate,0x10,99999999999999999999999,0\n", "4: size '99999999999999999999999' is not"},
      {"Thread,Time,Action,Pointer,Stream\n", "1: an RMM log starts with the header"},
      {"Thread,Time,Action,Action,Pointer,Size\n", "1: header names column 'Action' twice"},
  };
  for (const auto& [data, want] : cases) {
    replay::Trace trace;
    ImportStats stats;
    std::string error;
    EXPECT_FALSE(ImportRmmLog(data, {}, &trace, &stats, &error));
    EXPECT_EQ(error.rfind(want, 0), 0u) << "got: " << error << "\nwant: " << want;
  }
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  EXPECT_FALSE(ImportRmmLog("", {}, &trace, &stats, &error));
  EXPECT_EQ(error, "1: empty log: no header line");
}

// ---- Detection, files, the exporter.

TEST(Formats, DetectsByTheFirstBytes) {
  EXPECT_EQ(DetectFormat(std::string("\x80\x04", 2)), Format::kTorch);
  EXPECT_EQ(DetectFormat("  \n{\"segments\": []}"), Format::kTorch);
  EXPECT_EQ(DetectFormat("Thread,Time,Action,Pointer,Size,Stream\n"), Format::kRmm);
  EXPECT_EQ(DetectFormat("upper,lower,size,id,extra\n"), Format::kCsv);
  EXPECT_EQ(DetectFormat("hello\n"), Format::kAuto);
  EXPECT_EQ(DetectFormat(""), Format::kAuto);
  Format f;
  EXPECT_TRUE(ParseFormat("rmm", &f) && f == Format::kRmm);
  EXPECT_FALSE(ParseFormat("pickle", &f));
  EXPECT_EQ(ImportError("hello\n").rfind("byte 0: cannot tell the format", 0), 0u);
  EXPECT_EQ(ImportError(""), "byte 0: the file is empty");
}

TEST(Formats, FileErrorsCarryThePath) {
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  EXPECT_FALSE(ImportFile("/nonexistent/x.pickle", Format::kAuto, {}, &trace, &stats, &error));
  EXPECT_EQ(error, "/nonexistent/x.pickle: cannot open: No such file or directory");
  const std::string truncated = Snapshots() + "/truncated_p4.pickle";
  EXPECT_FALSE(ImportFile(truncated, Format::kAuto, {}, &trace, &stats, &error));
  EXPECT_EQ(error.rfind(truncated + ": byte 2: FRAME of ", 0), 0u) << error;
  const std::string rmm = Snapshots() + "/bad_action.rmm.csv";
  EXPECT_FALSE(ImportFile(rmm, Format::kAuto, {}, &trace, &stats, &error));
  EXPECT_EQ(error.rfind(rmm + ":3: action 'realloc'", 0), 0u) << error;
  ImportOptions tiny;
  tiny.max_input_bytes = 10;
  EXPECT_FALSE(ImportFile(Snapshots() + "/basic_p4.pickle", Format::kAuto, tiny, &trace, &stats, &error));
  EXPECT_NE(error.find("byte 0: the file is 11660 bytes, over the limit of 10"), std::string::npos) << error;
}

TEST(TraceCsv, RoundTripsEveryImportExactly) {
  std::vector<std::pair<std::string, Format>> inputs;
  for (const char* name : {"basic_p2.pickle", "basic_p4.pickle", "basic.json", "state_only.pickle"}) {
    inputs.emplace_back(Snapshots() + "/" + name, Format::kAuto);
  }
  for (const char* name : {"resnet50.csv", "minimalloc_A.csv", "iree_mobilebert.csv"}) {
    inputs.emplace_back(std::string(STRATA_TRACE_DIR) + "/" + name, Format::kCsv);
  }
  for (const auto& [path, format] : inputs) {
    SCOPED_TRACE(path);
    replay::Trace trace;
    ImportStats stats;
    std::string error;
    ASSERT_TRUE(ImportFile(path, format, {}, &trace, &stats, &error)) << error;
    ASSERT_FALSE(trace.buffers.empty());
    const std::string csv = Csv(trace);
    std::istringstream in(csv);
    replay::Trace back;
    ASSERT_TRUE(replay::ParseTrace(in, trace.name, &back, &error)) << error;
    ASSERT_EQ(back.buffers.size(), trace.buffers.size());
    for (size_t k = 0; k < back.buffers.size(); ++k) {
      EXPECT_EQ(back.buffers[k].id, trace.buffers[k].id);
      EXPECT_EQ(back.buffers[k].lower, trace.buffers[k].lower);
      EXPECT_EQ(back.buffers[k].upper, trace.buffers[k].upper);
      EXPECT_EQ(back.buffers[k].size, trace.buffers[k].size);
      if (format != Format::kCsv) {
        EXPECT_EQ(back.buffers[k].line, trace.buffers[k].line);  // imports number them as the CSV will
      }
    }
    EXPECT_EQ(Csv(back), csv);
    EXPECT_EQ(replay::MaxLoad(back, 1), stats.peak_live_bytes);
  }
}

TEST(TraceCsv, ExtremeValuesRoundTripAndInvalidBuffersAreNotWritten) {
  replay::Trace trace;
  trace.buffers.push_back({INT64_MIN + 1, 0, UINT64_MAX, uint64_t{1} << 62, 0});
  trace.buffers.push_back({-1, UINT64_MAX - 1, UINT64_MAX, 1, 0});
  const std::string csv = Csv(trace);
  std::istringstream in(csv);
  replay::Trace back;
  std::string error;
  ASSERT_TRUE(replay::ParseTrace(in, "x", &back, &error)) << error;
  EXPECT_EQ(Csv(back), csv);
  EXPECT_EQ(back.buffers[0].id, INT64_MIN + 1);
  EXPECT_EQ(back.buffers[0].upper, UINT64_MAX);

  std::ostringstream out;
  trace.buffers.push_back({7, 5, 5, 1, 0});
  EXPECT_FALSE(WriteTraceCsv(trace, out, &error));
  EXPECT_EQ(error, "buffer 2 (id 7): upper 5 is not above lower 5");
  EXPECT_TRUE(out.str().empty());
  trace.buffers.back() = {8, 1, 2, 0, 0};
  EXPECT_FALSE(WriteTraceCsv(trace, out, &error));
  EXPECT_EQ(error, "buffer 2 (id 8): size 0 cannot be written (1 to 2^62 bytes)");
  // replay::ParseTrace reads ids down to INT64_MIN + 1 only.
  trace.buffers.back() = {INT64_MIN, 1, 2, 1, 0};
  EXPECT_FALSE(WriteTraceCsv(trace, out, &error));
  EXPECT_EQ(error,
            "buffer 2 (id -9223372036854775808): id -9223372036854775808 cannot be read back (replay::ParseTrace "
            "takes -9223372036854775807 and up)");
  EXPECT_TRUE(out.str().empty());
}

// ---- Work and memory bounded by the input (issue #32): make_amplifiers.py's inputs, each once quadratic.

struct Imported {
  bool ok = false;
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  double seconds = 0;
  uint64_t bytes = 0;
};

Imported ImportAmplifier(const std::string& name) {
  Imported r;
  const std::string data = ReadFile(name);
  r.bytes = data.size();
  const auto start = std::chrono::steady_clock::now();
  r.ok = ImportBytes(data, &r.trace, &r.stats, &r.error);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

TEST(WorkBudget, BlocksSharedByEverySegmentAreRefusedAtTheBudget) {
  // 10^5 segments naming one list of 10^5 blocks (400 KB): 10^10 segment x block pairs, ten minutes of CPU
  // before; and 3 x 10^4 distinct segments over one blocks list (a visit-once rule alone would not help).
  for (const char* name : {"amp_shared_blocks.pickle", "amp_distinct_shared_blocks.pickle"}) {
    const Imported r = ImportAmplifier(name);
    EXPECT_FALSE(r.ok) << name;
    EXPECT_NE(r.error.find("would visit more than " + std::to_string(WalkBudget(r.bytes)) +
                           " items (16 per byte of input, plus 65536)"),
              std::string::npos)
        << r.error;
    EXPECT_EQ(r.error.rfind("byte ", 0), 0u) << r.error;
    EXPECT_GT(r.stats.visits, WalkBudget(r.bytes));
    EXPECT_LE(r.stats.visits, WalkBudget(r.bytes) + 64) << "the walk went on past its budget";
  }
}

TEST(WorkBudget, AnEntryWithJunkKeysSharedByEveryEntryIsIndexedOnce) {
  // 3 x 10^4 entries, all one dict of 3 x 10^4 keys with 'action' first: 12 s when each lookup scanned it.
  const Imported r = ImportAmplifier("amp_junk_keys.pickle");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.buffers.size(), 30000u);
  // Indexing the dict costs its 3 x 10^4 keys once; each of the 9 x 10^4 lookups then costs 1.
  EXPECT_LE(r.stats.visits, 200000u);
}

TEST(WorkBudget, RealSnapshotsNeedFewVisitsPerByte) {
  for (const char* name : {"basic_p2.pickle", "basic_p4.pickle", "basic.json", "state_only.pickle"}) {
    const Imported r = ImportAmplifier(name);
    ASSERT_TRUE(r.ok) << name << ": " << r.error;
    EXPECT_GT(r.stats.visits, 0u) << name;
    EXPECT_LE(r.stats.visits, r.bytes / 2) << name;
  }
}

TEST(WorkBudget, DistinctUnknownActionsAreCountedWithoutASearch) {
  // 2 x 10^5 actions nobody knows (2.9 MB pickle), 1.5 x 10^5 in JSON (3.3 MB): over 20 s each when the
  // skipped list was searched per entry; a map makes it linear. A time bound 20 times the linear cost.
  for (const auto& [name, n] : std::vector<std::pair<std::string, size_t>>{{"amp_distinct_actions.pickle", 200000},
                                                                           {"amp_distinct_actions.json", 150000}}) {
    const Imported r = ImportAmplifier(name);
    ASSERT_TRUE(r.ok) << name << ": " << r.error;
    ASSERT_EQ(r.stats.skipped.size(), n) << name;
    EXPECT_EQ(r.stats.skipped[0], std::make_pair(std::string("x0"), uint64_t{1}));
    EXPECT_EQ(r.stats.skipped[n - 1], std::make_pair(std::string("x").append(std::to_string(n - 1)), uint64_t{1}));
    EXPECT_LT(r.seconds, 10.0) << name;
    // The summary names the first 8 and counts the rest.
    EXPECT_NE(SummaryLine(r.trace, r.stats)
                  .find("; skipped 1 x0, 1 x1, 1 x2, 1 x3, 1 x4, 1 x5, 1 x6, 1 x7 and " + std::to_string(n - 8) +
                        " of " + std::to_string(n - 8) + " other actions"),
              std::string::npos)
        << name;
  }
}

TEST(WorkBudget, RequestsAtOneAddressFindTheirAllocationWithoutASearch) {
  // 2 x 10^5 allocations at one address, then 2 x 10^5 free_requested there (800 KB): each request searched
  // the queue from its oldest entry, over 20 s; now O(1) each.
  const Imported r = ImportAmplifier("amp_requested_chain.pickle");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.buffers.size(), 200000u);
  EXPECT_EQ(r.stats.closed_by_request, 200000u);
  // FIFO: the k-th allocation (time k + 1) is closed by the k-th request (time 200000 + k + 1).
  EXPECT_EQ(r.trace.buffers[0].lower, 1u);
  EXPECT_EQ(r.trace.buffers[0].upper, 200001u);
  EXPECT_EQ(r.trace.buffers[199999].upper, 400000u);
  EXPECT_LT(r.seconds, 10.0);
}

TEST(Sizes, SumsBeyondWhatATraceCsvHoldsAreRefused) {
  // Four live 2^62-byte buffers: their sum 2^64 wrapped, and the import printed a peak of 3 x 2^62. The trace
  // CSV parser's rule (replay::ParseTrace): the sizes add up to at most 2^63; the third buffer passes it.
  Imported r = ImportAmplifier("amp_huge_sizes.pickle");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find(": device_traces[0][2] (alloc): the buffers' sizes add up to more than 2^63 bytes"),
            std::string::npos)
      << r.error;
  EXPECT_TRUE(r.trace.buffers.empty());
  r = ImportAmplifier("amp_huge_sizes.rmm.csv");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "4: the buffers' sizes add up to more than 2^63 bytes (the most a trace CSV holds)");
  // Two are exactly 2^63: imported, and the peak is exact.
  const std::string two =
      "Thread,Time,Action,Pointer,Size,Stream\n1,0,allocate,0x1000,4611686018427387904,0\n"
      "1,0,allocate,0x2000,4611686018427387904,0\n";
  replay::Trace trace;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportRmmLog(two, {}, &trace, &stats, &error)) << error;
  EXPECT_EQ(stats.peak_live_bytes, uint64_t{1} << 63);
}

TEST(Numbers, OneReaderRefusesSignsBlanksHexNanAndOverflow) {
  // host/tool/numbers.h: what every option, environment variable and importer field reads numbers with.
  uint64_t u = 7;
  EXPECT_TRUE(cli::ParseDecimal("18446744073709551615", 0, UINT64_MAX, &u));
  EXPECT_EQ(u, UINT64_MAX);
  for (const char* bad :
       {"", " 5", "5 ", "+3", "-5", " -5", "0x10", "18446744073709551616", "99999999999999999999", "1e3", "1.0"}) {
    EXPECT_FALSE(cli::ParseDecimal(bad, 0, UINT64_MAX, &u)) << "'" << bad << "'";
  }
  EXPECT_FALSE(cli::ParseDecimal("4294967296", 0, UINT32_MAX, &u));
  EXPECT_FALSE(cli::ParseDecimal("0", 1, 10, &u));
  int64_t i = 0;
  EXPECT_TRUE(cli::ParseSignedDecimal("-1", -1, INT64_MAX, &i));
  EXPECT_EQ(i, -1);
  EXPECT_TRUE(cli::ParseSignedDecimal("-9223372036854775808", INT64_MIN, INT64_MAX, &i));
  EXPECT_EQ(i, INT64_MIN);
  for (const char* bad : {"-9223372036854775809", "9223372036854775808", "--1", "-", "+1", " -1"}) {
    EXPECT_FALSE(cli::ParseSignedDecimal(bad, INT64_MIN, INT64_MAX, &i)) << "'" << bad << "'";
  }
  double d = 0;
  for (const char* good : {"0.5", ".5", "5.", "1e-3", "2.5E+2"}) EXPECT_TRUE(cli::ParseReal(good, 0, 1e9, &d)) << good;
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "0x1p-1", " 0.5", "+0.5", "-0.5", ".", "1e", "1e400", "0.5x"}) {
    EXPECT_FALSE(cli::ParseReal(bad, 0, 1e9, &d)) << "'" << bad << "'";
  }
  EXPECT_FALSE(cli::ParseReal("1.5", 0, 1, &d));
  uint64_t product = 0;
  EXPECT_TRUE(cli::MultiplyChecked(uint64_t{1} << 43, uint64_t{1} << 20, &product));
  EXPECT_FALSE(cli::MultiplyChecked(uint64_t{1} << 44, uint64_t{1} << 20, &product));
  // strata-import's counts are the same reader, at most 19 digits.
  EXPECT_TRUE(ParseCount("1000", &u));
  EXPECT_FALSE(ParseCount("+1000", &u));
  EXPECT_FALSE(ParseCount("10000000000000000000", &u));
}

TEST(Document, LargeDictsAreIndexedAndKeepTheLastValueOfAKey) {
  for (size_t pairs : {size_t{3}, Document::kScannedDictPairs, Document::kScannedDictPairs + 1, size_t{100}}) {
    Document doc;
    doc.containers.push_back(Container{Kind::kDict, 0, {}});
    for (size_t k = 0; k < pairs; ++k) {
      doc.strings.push_back(
          StringNode{k == pairs - 1 ? std::string("size") : std::string("k").append(std::to_string(k)), 0});
      doc.containers[0].items.push_back(Value{Kind::kString, static_cast<uint32_t>(doc.strings.size() - 1), 0});
      doc.containers[0].items.push_back(Value{Kind::kInt, 0, static_cast<int64_t>(k)});
    }
    doc.strings.push_back(StringNode{"k0", 0});  // k0 set again, last
    doc.containers[0].items.push_back(Value{Kind::kString, static_cast<uint32_t>(doc.strings.size() - 1), 0});
    doc.containers[0].items.push_back(Value{Kind::kInt, 0, -1});
    const Value dict{Kind::kDict, 0, 0};
    for (int round = 0; round < 2; ++round) {
      ASSERT_NE(doc.Get(dict, "k0"), nullptr) << pairs;
      EXPECT_EQ(doc.Get(dict, "k0")->i, -1) << pairs;
      ASSERT_NE(doc.Get(dict, "size"), nullptr) << pairs;
      EXPECT_EQ(doc.Get(dict, "size")->i, static_cast<int64_t>(pairs - 1)) << pairs;
      EXPECT_EQ(doc.Get(dict, "absent"), nullptr) << pairs;
    }
  }
}

TEST(Formats, JsonWithAByteOrderMarkOrABareListIsTorch) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string json = R"({"segments": [], "device_traces": [[{"action": "alloc", "addr": 16, "size": 5}]]})";
  EXPECT_EQ(DetectFormat(bom + json), Format::kTorch);
  EXPECT_EQ(DetectFormat(bom + " \n" + json), Format::kTorch);
  EXPECT_EQ(DetectFormat(R"([{"address": 4096, "blocks": []}])"), Format::kTorch);
  EXPECT_EQ(DetectFormat(bom + "[]"), Format::kTorch);
  replay::Trace with_bom, without;
  ImportStats stats;
  std::string error;
  ASSERT_TRUE(ImportBytes(bom + json, &with_bom, &stats, &error)) << error;
  EXPECT_EQ(stats.source, "torch JSON");
  ASSERT_TRUE(ImportBytes(json, &without, &stats, &error)) << error;
  EXPECT_EQ(Csv(with_bom), Csv(without));
  // A bare list of segments is torch.cuda.memory_snapshot(); a bare list of trace entries is refused, saying so.
  ASSERT_TRUE(ImportBytes(R"([{"address": 4096, "blocks": [{"size": 8, "state": "active_allocated"}]}])", &without,
                          &stats, &error))
      << error;
  EXPECT_EQ(without.buffers.size(), 1u);
  EXPECT_EQ(ImportError(R"([{"action": "alloc", "addr": 16, "size": 5}])"),
            "byte 1: the top level is a list of trace entries (they have an 'action'), not of segments: a "
            "snapshot's entries sit under 'device_traces' (write {\"device_traces\": [LIST]})");
}

}  // namespace
}  // namespace strata::workload
