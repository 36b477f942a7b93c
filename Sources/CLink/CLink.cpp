// The C surface of CLink.h over ableton::Link. Each function forwards to the member of the same name; the only logic
// here is the session state held by value in clink_state and the exceptions kept from crossing into C.
#include "CLink.h"

#include <ableton/Link.hpp>

#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <type_traits>

namespace {

using SessionState = ableton::Link::SessionState;
using Micros = std::chrono::microseconds;

static_assert(sizeof(SessionState) <= sizeof(clink_state::storage), "clink_state is too small for a SessionState");
static_assert(alignof(SessionState) <= 8, "clink_state is not aligned for a SessionState");
static_assert(std::is_trivially_copyable<SessionState>::value, "a SessionState is copied as bytes");
static_assert(std::is_trivially_destructible<SessionState>::value, "a SessionState is never destroyed");

SessionState &state_of(clink_state *state) { return *std::launder(reinterpret_cast<SessionState *>(state->storage)); }
const SessionState &state_of(const clink_state *state) {
    return *std::launder(reinterpret_cast<const SessionState *>(state->storage));
}
void store(clink_state *into, const SessionState &state) { new (into->storage) SessionState(state); }

void copy_message(const char *message, char *error, size_t size) {
    if (error == nullptr || size == 0) return;
    std::strncpy(error, message, size - 1);
    error[size - 1] = '\0';
}

} // namespace

struct clink_link {
    ableton::Link link;
    explicit clink_link(double bpm) : link(bpm) {}
};

extern "C" {

clink_link *clink_create(double bpm, char *error, size_t error_size) {
    try {
        return new clink_link(bpm);
    } catch (const std::exception &exception) {
        copy_message(exception.what(), error, error_size);
    } catch (...) {
        copy_message("unknown error", error, error_size);
    }
    return nullptr;
}

void clink_destroy(clink_link *link) {
    if (link == nullptr) return;
    link->link.enable(false);
    // Link's destructor stops its thread; callbacks are replaced first so none reaches a context being freed.
    link->link.setNumPeersCallback([](std::size_t) {});
    link->link.setTempoCallback([](double) {});
    link->link.setStartStopCallback([](bool) {});
    delete link;
}

void clink_enable(clink_link *link, bool enable) { link->link.enable(enable); }
bool clink_is_enabled(const clink_link *link) { return link->link.isEnabled(); }
void clink_enable_start_stop_sync(clink_link *link, bool enable) { link->link.enableStartStopSync(enable); }
bool clink_is_start_stop_sync_enabled(const clink_link *link) { return link->link.isStartStopSyncEnabled(); }
size_t clink_num_peers(const clink_link *link) { return link->link.numPeers(); }
int64_t clink_clock_micros(const clink_link *link) { return link->link.clock().micros().count(); }

void clink_set_callbacks(
    clink_link *link, clink_peers_callback peers, clink_tempo_callback tempo, clink_start_stop_callback start_stop,
    void *context) {
    if (peers != nullptr) link->link.setNumPeersCallback([=](std::size_t count) { peers(count, context); });
    if (tempo != nullptr) link->link.setTempoCallback([=](double bpm) { tempo(bpm, context); });
    if (start_stop != nullptr) link->link.setStartStopCallback([=](bool playing) { start_stop(playing, context); });
}

void clink_capture_app_state(const clink_link *link, clink_state *state) {
    store(state, link->link.captureAppSessionState());
}
void clink_commit_app_state(clink_link *link, const clink_state *state) {
    link->link.commitAppSessionState(state_of(state));
}
void clink_capture_audio_state(const clink_link *link, clink_state *state) {
    store(state, link->link.captureAudioSessionState());
}
void clink_commit_audio_state(clink_link *link, const clink_state *state) {
    link->link.commitAudioSessionState(state_of(state));
}

double clink_state_tempo(const clink_state *state) { return state_of(state).tempo(); }
void clink_state_set_tempo(clink_state *state, double bpm, int64_t at_micros) {
    state_of(state).setTempo(bpm, Micros(at_micros));
}
double clink_state_beat_at_time(const clink_state *state, int64_t micros, double quantum) {
    return state_of(state).beatAtTime(Micros(micros), quantum);
}
double clink_state_phase_at_time(const clink_state *state, int64_t micros, double quantum) {
    return state_of(state).phaseAtTime(Micros(micros), quantum);
}
int64_t clink_state_time_at_beat(const clink_state *state, double beat, double quantum) {
    return state_of(state).timeAtBeat(beat, quantum).count();
}
void clink_state_request_beat_at_time(clink_state *state, double beat, int64_t micros, double quantum) {
    state_of(state).requestBeatAtTime(beat, Micros(micros), quantum);
}
void clink_state_force_beat_at_time(clink_state *state, double beat, int64_t micros, double quantum) {
    state_of(state).forceBeatAtTime(beat, Micros(micros), quantum);
}
void clink_state_set_is_playing(clink_state *state, bool is_playing, int64_t micros) {
    state_of(state).setIsPlaying(is_playing, Micros(micros));
}
bool clink_state_is_playing(const clink_state *state) { return state_of(state).isPlaying(); }
int64_t clink_state_time_for_is_playing(const clink_state *state) {
    return state_of(state).timeForIsPlaying().count();
}
void clink_state_request_beat_at_start_playing_time(clink_state *state, double beat, double quantum) {
    state_of(state).requestBeatAtStartPlayingTime(beat, quantum);
}
void clink_state_set_is_playing_and_request_beat_at_time(
    clink_state *state, bool is_playing, int64_t micros, double beat, double quantum) {
    state_of(state).setIsPlayingAndRequestBeatAtTime(is_playing, Micros(micros), beat, quantum);
}

} // extern "C"
