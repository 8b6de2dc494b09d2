#ifndef PARAMD_CAVAHI_SHIM_H
#define PARAMD_CAVAHI_SHIM_H
// Zeroconf announcement through the Avahi daemon (SPEC §9): `_oscjson._tcp` on the HTTP port and
// `_osc._udp` on the OSC port, under paramd's JACK client name. libavahi-client with Avahi's
// threaded poll: one thread of Avahi's own (named paramd-avahi), asleep in poll() on the D-Bus
// socket until the daemon has something to say. Written in C because Avahi's API is callbacks
// with user data, and its add_service is variadic (Swift calls neither comfortably).
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/// level: 0 info, 1 notice, 2 warning.
typedef void (*paramd_avahi_log)(void *context, int level, const char *text);

typedef struct paramd_avahi {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    AvahiEntryGroup *group;
    char *name;
    uint16_t http_port;  // 0: no _oscjson._tcp
    uint16_t osc_port;
    int interfaces[16];  // AVAHI_IF_UNSPEC alone, or the interfaces paramd listens on
    int interface_count;
    paramd_avahi_log log;
    void *log_context;
} paramd_avahi;

static inline void paramd_avahi_say(paramd_avahi *a, int level, const char *format, const char *detail) {
    char text[512];
    snprintf(text, sizeof text, format, a->name, detail ? detail : "");
    a->log(a->log_context, level, text);
}

static inline void paramd_avahi_create_services(paramd_avahi *a, AvahiClient *c);

static inline void paramd_avahi_group_callback(AvahiEntryGroup *g, AvahiEntryGroupState state, void *userdata) {
    paramd_avahi *a = (paramd_avahi *)userdata;
    a->group = g;
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
        paramd_avahi_say(a, 0, "zeroconf: announced '%s' as %s",
                         a->http_port ? "_oscjson._tcp (HTTP port) and _osc._udp (OSC port)" : "_osc._udp (OSC port)");
        break;
    case AVAHI_ENTRY_GROUP_COLLISION: {
        // Another service has the name on the network: take "name #2" and so on, as Avahi does.
        char *next = avahi_alternative_service_name(a->name);
        paramd_avahi_say(a, 1, "zeroconf: the name '%s' is taken on the network; trying '%s'", next);
        avahi_free(a->name);
        a->name = next;
        avahi_entry_group_reset(g);
        paramd_avahi_create_services(a, avahi_entry_group_get_client(g));
        break;
    }
    case AVAHI_ENTRY_GROUP_FAILURE:
        paramd_avahi_say(a, 2, "zeroconf: announcing '%s' failed: %s",
                         avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(g))));
        break;
    default:
        break;
    }
}

static inline void paramd_avahi_create_services(paramd_avahi *a, AvahiClient *c) {
    if (!a->group) {
        a->group = avahi_entry_group_new(c, paramd_avahi_group_callback, a);
        if (!a->group) {
            paramd_avahi_say(a, 2, "zeroconf: cannot announce '%s': %s", avahi_strerror(avahi_client_errno(c)));
            return;
        }
    }
    if (!avahi_entry_group_is_empty(a->group)) return;
    for (int i = 0; i < a->interface_count; i++) {
        int rc = 0;
        if (a->http_port)
            rc = avahi_entry_group_add_service_strlst(a->group, a->interfaces[i], AVAHI_PROTO_UNSPEC, 0, a->name,
                                                      "_oscjson._tcp", NULL, NULL, a->http_port, NULL);
        if (rc == 0)
            rc = avahi_entry_group_add_service_strlst(a->group, a->interfaces[i], AVAHI_PROTO_UNSPEC, 0, a->name,
                                                      "_osc._udp", NULL, NULL, a->osc_port, NULL);
        if (rc == AVAHI_ERR_COLLISION) {
            char *next = avahi_alternative_service_name(a->name);
            avahi_free(a->name);
            a->name = next;
            avahi_entry_group_reset(a->group);
            paramd_avahi_create_services(a, c);
            return;
        }
        if (rc < 0) {
            paramd_avahi_say(a, 2, "zeroconf: cannot announce '%s': %s", avahi_strerror(rc));
            return;
        }
    }
    int rc = avahi_entry_group_commit(a->group);
    if (rc < 0) paramd_avahi_say(a, 2, "zeroconf: cannot announce '%s': %s", avahi_strerror(rc));
}

