// strata-sim --timeline (see run_timeline.h).
#include "run_timeline.h"

#include "hbm_bridge.h"

namespace strata::sim {

std::unique_ptr<RunTimeline> RunTimeline::Start(Device& device, const RunTimelineOptions& options,
                                                const std::string& name, std::string* why) {
  std::unique_ptr<timeline::TraceFile> file = timeline::TraceFile::Open(options.path, options.max_bytes, why);
  if (!file) return nullptr;
  return std::unique_ptr<RunTimeline>(new RunTimeline(device, std::move(file), options, name));
}

RunTimeline::RunTimeline(Device& device, std::unique_ptr<timeline::TraceFile> file, const RunTimelineOptions& options,
                         const std::string& name)
    : device_(device), file_(std::move(file)), timeline_(*file_, name, /*device_clock=*/true, options.window) {
  device_.bridge().set_event_sink(&timeline_);
  hook_ = device_.AddCycleHook([this] { OnCycle(); });
}

RunTimeline::~RunTimeline() { Finish(); }

void RunTimeline::OnCycle() {
  const uint64_t now = device_.edges();
  if (!started_) {
    if (device_.instret() == 0) return;
    // Everything before the first instruction: reset and the ELF written through the host port.
    timeline_.OnEvent(Event{"core", "reset and ELF load", 0, now});
    started_ = true;
  }
  core_.Update(!device_.sleeping(), now, timeline_);
  mxu_.Update(device_.mxu_busy(), now, timeline_);
}

bool RunTimeline::Finish() {
  if (!file_) return ok_;
  device_.RemoveCycleHook(hook_);
  device_.bridge().set_event_sink(nullptr);
  core_.Update(false, device_.edges(), timeline_);
  mxu_.Update(false, device_.edges(), timeline_);
  timeline_.Finish();
  ok_ = file_->Close();
  file_.reset();
  return ok_;
}

}  // namespace strata::sim
