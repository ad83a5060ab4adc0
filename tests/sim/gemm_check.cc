// GEMM check: writes random int8 A, B (and int32 C_in) as .npy, runs `strata-sim gemm`, and
// compares the output bit-exactly with a plain C++ reference GEMM (with ReLU / requantization).
// usage: gemm_check STRATA_SIM M K N SEED [--c] [--relu] [--int8 MULT,SHIFT] [--extreme] [--firmware ELF] [--mxu-n N]
// strata-sim runs from an argument vector (posix_spawn), never through a shell.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "npy.h"
#include "strata/reference_gemm.h"

using strata::sim::NpyArray;

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: gemm_check STRATA_SIM M K N SEED [--c] [--relu] [--int8 MULT,SHIFT] [--extreme] "
                 "[--firmware ELF] [--mxu-n N]\n");
    return 2;
  }
  const std::string sim = argv[1];
  const uint64_t m = std::strtoull(argv[2], nullptr, 0), k = std::strtoull(argv[3], nullptr, 0),
                 n = std::strtoull(argv[4], nullptr, 0);
  const unsigned seed = static_cast<unsigned>(std::strtoul(argv[5], nullptr, 0));
  bool with_c = false, relu = false, int8 = false, extreme = false;
  long long mult = 1;
  unsigned shift = 0;
  std::vector<std::string> extra;
  for (int i = 6; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--c")
      with_c = true;
    else if (a == "--relu")
      relu = true;
    else if (a == "--extreme")
      extreme = true;
    else if ((a == "--firmware" || a == "--mxu-n") && i + 1 < argc)
      extra.insert(extra.end(), {a, argv[++i]});
    else if (a == "--int8" && i + 1 < argc) {
      int8 = true;
      std::sscanf(argv[++i], "%lld,%u", &mult, &shift);
      extra.insert(extra.end(), {"--int8", argv[i]});
    }
  }
  std::mt19937 rng(seed);
  // Values cover the whole int8 range; --extreme uses only -128 and 127 (largest sums).
  auto value = [&]() -> int8_t {
    if (extreme) return (rng() & 1) ? int8_t{-128} : int8_t{127};
    const uint32_t r = rng();
    if ((r & 15) == 0) return -128;
    return static_cast<int8_t>(r >> 8);
  };
  NpyArray a{"|i1", m, k, std::vector<uint8_t>(m * k)}, b{"|i1", k, n, std::vector<uint8_t>(k * n)};
  NpyArray c{"<i4", m, n, std::vector<uint8_t>(m * n * 4)};
  for (auto& x : a.data) x = static_cast<uint8_t>(value());
  for (auto& x : b.data) x = static_cast<uint8_t>(value());
  std::vector<int32_t> cin(m * n, 0);
  if (with_c) {
    for (auto& x : cin) x = static_cast<int32_t>(rng());
    std::memcpy(c.data.data(), cin.data(), c.data.size());
  }
  const std::string tag = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + "_" +
                          std::to_string(seed) + "_" + std::to_string(getpid());
  const std::string pa = "gemm_a_" + tag + ".npy", pb = "gemm_b_" + tag + ".npy", pc = "gemm_c_" + tag + ".npy",
                    po = "gemm_out_" + tag + ".npy";
  std::string err;
  if (!strata::sim::WriteNpy(pa, a, err) || !strata::sim::WriteNpy(pb, b, err) ||
      (with_c && !strata::sim::WriteNpy(pc, c, err))) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::vector<std::string> args = {sim, "gemm", "--a", pa, "--b", pb, "--out", po};
  if (with_c) args.insert(args.end(), {"--c", pc});
  if (relu) args.push_back("--relu");
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv_sim;
  std::printf("$");
  for (std::string& arg : args) {
    std::printf(" %s", arg.c_str());
    argv_sim.push_back(arg.data());
  }
  std::printf("\n");
  std::fflush(stdout);
  argv_sim.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, sim.c_str(), nullptr, nullptr, argv_sim.data(), environ);
  if (rc == 0) {
    int wstatus = 0;
    rc = waitpid(pid, &wstatus, 0) != pid ? -1 : WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  }
  NpyArray out;
  const bool read = rc == 0 && strata::sim::ReadNpy(po, out, err);
  std::remove(pa.c_str());
  std::remove(pb.c_str());
  std::remove(pc.c_str());
  std::remove(po.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "FAIL: strata-sim exited with %d\n", rc);
    return 1;
  }
  if (!read) {
    std::fprintf(stderr, "FAIL: %s\n", err.c_str());
    return 1;
  }
  if (out.rows != m || out.cols != n || out.descr != (int8 ? "|i1" : "<i4")) {
    std::fprintf(stderr, "FAIL: output is %s %" PRIu64 "x%" PRIu64 "\n", out.descr.c_str(), out.rows, out.cols);
    return 1;
  }
  strata::reference::GemmSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.relu = relu;
  spec.int8 = int8;
  spec.round = true;  // strata-sim gemm --int8 rounds
  spec.quant_mult = mult;
  spec.quant_shift = shift;
  const std::vector<int32_t> want = strata::reference::Gemm(
      reinterpret_cast<const int8_t*>(a.data.data()), reinterpret_cast<const int8_t*>(b.data.data()), cin.data(), spec);
  uint64_t bad = 0;
  for (uint64_t i = 0; i < m; ++i) {
    for (uint64_t j = 0; j < n; ++j) {
      int32_t got;
      if (int8) {
        got = static_cast<int8_t>(out.data[i * n + j]);
      } else {
        std::memcpy(&got, out.data.data() + 4 * (i * n + j), 4);
      }
      if (got != want[i * n + j] && bad++ < 10) {
        std::fprintf(stderr, "FAIL: C[%" PRIu64 "][%" PRIu64 "] = %d, expected %d\n", i, j, got, want[i * n + j]);
      }
    }
  }
  if (bad) {
    std::fprintf(stderr, "FAIL: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, m * n);
    return 1;
  }
  std::printf("PASS: %" PRIu64 "x%" PRIu64 "x%" PRIu64 " bit-exact\n", m, k, n);
  return 0;
}
