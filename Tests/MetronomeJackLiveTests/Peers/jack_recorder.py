"""Records one audio port and one MIDI port of a JACK server in a single client, both stamped on the server's frame
clock (the cycle's last_frame_time plus the offset in the period), so sound and MIDI can be compared frame for frame.

Usage: jack_recorder.py SERVER AUDIO_PORT MIDI_PORT SECONDS [transport]

Records for SECONDS from its connection, or until SIGINT if that comes first (a test ends it when its sender ends).

Prints, in frame order: "audio FRAME" for each onset (a non-zero sample after at least 100 silent ones heard while the
port was connected, so a click already sounding when the connection is made is not taken for one) and
"midi FRAME HEX…" for each MIDI message. With "transport", also, for each cycle, "transport FRAME STATE TRANSPORT_FRAME"
and, when the timebase master gave them, "BAR BEAT TICK TICKS_PER_BEAT BEATS_PER_BAR BEAT_TYPE BPM" (the JACK
transport as a client sees it in that cycle: its first frame's position). Once both ports are connected, writes
"jack_recorder: recording" on stderr (a sender started after that line is heard from its first frame: the tests wait
for it). Exits 0, or 1 with a line on stderr when a port does not exist.
"""
import signal
import sys

# SIGINT ends the recording early: blocked before anything makes a thread (numpy's BLAS pool, JACK's threads: they
# inherit the mask), and waited for below.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

import jack
import numpy

server, audio_port, midi_port, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
logs_transport = sys.argv[5:6] == ["transport"]
client = jack.Client("recorder", servername=server, no_start_server=True)
audio_in = client.inports.register("audio_in")
midi_in = client.midi_inports.register("midi_in")
chunks = []
messages = []
transport = []


@client.set_process_callback
def process(frames):
    start = client.last_frame_time
    connected = audio_in.number_of_connections > 0
    chunks.append((start, connected, numpy.array(audio_in.get_array(), copy=True)))
    for offset, data in midi_in.incoming_midi_events():
        messages.append((start + offset, bytes(data).hex(" ")))
    if logs_transport:
        state, position = client.transport_query()
        fields = [state._code, position["frame"]]
        if "bar" in position:
            fields += [position["bar"], position["beat"], position["tick"], position["ticks_per_beat"]]
            fields += [position["beats_per_bar"], position["beat_type"], position["beats_per_minute"]]
        transport.append((start, " ".join(str(field) for field in fields)))


client.activate()
try:
    client.connect(audio_port, audio_in)
    client.connect(midi_port, midi_in)
except jack.JackError as error:
    print(f"jack_recorder: {error}", file=sys.stderr)
    sys.exit(1)
print("jack_recorder: recording", file=sys.stderr, flush=True)
signal.sigtimedwait({signal.SIGINT}, seconds)
client.deactivate()
client.close()

events = []
silent = 0
for start, connected, samples in chunks:
    if not connected:
        silent = 0
        continue
    for index, value in enumerate(samples):
        if value == 0:
            silent += 1
            continue
        if silent >= 100:
            events.append((start + index, 0, "audio"))
        silent = 0
for frame, text in messages:
    events.append((frame, 1, f"midi {text}"))
for frame, text in transport:
    events.append((frame, 2, f"transport {text}"))
for frame, _, text in sorted(events):
    kind, _, rest = text.partition(" ")
    print(f"{kind} {frame} {rest}".rstrip())
