"""Plays MIDI into a JACK port on exact frames and records a MIDI port and an audio port, all in one client on the
server's frame clock (a cycle's last_frame_time plus the offset in the period).

Usage: jack_midi_peer.py SERVER TO_PORT FROM_MIDI_PORT AUDIO_PORT SECONDS EVENT…
FROM_MIDI_PORT and AUDIO_PORT may be "-": nothing is recorded from them. (A client both feeding a port and recording
the same client's output closes a loop in JACK's graph, which delays what it records by a period: to compare sound
with what was sent, record with another client.)
Each EVENT is FRAMES:HEX (e.g. 0:903c64): the message's bytes, sent FRAMES after the base frame, which is the first
cycle's frame plus one second (the connections are made by then).

Prints, in frame order: "base FRAME"; "sent FRAME HEX…" for each message sent; "midi FRAME HEX…" for each message
received on FROM_MIDI_PORT; "audio FRAME" for each onset on AUDIO_PORT (a non-zero sample after at least 100 silent
ones). Exits 0, or 1 with a line on stderr when a port does not exist.
"""
import sys
import time

import jack
import numpy

server, to_port, from_port, audio_port, seconds = sys.argv[1:6]
events = []
for item in sys.argv[6:]:
    delay, _, data = item.partition(":")
    events.append((int(delay), bytes.fromhex(data)))
events.sort(key=lambda event: event[0])

client = jack.Client("midi_peer", servername=server, no_start_server=True)
midi_out = client.midi_outports.register("midi_out")
midi_in = client.midi_inports.register("midi_in")
audio_in = client.inports.register("audio_in")
state = {"base": None, "next": 0}
sent = []
received = []
chunks = []


@client.set_process_callback
def process(frames):
    start = client.last_frame_time
    if state["base"] is None:
        state["base"] = start + client.samplerate
    midi_out.clear_buffer()
    while state["next"] < len(events):
        delay, data = events[state["next"]]
        frame = state["base"] + delay
        if frame >= start + frames:
            break
        midi_out.write_midi_event(max(0, frame - start), data)
        sent.append((max(frame, start), data.hex(" ")))
        state["next"] += 1
    for offset, data in midi_in.incoming_midi_events():
        received.append((start + offset, bytes(data).hex(" ")))
    chunks.append((start, numpy.array(audio_in.get_array(), copy=True)))


client.activate()
try:
    client.connect(midi_out, to_port)
    if from_port != "-":
        client.connect(from_port, midi_in)
    if audio_port != "-":
        client.connect(audio_port, audio_in)
except jack.JackError as error:
    print(f"jack_midi_peer: {error}", file=sys.stderr)
    sys.exit(1)
time.sleep(float(seconds))
client.deactivate()
client.close()

lines = [(state["base"], 0, "base")]
lines += [(frame, 1, f"sent {text}") for frame, text in sent]
lines += [(frame, 2, f"midi {text}") for frame, text in received]
silent = 100
for start, samples in chunks:
    for index, value in enumerate(samples):
        if value == 0:
            silent += 1
            continue
        if silent >= 100:
            lines.append((start + index, 3, "audio"))
        silent = 0
for frame, _, text in sorted(lines):
    kind, _, rest = text.partition(" ")
    print(f"{kind} {frame} {rest}".rstrip())
