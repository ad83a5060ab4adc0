// The one replay loop over the C API (runner.h).
#include "runner.h"

#include <cstring>
#include <unordered_map>
#include <utility>

namespace strata::replay {
namespace {

// The backend's events while a run goes: every live buffer's device address, from the "heap" instants "alloc" (id,
// address, value = bytes taken), "free" (id) and "move" (id, address -> to_address), and everything to the caller's
// hook. The sink runs inside the call that allocates, so the newest "alloc" is the buffer that call returned.
struct Sink {
  bool track = false;  // keep the addresses (a snapshot is asked for)
  struct Place {
    uint64_t address, bytes;
  };
  std::unordered_map<uint64_t, Place> by_id;
  uint64_t newest_alloc = 0;
  // record_places: the event being run, every span so far, and the open one of each live buffer by its id.
  std::vector<PlacedSpan>* places = nullptr;
  uint64_t now = 0;
  std::unordered_map<uint64_t, size_t> open_span;
  const std::function<void(const strata_event&)>* forward = nullptr;

  static void Receive(void* user, const strata_event* e) {
    auto* self = static_cast<Sink*>(user);
    if (*self->forward) (*self->forward)(*e);
    if (!self->track || e->struct_size < sizeof(strata_event) || !(e->flags & STRATA_EVENT_FLAG_ADDRESS)) return;
    if (std::strcmp(e->track, "heap") != 0) return;
    if (std::strcmp(e->name, "alloc") == 0) {
      self->by_id[e->id] = {e->address, static_cast<uint64_t>(e->value)};
      self->newest_alloc = e->id;
    } else if (std::strcmp(e->name, "free") == 0) {
      self->by_id.erase(e->id);
      self->Close(e->id);
    } else if (std::strcmp(e->name, "move") == 0) {
      self->by_id[e->id].address = e->to_address;
      if (self->places == nullptr) return;
      const auto open = self->open_span.find(e->id);
      if (open == self->open_span.end()) return;  // not a buffer whose places are recorded
      PlacedSpan moved = (*self->places)[open->second];
      self->Close(e->id);
      moved.offset = e->to_address;
      moved.from = self->now;
      self->Open(e->id, moved);
    }
  }

  // A span opened for the buffer with heap id `id` (record_places).
  void Open(uint64_t id, const PlacedSpan& span) {
    open_span[id] = places->size();
    places->push_back(span);
    places->back().to = UINT64_MAX;
  }
  // Its open span ends at the event being run (none open: nothing).
  void Close(uint64_t id) {
    if (places == nullptr) return;
    const auto open = open_span.find(id);
    if (open == open_span.end()) return;
    (*places)[open->second].to = now;
    open_span.erase(open);
  }
};

class Loop {
 public:
  Loop(strata_device* device, const std::vector<RunStream>& streams, const RunOptions& options, RunResult* result,
       std::string* error)
      : d_(device), streams_(streams), o_(options), r_(*result), error_(error), before_(options.before_call) {}

  bool Run(const std::vector<Event>& events, const std::vector<uint32_t>* stream_of) {
    r_ = RunResult{};
    r_.events_total = events.size();
    r_.streams.resize(streams_.size());
    handles_.resize(streams_.size());
    live_.assign(streams_.size(), 0);
    first_buffer_.assign(streams_.size(), 0);
    for (size_t s = 0; s < streams_.size(); ++s) {
      handles_[s].assign(streams_[s].trace->buffers.size(), 0);
      if (s + 1 < streams_.size()) first_buffer_[s + 1] = first_buffer_[s] + handles_[s].size();
    }
    sink_.track = o_.snapshot_event >= 0 || o_.record_places;
    sink_.places = o_.record_places ? &r_.places : nullptr;
    sink_.forward = &o_.on_event;
    if (sink_.track) heap_ids_.assign(streams_.empty() ? 0 : handles_[0].size(), 0);
    if (sink_.track || o_.on_event) {
      if (strata_set_event_sink(d_, &Sink::Receive, &sink_) != STRATA_OK) {
        *error_ = ApiError("strata_set_event_sink (for the run's events)");
        return false;
      }
    }
    bool ok = Walk(events, stream_of);
    for (PlacedSpan& span : r_.places) {  // still there at the end
      if (span.to == UINT64_MAX) span.to = r_.events;
    }
    if (sink_.track || o_.on_event) strata_set_event_sink(d_, nullptr, nullptr);
    r_.stats.struct_size = sizeof r_.stats;
    if (ok && strata_get_memory_stats(d_, 0, &r_.stats) != STRATA_OK) {
      *error_ = ApiError("strata_get_memory_stats");
      ok = false;
    }
    return ok;
  }

