#ifndef METRONOME_CJACK_H
#define METRONOME_CJACK_H
// JACK, reached only through MetronomeJack. Swift calls libjack's functions directly, except the one it cannot:
// jack_client_open is variadic.
#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/transport.h>

/// Opens a client of an already running server, never starting one (JackNoStartServer); libjack's own messages are
/// silenced first (the caller reports a failure in one line).
/// @param name the client's name (JACK may make it unique: read jack_get_client_name).
/// @param server the server's name, or NULL for JACK_DEFAULT_SERVER or "default".
/// @param status receives JACK's status bits.
/// @return the client, or NULL (see status).
jack_client_t *metronome_jack_open(const char *name, const char *server, jack_status_t *status);

/// JACK_DEFAULT_AUDIO_TYPE and JACK_DEFAULT_MIDI_TYPE are macros Swift cannot see.
const char *metronome_jack_audio_type(void);
const char *metronome_jack_midi_type(void);
#endif
