// paramd's C ABI over Ableton Link: CLinkBridge.h says which thread may call what. No C++
// exception crosses into Swift: the calls that can throw (setting up Link's sockets and
// threads) are caught here and reported as NULL or ignored; the realtime-safe calls do not throw.
#include "CLinkBridge.h"

#include <ableton/Link.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <new>

struct paramd_link {
    ableton::Link link;
    explicit paramd_link(double bpm) : link(bpm) {}
};

struct paramd_link_session_state {
    ableton::Link::SessionState state;
    paramd_link_session_state() : state(ableton::link::ApiState{}, false) {}
};

namespace {
void writeError(char *error, int capacity, const char *message) {
    if (error && capacity > 0) std::snprintf(error, static_cast<size_t>(capacity), "%s", message);
}
}  // namespace

extern "C" {

paramd_link *paramd_link_create(double bpm, char *error, int error_capacity) {
    try {
        return new paramd_link(bpm);
    } catch (const std::exception &exception) {
        writeError(error, error_capacity, exception.what());
    } catch (...) {
        writeError(error, error_capacity, "Link could not be set up");
    }
    return nullptr;
}

void paramd_link_destroy(paramd_link *link) {
    if (!link) return;
    try {
        link->link.enable(false);
    } catch (...) {
    }
    delete link;
}

void paramd_link_enable(paramd_link *link, bool enabled) {
    try {
        link->link.enable(enabled);
    } catch (...) {
    }
}

bool paramd_link_is_enabled(const paramd_link *link) { return link->link.isEnabled(); }

uint64_t paramd_link_num_peers(const paramd_link *link) { return static_cast<uint64_t>(link->link.numPeers()); }

int64_t paramd_link_clock_micros(const paramd_link *link) { return link->link.clock().micros().count(); }

void paramd_link_set_num_peers_callback(paramd_link *link, void (*callback)(uint64_t, void *), void *context) {
    link->link.setNumPeersCallback([callback, context](std::size_t peers) {
        if (callback) callback(static_cast<uint64_t>(peers), context);
    });
}

void paramd_link_set_tempo_callback(paramd_link *link, void (*callback)(double, void *), void *context) {
    link->link.setTempoCallback([callback, context](double bpm) {
        if (callback) callback(bpm, context);
    });
}

paramd_link_session_state *paramd_link_session_state_create(void) {
    return new (std::nothrow) paramd_link_session_state();
}

void paramd_link_session_state_destroy(paramd_link_session_state *state) { delete state; }

void paramd_link_capture_audio_session_state(paramd_link *link, paramd_link_session_state *state) {
    state->state = link->link.captureAudioSessionState();
}

void paramd_link_commit_audio_session_state(paramd_link *link, const paramd_link_session_state *state) {
    link->link.commitAudioSessionState(state->state);
}

void paramd_link_capture_app_session_state(paramd_link *link, paramd_link_session_state *state) {
    state->state = link->link.captureAppSessionState();
}

void paramd_link_commit_app_session_state(paramd_link *link, const paramd_link_session_state *state) {
    link->link.commitAppSessionState(state->state);
}

double paramd_link_session_state_tempo(const paramd_link_session_state *state) { return state->state.tempo(); }

void paramd_link_session_state_set_tempo(paramd_link_session_state *state, double bpm, int64_t at_micros) {
    state->state.setTempo(bpm, std::chrono::microseconds{at_micros});
}

double paramd_link_session_state_beat_at_time(const paramd_link_session_state *state, int64_t micros, double quantum) {
    return state->state.beatAtTime(std::chrono::microseconds{micros}, quantum);
}

double paramd_link_session_state_phase_at_time(const paramd_link_session_state *state, int64_t micros, double quantum) {
    return state->state.phaseAtTime(std::chrono::microseconds{micros}, quantum);
}

int64_t paramd_link_session_state_time_at_beat(const paramd_link_session_state *state, double beat, double quantum) {
    return state->state.timeAtBeat(beat, quantum).count();
}

void paramd_link_session_state_request_beat_at_time(paramd_link_session_state *state, double beat, int64_t micros,
                                                    double quantum) {
    state->state.requestBeatAtTime(beat, std::chrono::microseconds{micros}, quantum);
}

}  // extern "C"