 private:
  bool Walk(const std::vector<Event>& events, const std::vector<uint32_t>* stream_of) {
    const size_t n = o_.max_events != 0 && o_.max_events < events.size() ? o_.max_events : events.size();
    const bool after = static_cast<bool>(o_.after_event);
    for (size_t i = 0; i < n; ++i) {
      ++r_.events;
      sink_.now = i;
      RunStep step;
      step.index = i;
      step.stream = stream_of != nullptr ? (*stream_of)[i] : 0;
      step.event = &events[i];
      step.buffer = &streams_[step.stream].trace->buffers[events[i].buffer];
      step.alloc = events[i].kind == 1;
      if (!(step.alloc ? Allocate(&step) : Release(&step))) return false;
      if (static_cast<int64_t>(i) == o_.snapshot_event && !Snapshot()) return false;
      if (r_.stopped) break;  // buffers were lost: nothing after this event can be replayed faithfully
      if (after && !o_.after_event(step)) return false;
    }
    return true;
  }

  bool Release(RunStep* step) {
    const TraceBuffer& b = *step->buffer;
    live_[step->stream] -= b.size;
    step->live_bytes = live_[step->stream];
    strata_buffer& h = handles_[step->stream][step->event->buffer];
    if (h == 0) return true;  // its allocation failed (or took nothing)
    if (before_ && !o_.before_call(*step)) return false;
    step->called = true;
    ++r_.frees;
    ++r_.streams[step->stream].frees;
    if (strata_free(d_, streams_[step->stream].context, h) != STRATA_OK) {
      *error_ = "line " + std::to_string(b.line) + ": " + strata_last_error_message();
      return false;
    }
    h = 0;
    return true;
  }

  bool Allocate(RunStep* step) {
    const TraceBuffer& b = *step->buffer;
    RunStreamResult& s = r_.streams[step->stream];
    ++r_.allocs;
    ++s.allocs;
    live_[step->stream] += b.size;
    step->live_bytes = live_[step->stream];
    if (o_.skip_zero_bytes && b.size == 0) return true;
    if (o_.fail_above_bytes != 0 && b.size > o_.fail_above_bytes) {
      RunOom oom;
      oom.message = "requested " + std::to_string(b.size) + " B, " + o_.fail_above_message;
      Fail(*step, std::move(oom));
      return true;
    }
    if (before_ && !o_.before_call(*step)) return false;
    step->called = true;
    const strata_context ctx = streams_[step->stream].context;
    strata_buffer& h = handles_[step->stream][step->event->buffer];
    strata_status st = strata_alloc(d_, ctx, b.size, 0, o_.alloc_flags, &h);
    if (st == STRATA_RESOURCE_EXHAUSTED) {
      RunOom oom;
      oom.message = strata_last_error_message();
      if (o_.oom_info) {
        oom.info.struct_size = sizeof oom.info;
        if (strata_get_last_oom(d_, &oom.info) != STRATA_OK) {
          *error_ = ApiError("strata_get_last_oom");
          return false;
        }
        oom.kind = oom.info.kind;
      }
      if (o_.defragment_on_oom && oom.kind == STRATA_OOM_FRAGMENTATION) {
        strata_compact_result cr{};
        cr.struct_size = sizeof cr;
        const strata_status cs = strata_compact(d_, ctx, nullptr, &cr);
        if (cs == STRATA_DATA_LOSS) {
          // The compaction could not place every buffer again: those buffers are lost and the run cannot go on.
          // This request fails (fragmentation) and the run stops here.
          oom.message += std::string(" Then Defragment(): ") + strata_last_error_message();
          h = 0;
          Fail(*step, std::move(oom));
          step->status = st;
          r_.stopped = true;
          return true;
        }
        if (cs != STRATA_OK) {
          *error_ = ApiError("strata_compact");
          return false;
        }
        ++r_.defragmentations;
        r_.defrag_bytes += cr.bytes_moved;
        st = strata_alloc(d_, ctx, b.size, 0, o_.alloc_flags, &h);
      }
      if (st == STRATA_RESOURCE_EXHAUSTED) {
        h = 0;
        Fail(*step, std::move(oom));
      }
    }
    step->status = st;
    if (st != STRATA_OK && st != STRATA_RESOURCE_EXHAUSTED) {
      *error_ = "line " + std::to_string(b.line) + ": " + strata_last_error_message();
      return false;
    }
    if (st == STRATA_OK && sink_.track) {
      if (step->stream == 0 && !heap_ids_.empty()) heap_ids_[step->event->buffer] = sink_.newest_alloc;
      if (o_.record_places && (step->stream == 0 || o_.places_every_stream)) {
        const auto at = sink_.by_id.find(sink_.newest_alloc);
        if (at != sink_.by_id.end()) {
          const uint32_t buffer = static_cast<uint32_t>(first_buffer_[step->stream] + step->event->buffer);
          sink_.Open(sink_.newest_alloc, {at->second.address, at->second.bytes, step->index, 0, buffer});
        }
      }
    }
    return true;
  }

