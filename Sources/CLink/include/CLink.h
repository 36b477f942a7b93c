// A C surface over Ableton Link (Debian's ableton-link-dev, header-only C++), for Swift. Written for Metronome; the
// names follow Link's own (Link.hpp), one function per member. Times are Link's clock, microseconds of
// CLOCK_MONOTONIC_RAW (clink_clock_micros).
//
// Threads: every function is safe from any thread except where noted. The *_audio_* pair is real-time safe (no
// allocation, no lock) and may be called only from one audio thread at a time; the *_app_* pair may block briefly.
// The callbacks run on Link's own thread.
#ifndef CLINK_H
#define CLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One Link instance (ableton::Link). Opaque.
typedef struct clink_link clink_link;

/// A captured session state (ableton::Link::SessionState), held by value: capturing one allocates nothing. Its
/// bytes are Link's; read and change it only through the clink_state_* functions.
typedef struct clink_state {
#ifdef __cplusplus
    alignas(8) unsigned char storage[128];
#else
    _Alignas(8) unsigned char storage[128];
#endif
} clink_state;

/// Creates a Link instance, disabled, with `bpm` as the tempo it would start a session with. Returns NULL when Link
/// cannot start (its network context throws); then `error` (when not NULL) receives a message, NUL-terminated,
/// truncated to `error_size` bytes.
clink_link *clink_create(double bpm, char *error, size_t error_size);
/// Disables and frees an instance; afterwards no callback of it runs.
void clink_destroy(clink_link *link);

void clink_enable(clink_link *link, bool enable);
bool clink_is_enabled(const clink_link *link);
void clink_enable_start_stop_sync(clink_link *link, bool enable);
bool clink_is_start_stop_sync_enabled(const clink_link *link);
size_t clink_num_peers(const clink_link *link);
/// Link's clock now, in microseconds.
int64_t clink_clock_micros(const clink_link *link);

typedef void (*clink_peers_callback)(size_t peers, void *context);
typedef void (*clink_tempo_callback)(double bpm, void *context);
typedef void (*clink_start_stop_callback)(bool is_playing, void *context);
/// Installs the three callbacks (any may be NULL), all with `context`. Call once, before enabling.
void clink_set_callbacks(
    clink_link *link, clink_peers_callback peers, clink_tempo_callback tempo, clink_start_stop_callback start_stop,
    void *context);

void clink_capture_app_state(const clink_link *link, clink_state *state);
void clink_commit_app_state(clink_link *link, const clink_state *state);
/// Real-time safe; one audio thread only.
void clink_capture_audio_state(const clink_link *link, clink_state *state);
/// Real-time safe; one audio thread only.
void clink_commit_audio_state(clink_link *link, const clink_state *state);

double clink_state_tempo(const clink_state *state);
void clink_state_set_tempo(clink_state *state, double bpm, int64_t at_micros);
double clink_state_beat_at_time(const clink_state *state, int64_t micros, double quantum);
double clink_state_phase_at_time(const clink_state *state, int64_t micros, double quantum);
int64_t clink_state_time_at_beat(const clink_state *state, double beat, double quantum);
void clink_state_request_beat_at_time(clink_state *state, double beat, int64_t micros, double quantum);
void clink_state_force_beat_at_time(clink_state *state, double beat, int64_t micros, double quantum);
void clink_state_set_is_playing(clink_state *state, bool is_playing, int64_t micros);
bool clink_state_is_playing(const clink_state *state);
int64_t clink_state_time_for_is_playing(const clink_state *state);
void clink_state_request_beat_at_start_playing_time(clink_state *state, double beat, double quantum);
void clink_state_set_is_playing_and_request_beat_at_time(
    clink_state *state, bool is_playing, int64_t micros, double beat, double quantum);

#ifdef __cplusplus
}
#endif

#endif
