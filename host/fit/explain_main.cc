// strata-explain 'MESSAGE': what an out-of-memory message of PyTorch, JAX/XLA, TensorFlow or the TPU runtime says,
// classified as capacity, cap or fragmentation, and the settings its numbers support (docs/fit.md).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "devices.h"
#include "explain.h"
#include "tool_cli.h"

namespace {

constexpr const char* kSynopsis = "strata-explain MESSAGE|- [--device NAME] [--set SETTING]... [--json]";
constexpr const char* kDescription =
    "Reads an out-of-memory message as PyTorch (CUDA, HIP, MPS, cudaMallocAsync; 2.x and older), XLA's BFC\n"
    "(\"ran out of memory trying to allocate ...\" with its statistics), XLA (\"Out of memory while trying to\n"
    "allocate\", \"Failed to allocate request for\"), TensorFlow (\"OOM when allocating tensor with shape[...]\"),\n"
    "the TPU compiler (\"Ran out of memory in memory space hbm\"), the TPU runtime or vLLM prints it, as pasted\n"
    "(log prefixes, wrapped lines, HTML entities), says which kind of OOM it is (capacity, cap, fragmentation,\n"
    "other-process, compile-time, inconsistent, unknown) and which settings its numbers support.\n"
    "A message of at most 64 KiB is read; - reads it from standard input.";
constexpr const char* kFooter = "Exit status: 0 when the message was read, 2 on bad usage or a message it cannot read.";

int Main(int argc, char** argv) {
  using namespace strata;
  std::string message, device_name;
  std::vector<std::string> settings_on;
  bool json = false;
  CLI::App app{kDescription, "strata-explain"};
  cli::Setup(app, kSynopsis, kFooter);
  app.add_option("MESSAGE", message,
                 "the message, quoted as one argument (several lines are fine), or - to read it from standard input");
  app.add_option("--device", device_name,
                 "the device it ran on (strata-fit --list-devices): its memory, for messages that do not say it")
      ->type_name("NAME");
  app.add_option("--set", settings_on,
                 "a setting already on (expandable_segments, XLA_PYTHON_CLIENT_PREALLOCATE, ...): no advice names it; "
                 "repeat for several")
      ->type_name("SETTING");
  app.add_flag("--json", json, "one JSON object instead of the text");
  if (int rc = cli::Parse(app, argc, argv); rc != cli::kContinue) return rc;
  if (message == "-") {
    // At most one byte past the cap: a longer input is refused by Explain without being read whole.
    message.resize(fit::kMaxMessageBytes + 1);
    std::cin.read(message.data(), static_cast<std::streamsize>(message.size()));
    message.resize(static_cast<size_t>(std::cin.gcount()));
    if (std::cin.bad()) return cli::Usage("strata-explain", "standard input could not be read");
  }
  if (message.empty()) return cli::Usage("strata-explain", "no message");
  uint64_t total = 0, context = 0;
  if (!device_name.empty()) {
    const devices::Device* d = devices::Find(device_name);
    if (d == nullptr)
      return cli::Usage("strata-explain", "unknown device '" + device_name + "' (" + devices::Names() + ")");
    total = d->total_bytes;
    context = d->context_bytes;
  }
  fit::Explanation e;
  std::string error;
  if (!fit::Explain(message, total, context, settings_on, &e, &error)) {
    std::fprintf(stderr, "strata-explain: %s\n", error.c_str());
    return 2;
  }
  std::cout << (json ? fit::ExplainJson(e) + "\n" : fit::ExplainText(e));
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return strata::cli::RunMain("strata-explain", Main, argc, argv); }