static inline void paramd_avahi_client_callback(AvahiClient *c, AvahiClientState state, void *userdata) {
    paramd_avahi *a = (paramd_avahi *)userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        paramd_avahi_create_services(a, c);
        break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        // The host name changed or collided: announce again once the daemon runs again.
        if (a->group) avahi_entry_group_reset(a->group);
        break;
    case AVAHI_CLIENT_FAILURE:
        // Typically the daemon went away (AVAHI_ERR_DISCONNECTED): paramd carries on unannounced.
        paramd_avahi_say(a, 1, "zeroconf: the Avahi daemon is gone; '%s' is no longer announced (%s)",
                         avahi_strerror(avahi_client_errno(c)));
        break;
    default:
        break;
    }
}

static inline void paramd_avahi_name_thread(AvahiTimeout *t, void *userdata) {
    (void)userdata;
    prctl(PR_SET_NAME, "paramd-avahi", 0, 0, 0);
    const AvahiPoll *api = (const AvahiPoll *)userdata;
    api->timeout_free(t);
}

/// Starts the announcement. NULL, with `*error` set (AVAHI_ERR_NO_DAEMON, say), when there is
/// no Avahi daemon to talk to. `interfaces`: interface indices, or one AVAHI_IF_UNSPEC (-1).
static inline paramd_avahi *paramd_avahi_start(const char *name, uint16_t http_port, uint16_t osc_port,
                                               const int *interfaces, int interface_count,
                                               paramd_avahi_log log, void *log_context, int *error) {
    paramd_avahi *a = (paramd_avahi *)calloc(1, sizeof *a);
    if (!a) { *error = AVAHI_ERR_NO_MEMORY; return NULL; }
    a->name = avahi_strdup(name);
    a->http_port = http_port;
    a->osc_port = osc_port;
    a->interface_count = interface_count < 16 ? interface_count : 16;
    for (int i = 0; i < a->interface_count; i++) a->interfaces[i] = interfaces[i];
    a->log = log;
    a->log_context = log_context;
    a->poll = avahi_threaded_poll_new();
    if (!a->poll) { *error = AVAHI_ERR_NO_MEMORY; avahi_free(a->name); free(a); return NULL; }
    a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), 0, paramd_avahi_client_callback, a, error);
    if (!a->client) {
        avahi_threaded_poll_free(a->poll);
        avahi_free(a->name);
        free(a);
        return NULL;
    }
    // The poll thread names itself when it first runs (a timeout due at once).
    const AvahiPoll *api = avahi_threaded_poll_get(a->poll);
    struct timeval now;
    api->timeout_new(api, avahi_elapse_time(&now, 0, 0), paramd_avahi_name_thread, (void *)api);
    if (avahi_threaded_poll_start(a->poll) < 0) {
        *error = AVAHI_ERR_FAILURE;
        avahi_client_free(a->client);
        avahi_threaded_poll_free(a->poll);
        avahi_free(a->name);
        free(a);
        return NULL;
    }
    *error = 0;
    return a;
}

/// Withdraws the announcement, ends Avahi's thread and frees everything.
static inline void paramd_avahi_stop(paramd_avahi *a) {
    if (!a) return;
    avahi_threaded_poll_stop(a->poll);
    avahi_client_free(a->client);  // frees the entry group too, withdrawing the services
    avahi_threaded_poll_free(a->poll);
    avahi_free(a->name);
    free(a);
}

/// The name announced now (it changes after a collision). Copies it into `buffer`.
static inline void paramd_avahi_name(paramd_avahi *a, char *buffer, size_t size) {
    avahi_threaded_poll_lock(a->poll);
    snprintf(buffer, size, "%s", a->name);
    avahi_threaded_poll_unlock(a->poll);
}

#endif
