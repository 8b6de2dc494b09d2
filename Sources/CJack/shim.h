#ifndef PARAMD_CJACK_SHIM_H
#define PARAMD_CJACK_SHIM_H
#include <jack/jack.h>
#include <jack/metadata.h>
#include <jack/midiport.h>
#include <jack/uuid.h>

/// jack_client_open is variadic; Swift cannot call it. Opens with an explicit server name
/// (NULL: the default server, or $JACK_DEFAULT_SERVER) and never starts a server.
static inline jack_client_t *paramd_jack_client_open(const char *name, const char *server,
                                                     jack_status_t *status) {
    jack_options_t options = JackNoStartServer;
    if (server != NULL && server[0] != '\0') {
        options = (jack_options_t)(options | JackServerName);
        return jack_client_open(name, options, status, server);
    }
    return jack_client_open(name, options, status);
}

/// JACK_METADATA_PRETTY_NAME is an extern const char*; expose it as a function.
static inline const char *paramd_jack_pretty_name_key(void) { return JACK_METADATA_PRETTY_NAME; }

/// JACK_METADATA_SIGNAL_TYPE ("http://jackaudio.org/metadata/signal-type"), likewise.
static inline const char *paramd_jack_signal_type_key(void) { return JACK_METADATA_SIGNAL_TYPE; }

#endif