  // Counts a failed allocation, and records it if it is the stream's or the run's first.
  void Fail(RunStep& step, RunOom&& oom) {
    oom.event = static_cast<int64_t>(step.index);
    oom.buffer_id = step.buffer->id;
    oom.stream = step.stream;
    step.failed = oom.kind;
    step.status = STRATA_RESOURCE_EXHAUSTED;
    ++r_.failed_allocs;
    RunStreamResult& s = r_.streams[step.stream];
    ++s.failed_allocs;
    if (s.first_oom.event < 0) s.first_oom = oom;
    if (r_.first_oom.event < 0) r_.first_oom = oom;
    last_oom_ = std::move(oom);
    step.oom = &last_oom_;
  }

  bool Snapshot() {
    const Trace& trace = *streams_[0].trace;
    const std::vector<strata_buffer>& handles = handles_[0];
    for (uint32_t k = 0; k < handles.size(); ++k) {
      if (handles[k] == 0) continue;
      const auto at = sink_.by_id.find(heap_ids_[k]);
      if (at == sink_.by_id.end()) {
        *error_ =
            "the backend's events gave no address for the buffer at line " + std::to_string(trace.buffers[k].line);
        return false;
      }
      r_.snapshot.push_back(
          {at->second.address, o_.snapshot_allocated_bytes ? at->second.bytes : trace.buffers[k].size, k});
    }
    strata_memory_stats then{};
    then.struct_size = sizeof then;
    if (strata_get_memory_stats(d_, 0, &then) != STRATA_OK) {
      *error_ = ApiError("strata_get_memory_stats");
      return false;
    }
    r_.snapshot_pool_bytes = then.pool_bytes;
    return true;
  }

  strata_device* d_;
  const std::vector<RunStream>& streams_;
  const RunOptions& o_;
  RunResult& r_;
  std::string* error_;
  const bool before_;                                // a before_call hook is set
  std::vector<std::vector<strata_buffer>> handles_;  // per stream, per buffer: 0 when not live
  std::vector<uint64_t> live_;                       // per stream: the trace's own live bytes
  std::vector<uint64_t> heap_ids_;                   // stream 0's live buffers' ids in the backend's events
  std::vector<uint64_t> first_buffer_;               // per stream: its first buffer's number in PlacedSpan::buffer
  Sink sink_;
  RunOom last_oom_;  // the failure RunStep::oom points to
};

}  // namespace

std::string ApiError(const std::string& what) { return what + ": " + strata_last_error_message(); }

bool RunEvents(strata_device* device, const std::vector<RunStream>& streams, const std::vector<Event>& events,
               const std::vector<uint32_t>* stream_of, const RunOptions& options, RunResult* result,
               std::string* error) {
  if (streams.empty() || (stream_of != nullptr && stream_of->size() != events.size())) {
    *error = "RunEvents: no stream, or not one stream index per event";
    return false;
  }
  if (stream_of != nullptr) {
    for (const uint32_t s : *stream_of) {
      if (s >= streams.size()) {
        *error = "RunEvents: an event of stream " + std::to_string(s) + " of " + std::to_string(streams.size());
        return false;
      }
    }
  }
  return Loop(device, streams, options, result, error).Run(events, stream_of);
}

}  // namespace strata::replay
