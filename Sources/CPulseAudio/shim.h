#ifndef METRONOME_CPULSEAUDIO_SHIM_H
#define METRONOME_CPULSEAUDIO_SHIM_H
#include <pulse/pulseaudio.h>
#include <pulse/thread-mainloop.h>

/// PA_SAMPLE_FLOAT32NE is a macro Swift cannot see: the native-endian 32-bit float format.
static inline pa_sample_format_t metronome_pa_float32ne(void) { return PA_SAMPLE_FLOAT32NE; }

/// (uint32_t) -1, which pa_buffer_attr fields take for "server default".
static inline uint32_t metronome_pa_default_attr(void) { return (uint32_t)-1; }
#endif
