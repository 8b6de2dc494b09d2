// paramd's C ABI over Ableton Link (Debian's ableton-link-dev, C++ headers, GPL-2.0-or-later),
// modelled on upstream's abl_link wrapper. Swift imports this header; LinkBridge.cpp is the
// only file that includes Link's own headers.
//
// Threads, as Link's documentation gives them:
// - Realtime-safe (the JACK process thread may call them): paramd_link_num_peers,
//   paramd_link_clock_micros, paramd_link_capture_audio_session_state,
//   paramd_link_commit_audio_session_state, and every paramd_link_session_state_* function
//   other than create and destroy. Capture and commit of the audio session state are for the
//   audio thread only.
// - Control thread only: create, destroy, enable, the callbacks' setters, the app session
//   state's capture and commit, and creating or destroying a session state.
// - The callbacks run on a thread of Link's own.
// Times are Link's clock in microseconds: CLOCK_MONOTONIC_RAW on Linux (not JACK's clock).
#ifndef PARAMD_CLINKBRIDGE_H
#define PARAMD_CLINKBRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One Link instance (ableton::Link); opaque.
typedef struct paramd_link paramd_link;
/// A snapshot of a Link session state (ableton::Link::SessionState); opaque, owned by the caller.
typedef struct paramd_link_session_state paramd_link_session_state;

/// Control thread. A Link instance at `bpm` (20…999), not yet enabled; NULL if Link could not be
/// set up (its error is written to `error`, `error_capacity` bytes at most, when not NULL).
paramd_link *paramd_link_create(double bpm, char *error, int error_capacity);
/// Control thread. Leaves the session and frees the instance. NULL is ignored.
void paramd_link_destroy(paramd_link *link);
/// Control thread. Joins (true) or leaves (false) the session on the network.
void paramd_link_enable(paramd_link *link, bool enabled);
/// Any thread. Whether the instance is enabled.
bool paramd_link_is_enabled(const paramd_link *link);
/// Realtime-safe. The number of other peers in the session.
uint64_t paramd_link_num_peers(const paramd_link *link);
/// Realtime-safe. Link's clock now, microseconds (CLOCK_MONOTONIC_RAW on Linux).
int64_t paramd_link_clock_micros(const paramd_link *link);

/// Control thread. `callback(num_peers, context)` on Link's thread when the peer count changes.
void paramd_link_set_num_peers_callback(paramd_link *link, void (*callback)(uint64_t, void *), void *context);
/// Control thread. `callback(bpm, context)` on Link's thread when the session tempo changes.
void paramd_link_set_tempo_callback(paramd_link *link, void (*callback)(double, void *), void *context);

/// Control thread. A session state to capture into; NULL if out of memory.
paramd_link_session_state *paramd_link_session_state_create(void);
/// Control thread. NULL is ignored.
void paramd_link_session_state_destroy(paramd_link_session_state *state);

/// Realtime-safe, audio thread only. Copies the session state as the audio thread should see it.
void paramd_link_capture_audio_session_state(paramd_link *link, paramd_link_session_state *state);
/// Realtime-safe, audio thread only. Makes `state` the session state (and sends it to the peers).
void paramd_link_commit_audio_session_state(paramd_link *link, const paramd_link_session_state *state);
/// Control thread. Copies the session state, for a thread other than the audio thread.
void paramd_link_capture_app_session_state(paramd_link *link, paramd_link_session_state *state);
/// Control thread. Makes `state` the session state from a thread other than the audio thread.
void paramd_link_commit_app_session_state(paramd_link *link, const paramd_link_session_state *state);

/// Realtime-safe. The session tempo, BPM.
double paramd_link_session_state_tempo(const paramd_link_session_state *state);
/// Realtime-safe. Sets the tempo from Link time `at_micros` on.
void paramd_link_session_state_set_tempo(paramd_link_session_state *state, double bpm, int64_t at_micros);
/// Realtime-safe. The beat at Link time `micros`, its phase shared by every peer for `quantum`.
double paramd_link_session_state_beat_at_time(const paramd_link_session_state *state, int64_t micros, double quantum);
/// Realtime-safe. The phase (0 ≤ phase < quantum) at Link time `micros`.
double paramd_link_session_state_phase_at_time(const paramd_link_session_state *state, int64_t micros, double quantum);
/// Realtime-safe. The Link time at which `beat` falls, for `quantum`.
int64_t paramd_link_session_state_time_at_beat(const paramd_link_session_state *state, double beat, double quantum);
/// Realtime-safe. Maps `beat` to Link time `micros` (alone in a session), or to the next time
/// with the same phase for `quantum` (with peers): Link's quantized launch.
void paramd_link_session_state_request_beat_at_time(paramd_link_session_state *state, double beat, int64_t micros,
                                                    double quantum);

#ifdef __cplusplus
}
#endif

#endif
