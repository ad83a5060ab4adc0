// strata-sim vector: one vector-unit op over float32 .npy tensors on the model, with the vector firmware.
#include "strata_sim_vector.h"

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>

#include "chip_model.h"
#include "elf_loader.h"
#include "firmware_image.h"
#include "hbm/hbm_model.h"
#include "npy.h"
#include "platform.h"
#include "regular_file.h"
#include "strata/regmap.h"
#include "strata/status.h"
#include "strata/vector_mailbox.h"
#include "strata_sim_cli.h"

namespace strata::sim {
namespace {

using namespace cli;  // NOLINT: the command line's vocabulary (exit statuses, parsers)

constexpr const char* kProgram = "strata-sim vector";
constexpr const char* kDescription =
    "Runs one vector-unit op (rtl/regmap.json's VPU_OP, by name) over float32 .npy tensors on the model with the\n"
    "vector firmware and writes the result as float32 .npy. A and B are 2-D [R, C], 4-byte elements ('<f4', or\n"
    "'<i4' for ops that read integers), taken as their bits. Binary ops read B: [R, C] row by row, [1, C] the\n"
    "same row for every row (broadcast ROW, R > 1), [1, 1] one value everywhere (broadcast SCALAR). SELECT reads\n"
    "--mask [R, C] (a lane takes A where the mask is nonzero). The output is [R, C] for elementwise ops (the\n"
    "lanes' 32 bits: an int32 or bf16 result is bits in a float32), [R, 1] for ROW_SUM / ROW_MAX (each row\n"
    "reduced: ACC over its 16-lane chunks, then the lanes' pairwise tree) and [1, C] for ACC_SUM / ACC_MAX (down\n"
    "the rows, sequentially). SOFTMAX (not a single op) runs softmax over each row in the order of\n"
    "tests/rtl/vpu_reference.Softmax. Prints the device cycles the firmware's kernel took.";
constexpr const char* kFooter =
    "exit status: 0 done; 1 the firmware reported an error; 2 bad usage or bad .npy input; 3 timeout";

// Every VPU_OP by name: the regmap's one list.
struct OpName {
  const char* name;
  uint32_t code;
};
constexpr OpName kOps[] = {
#define STRATA_VPU_NAME(name, value) {#name, value},
    STRATA_VPU_OP_LIST(STRATA_VPU_NAME)
#undef STRATA_VPU_NAME
};

std::string OpNames() {
  std::string s;
  for (const OpName& o : kOps) s += (s.empty() ? "" : " ") + std::string(o.name);
  return s + " SOFTMAX";
}

bool FindOp(std::string name, uint32_t* code) {
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const OpName& o : kOps) {
    if (name == o.name) {
      *code = o.code;
      return true;
    }
  }
  if (name == "SOFTMAX") {
    *code = STRATA_VECTOR_OP_SOFTMAX;
    return true;
  }
  return false;
}

bool IsBinary(uint32_t op) { return op < STRATA_VPU_OP_NEG; }

}  // namespace

