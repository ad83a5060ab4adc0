// The SystemC platform's clock loop: runs the device, feeds ticked models, watches HTIF.
#include "platform.h"

#include <chrono>
#include <cstdio>

namespace strata::sim {

Platform::Platform(const sc_core::sc_module_name& name, const PlatformConfig& config)
    : sc_core::sc_module(name), config_(config), device_(config.trace, config.hbm, config.mxu_n) {
  if (!config_.console) {
    config_.console = [](char c) {
      std::fputc(c, stdout);
      if (c == '\n') std::fflush(stdout);
    };
  }
  if (config_.quantum_cycles == 0) config_.quantum_cycles = 1;
  if (!config_.fast_forward) device_.set_fast_forward(false);
  SC_THREAD(Main);
}

Platform::~Platform() = default;

void Platform::Main() {
  device_.ResetAndLoad(image_);
  result_.start_cycle = device_.edges();
  const uint64_t elided_at_start = device_.elided_falling_edges();  // the load's edges are not the run's
  const uint64_t dma_gated_at_start = device_.dma_gated_cycles(), mxu_gated_at_start = device_.mxu_gated_cycles();

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_progress = start;
  const sc_core::sc_time quantum(config_.quantum_cycles, sc_core::SC_NS);
  result_.outcome = RunOutcome::kTimeout;
  bool done = false;
  while (!done) {
    for (uint32_t k = 0; k < config_.quantum_cycles; ++k) {
      device_.Tick();
      ++run_cycles_;
      if (device_.console_valid()) config_.console(device_.console_char());
      if (device_.tohost_valid()) {
        const uint32_t v = device_.tohost_value();
        result_.tohost = v;
        if (v == 1) {
          result_.outcome = RunOutcome::kPass;
        } else if (v & 1) {
          result_.outcome = RunOutcome::kFail;
          result_.fail_code = v >> 1;
        } else {
          result_.outcome = RunOutcome::kBadTohost;
        }
        done = true;
        break;
      }
      if (run_cycles_ >= config_.max_cycles) {
        done = true;
        break;
      }
    }
    wait(quantum);
    if (config_.progress) {
      const auto now = Clock::now();
      if (now - last_progress > std::chrono::seconds(2)) {
        last_progress = now;
        const double s = std::chrono::duration<double>(now - start).count();
        std::fprintf(stderr, "[strata-sim] %.1f M cycles, %.2f M cycles/s\n", run_cycles_ / 1e6, run_cycles_ / s / 1e6);
      }
    }
  }
  result_.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result_.cycles = run_cycles_;
  result_.instret = device_.instret();
  result_.skipped_cycles = device_.skipped_cycles();
  result_.elided_falling_edges = device_.elided_falling_edges() - elided_at_start;
  result_.dma_gated_cycles = device_.dma_gated_cycles() - dma_gated_at_start;
  result_.mxu_gated_cycles = device_.mxu_gated_cycles() - mxu_gated_at_start;
  if (!device_.CloseTrace()) result_.error = "waveform conversion failed";
  sc_core::sc_stop();
}

RunResult Platform::Run() {
  sc_core::sc_start();
  return result_;
}

}  // namespace strata::sim
