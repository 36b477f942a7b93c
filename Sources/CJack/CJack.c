#include "CJack.h"

/// libjack's messages ("Cannot connect to server socket…") would come before our one line on stderr: each failure
/// they describe is reported by the caller instead.
static void metronome_jack_silent(const char *message) { (void)message; }

jack_client_t *metronome_jack_open(const char *name, const char *server, jack_status_t *status) {
    jack_set_error_function(metronome_jack_silent);
    jack_set_info_function(metronome_jack_silent);
    if (server != NULL) {
        return jack_client_open(name, JackNoStartServer | JackServerName, status, server);
    }
    return jack_client_open(name, JackNoStartServer, status);
}

const char *metronome_jack_audio_type(void) { return JACK_DEFAULT_AUDIO_TYPE; }

const char *metronome_jack_midi_type(void) { return JACK_DEFAULT_MIDI_TYPE; }
