// A program outside the Strata build that uses the installed SDK (docs/sdk.md): it opens a backend, runs an
// int8 GEMM on the device and checks it against a plain loop, then prints the memory stats.
// usage: strata-consumer [BACKEND [NAME=VALUE...]]   (default backend: gpu-emu)
#include <cstdint>
#include <cstdio>
#include <exception>
#include <strata/named_options.hpp>
#include <strata/strata.hpp>
#include <vector>

int main(int argc, char** argv) try {
  const char* backend = argc > 1 ? argv[1] : "gpu-emu";
  strata::NamedOptions named(backend);
  for (int i = 2; i < argc; ++i) named.AddText(argv[i]);
  strata_open_options options{};
  options.struct_size = sizeof options;
  options.named_options = named.data();
  options.num_named_options = named.size();
  strata::Device device(backend, &options);

  const uint32_t m = 24, n = 20, k = 36;  // not multiples of the array size: the edges are exercised too
  std::vector<int8_t> a(m * k), b(k * n);
  for (uint32_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>((i * 37 + 11) % 255 - 127);
  for (uint32_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>((i * 53 + 5) % 255 - 127);

  strata::Context context = device.CreateContext();
  strata::Buffer da = context.Alloc(a.size()), db = context.Alloc(b.size()), dc = context.Alloc(m * n * 4);
  da.Write(a.data(), a.size());
  db.Write(b.data(), b.size());
  strata_gemm_args args{};
  args.struct_size = sizeof args;
  args.a = da.handle();
  args.b = db.handle();
  args.c = dc.handle();
  args.m = m;
  args.n = n;
  args.k = k;
  strata::Check(strata_gemm(device.get(), context.id(), &args));
  std::vector<int32_t> c(m * n);
  dc.Read(c.data(), c.size() * sizeof(int32_t));

  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      int32_t want = 0;
      for (uint32_t l = 0; l < k; ++l) want += int32_t{a[i * k + l]} * int32_t{b[l * n + j]};
      if (c[i * n + j] != want) {
        std::fprintf(stderr, "strata-consumer: C[%u][%u] = %d, want %d\n", i, j, c[i * n + j], want);
        return 1;
      }
    }
  }
  const strata_memory_stats stats = context.MemoryStats();
  strata_version version{sizeof version};
  strata::Check(strata_get_version(&version));
  std::printf("strata-consumer: OK: %s, API %u.%u, %ux%ux%u GEMM exact, %llu bytes in use\n", backend,
              version.api_major, version.api_minor, m, n, k, static_cast<unsigned long long>(stats.bytes_in_use));
  return 0;
} catch (const strata::Error& e) {
  std::fprintf(stderr, "strata-consumer: %s: %s\n", strata_status_name(e.status()), e.what());
  return 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "strata-consumer: %s\n", e.what());
  return 2;
}