int RunVector(int argc, char* argv[]) {
  PlatformConfig config;
  config.max_cycles = 2'000'000'000ull;
  std::string op_name, a_path, b_path, m_path, out_path, fw_path = FirmwareImagePath("vector");
  bool json = false;
  CLI::App app{kDescription, kProgram};
  strata::cli::Setup(app, "strata-sim vector OP --a A.npy [--b B.npy] [--mask M.npy] --out C.npy [options]", kFooter);
  app.add_option("op", op_name, "the op: " + OpNames() + " (any case)")->type_name("OP");
  app.add_option("--a", a_path, "A, float32 [R, C]")->type_name("A.npy");
  app.add_option("--b", b_path, "B (binary ops): [R, C], [1, C] or [1, 1]")->type_name("B.npy");
  app.add_option("--mask", m_path, "SELECT's mask, [R, C]")->type_name("M.npy");
  app.add_option("--out", out_path, "where the result goes (float32)")->type_name("C.npy");
  app.add_option("--firmware", fw_path, "vector firmware image (default: the installed vector.elf, else the build's)")
      ->type_name("FILE");
  AddMaxCyclesOption(app, config.max_cycles, "give up after N cycles (default 2000000000)");
  app.add_flag("--json", json, "print the summary as one JSON object");
  AddTraceOptions(app, config.trace);
  app.add_flag_callback(
      "--no-fast-forward", [&] { config.fast_forward = false; },
      "evaluate the chip in every cycle, quiescent ones too, at every falling edge and with the idle\n"
      "blocks' clock gates held open (same cycle counts, slower)");
  // argv[1] is "vector": the subcommand's own command line starts after it.
  if (int rc = strata::cli::Parse(app, argc - 1, argv + 1); rc != strata::cli::kContinue) return rc;
  auto usage = [](const std::string& why) { return Usage(why, kProgram); };
  if (op_name.empty() || a_path.empty() || out_path.empty()) return usage("vector needs OP, --a and --out");
  uint32_t op = 0;
  if (const std::string why = CheckTraceOptions(config.trace); !why.empty()) return usage(why);
  if (!FindOp(op_name, &op)) return usage("unknown op '" + op_name + "' (one of: " + OpNames() + ")");
  const bool binary = IsBinary(op), select = op == STRATA_VPU_OP_SELECT;
  if (binary && b_path.empty()) return usage(op_name + " is a binary op: it needs --b");
  if (!binary && !b_path.empty()) return usage(op_name + " reads no --b");
  if (select != !m_path.empty()) return usage(select ? "SELECT needs --mask" : "only SELECT reads --mask");
  if (const std::string why = tool::CheckWritableFile(out_path); !why.empty()) {
    return usage("cannot write " + out_path + ": " + why);
  }
  if (const std::string clash =
          tool::CheckOutputsApart({{"--a", a_path}, {"--b", b_path}, {"--mask", m_path}, {"--firmware", fw_path}},
                                  {{"--out", out_path}, {"--trace", config.trace.path}});
      !clash.empty()) {
    return usage(clash);
  }
  auto input_error = [](const std::string& why) {
    std::fprintf(stderr, "strata-sim: error: %s\n", why.c_str());
    return kExitUsage;
  };
  auto check4 = [](const NpyArray& x, const std::string& path, const char* what) -> std::string {
    if (x.descr != "<f4" && x.descr != "<i4") {
      return path + ": " + what + " must be float32 ('<f4') or int32 ('<i4'), not '" + x.descr + "'";
    }
    return "";
  };
  NpyArray a, b, m;
  std::string error;
  if (!ReadNpy(a_path, a, error)) return input_error(error);
  if (const std::string why = check4(a, a_path, "A"); !why.empty()) return input_error(why);
  const uint64_t rows = a.rows, cols = a.cols;
  if (rows == 0 || cols == 0) return input_error("empty tensor: A must be at least 1x1");
  const uint64_t chunks = (cols + 15) / 16;
  if (chunks > 256) return input_error("A has " + std::to_string(cols) + " columns; at most 4096 are supported");
  if (rows > (1u << 20)) return input_error("A has " + std::to_string(rows) + " rows; at most 1048576 are supported");
  auto shape = [](const NpyArray& x) { return std::to_string(x.rows) + "x" + std::to_string(x.cols); };
  uint32_t bcast = STRATA_VPU_BCAST_NONE;
  if (binary) {
    if (!ReadNpy(b_path, b, error)) return input_error(error);
    if (const std::string why = check4(b, b_path, "B"); !why.empty()) return input_error(why);
    if (b.rows == rows && b.cols == cols) {
      bcast = STRATA_VPU_BCAST_NONE;
    } else if (b.rows == 1 && b.cols == cols) {
      bcast = STRATA_VPU_BCAST_ROW;
    } else if (b.rows == 1 && b.cols == 1) {
      bcast = STRATA_VPU_BCAST_SCALAR;
    } else {
      return input_error("shape mismatch: A is " + shape(a) + " but B is " + shape(b) + " (B must be " + shape(a) +
                         ", 1x" + std::to_string(cols) + " or 1x1)");
    }
  }
  if (select) {
    if (!ReadNpy(m_path, m, error)) return input_error(error);
    if (const std::string why = check4(m, m_path, "the mask"); !why.empty()) return input_error(why);
    if (m.rows != rows || m.cols != cols) {
      return input_error("shape mismatch: A is " + shape(a) + " but the mask is " + shape(m));
    }
  }
  ElfImage image;
  if (!LoadElf(fw_path, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) return input_error(error);
  const auto sym = image.symbols.find("strata_vector_mailbox");
  if (sym == image.symbols.end()) {
    return input_error(fw_path + ": no strata_vector_mailbox symbol (not the vector firmware)");
  }

  // HBM: each tensor as rows of `chunks` lines, the last chunk of a row padded with a value that leaves the op's
  // result alone (-0 for a sum, -inf for a max; zeros otherwise, never read back).
  const bool sum = op == STRATA_VPU_OP_ROW_SUM || op == STRATA_VPU_OP_ACC_SUM;
  const bool max = op == STRATA_VPU_OP_ROW_MAX || op == STRATA_VPU_OP_ACC_MAX || op == STRATA_VECTOR_OP_SOFTMAX;
  const uint32_t pad = sum ? 0x80000000u : (max ? 0xff800000u : 0u);
  const uint64_t pitch = chunks * 64;
  auto padded = [&](const NpyArray& x) {
    std::vector<uint32_t> v(x.rows * chunks * 16, pad);
    for (uint64_t r = 0; r < x.rows; ++r) std::memcpy(&v[r * chunks * 16], &x.data[r * x.cols * 4], x.cols * 4);
    return v;
  };
  auto align = [](uint64_t x) { return (x + 4095) & ~uint64_t{4095}; };
  StrataVectorMailbox box{};
  box.magic = STRATA_VECTOR_MAILBOX_MAGIC;
  box.version = STRATA_VECTOR_MAILBOX_VERSION;
  box.op = op;
  box.bcast = bcast;
  box.rows = static_cast<uint32_t>(rows);
  box.chunks = static_cast<uint32_t>(chunks);
  box.a = 0;
  box.b = align(box.a + rows * pitch);
  box.m = align(box.b + (binary ? b.rows * pitch : 0));
  box.out = align(box.m + (select ? rows * pitch : 0));
  box.status = 0xffffffffu;
  const bool row_red = op == STRATA_VPU_OP_ROW_SUM || op == STRATA_VPU_OP_ROW_MAX;
  const bool col_red = op == STRATA_VPU_OP_ACC_SUM || op == STRATA_VPU_OP_ACC_MAX;
  const uint64_t out_bytes = row_red ? rows * 64 : (col_red ? pitch : rows * pitch);
  strata::hbm::HbmConfig::FromName(strata::hbm::kDefaultHbmPreset, &config.hbm, 4ull << 30);
  if (align(box.out + out_bytes) > config.hbm.capacity_bytes) return input_error("tensors do not fit in HBM");
  bool patched = false;
  for (auto& seg : image.segments) {
    if (sym->second >= seg.address && sym->second + sizeof box <= seg.address + seg.bytes.size()) {
      std::memcpy(seg.bytes.data() + (sym->second - seg.address), &box, sizeof box);
      patched = true;
    }
  }
  if (!patched) return input_error(fw_path + ": strata_vector_mailbox is not in a loadable segment");

  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  Platform platform("platform", config);
  platform.SetImage(image);
  auto& hbm = platform.device().hbm();
  auto put = [&](uint64_t at, const NpyArray& x) {
    const std::vector<uint32_t> v = padded(x);
    hbm.WriteDebug(at, reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
  };
  put(box.a, a);
  if (binary) put(box.b, b);
  if (select) put(box.m, m);
  const RunResult r = platform.Run();
  std::fflush(stdout);
  if (r.outcome == RunOutcome::kTimeout) {
    std::fprintf(stderr, "strata-sim: vector: TIMEOUT after %" PRIu64 " cycles\n", r.cycles);
    return kExitTimeout;
  }
  std::vector<uint32_t> words(sizeof box / 4);
  for (size_t w = 0; w < words.size(); ++w) words[w] = platform.device().HostRead32(sym->second + 4 * w);
  std::memcpy(&box, words.data(), sizeof box);
  if (r.outcome != RunOutcome::kPass || box.status != 0) {
    std::fprintf(stderr, "strata-sim: vector: the firmware failed (status %s)\n",
                 strata_status_name(static_cast<int>(box.status)));
    return kExitFail;
  }
  std::vector<uint32_t> raw(out_bytes / 4);
  hbm.ReadDebug(box.out, reinterpret_cast<uint8_t*>(raw.data()), out_bytes);
  NpyArray out;
  out.descr = "<f4";
  out.rows = col_red ? 1 : rows;
  out.cols = row_red ? 1 : cols;
  out.data.resize(out.rows * out.cols * 4);
  for (uint64_t i = 0; i < out.rows; ++i) {
    const uint64_t line = row_red ? i * 16 : i * chunks * 16;  // a row reduction's value is in every lane
    std::memcpy(&out.data[i * out.cols * 4], &raw[line], out.cols * 4);
  }
  if (!WriteNpy(out_path, out, error)) return input_error(error);
  const double speed = r.wall_seconds > 0 ? r.cycles / r.wall_seconds : 0.0;
  std::string name = op_name;
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (json) {
    const nlohmann::ordered_json j{{"op", name},
                                   {"rows", rows},
                                   {"cols", cols},
                                   {"bcast", bcast},
                                   {"cycles", box.cycles},
                                   {"tile_rows", box.tile_rows},
                                   {"vpu_commands", box.vpu_commands},
                                   {"dma_descriptors", box.dma_descriptors},
                                   {"vpu_rows", box.vpu_rows},
                                   {"vpu_busy_cycles", box.vpu_busy_cycles},
                                   {"vpu_stall_cycles", box.vpu_stall_cycles},
                                   {"run_cycles", r.cycles},
                                   {"wall_seconds", Round(r.wall_seconds, 3)},
                                   {"sim_cycles_per_second", std::llround(speed)}};
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  } else {
    std::printf("vector %s %" PRIu64 "x%" PRIu64 ": %" PRIu64
                " cycles (%u VPU commands, %u result rows, unit busy %u cycles; %u DMA descriptors, tiles of %u "
                "rows)\n",
                name.c_str(), rows, cols, box.cycles, box.vpu_commands, box.vpu_rows, box.vpu_busy_cycles,
                box.dma_descriptors, box.tile_rows);
  }
  return kExitPass;
}

}  // namespace strata::sim
