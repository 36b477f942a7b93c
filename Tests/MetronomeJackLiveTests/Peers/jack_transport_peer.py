"""Drives a JACK server's transport and records one audio port against it, in a single client: each onset is stamped
with the transport's frame and state in the cycle it came in, so a click can be checked against the transport frame
it must land on.

Usage: jack_transport_peer.py SERVER AUDIO_PORT [midi=MIDI_PORT] STEP…
Steps, run in order from the moment the port is connected: wait:SECONDS, start, stop, locate:FRAME, and connect: with
a connect step, the steps before it run first and the port is connected there, once its client is active (5 s at
most), so the transport can be moved before the client whose port it is joins. The server may start up to 10 s after
the peer.
Once the port is connected, writes "jack_transport_peer: connected" on stderr: a test that moves our transport from
outside (over OSC) waits for that line, so the peer hears from the first frame it moves.
With midi=MIDI_PORT, that port's messages are recorded too, but for clocks (F8).

Prints, in order: "audio TRANSPORT_FRAME STATE" for each onset (a non-zero sample after at least 100 silent ones heard
while the port was connected, so a click already sounding when the connection is made is not taken for one;
STATE is rolling or stopped, TRANSPORT_FRAME the cycle's transport frame plus the offset in the period);
"midi TRANSPORT_FRAME STATE HEX…" for each MIDI message; "bbt TRANSPORT_FRAME STATE BAR BEAT TICK BEATS_PER_BAR BEAT_TYPE TICKS_PER_BEAT BEATS_PER_MINUTE" for every cycle
whose position has bar, beat and tick (a timebase master's); and "step NAME TRANSPORT_FRAME" when a step was taken. Exits 0, or 1 with a line on stderr when the port does not exist.
"""
import sys
import time

import jack
import numpy

server, audio_port, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
midi_port = None
if steps and steps[0].startswith("midi="):
    midi_port = steps[0][len("midi="):]
    steps = steps[1:]
opened = time.monotonic()
while True:
    try:
        client = jack.Client("transport_peer", servername=server, no_start_server=True)
        break
    except jack.JackOpenError:
        if time.monotonic() - opened > 10:
            raise
        time.sleep(0.01)
audio_in = client.inports.register("audio_in")
midi_in = client.midi_inports.register("midi_in")
messages = []
chunks = []
bbts = []


@client.set_process_callback
def process(frames):
    state, position = client.transport_query()
    rolling = state == jack.ROLLING
    connected = audio_in.number_of_connections > 0
    chunks.append((position["frame"], rolling, connected, numpy.array(audio_in.get_array(), copy=True)))
    for offset, data in midi_in.incoming_midi_events():
        if bytes(data) != b"\xf8":
            messages.append((position["frame"] + offset, rolling, bytes(data).hex(" ")))
    if "bar" in position:
        fields = ("bar", "beat", "tick", "beats_per_bar", "beat_type", "ticks_per_beat", "beats_per_minute")
        bbts.append((position["frame"], rolling) + tuple(position[name] for name in fields))




def connect(within=0):
    """Connects the ports; within SECONDS, tries again until they exist and their clients are active."""
    deadline = time.monotonic() + within
    while True:
        try:
            client.connect(audio_port, audio_in)
            if midi_port:
                client.connect(midi_port, midi_in)
            print("jack_transport_peer: connected", file=sys.stderr, flush=True)
            return
        except jack.JackError as error:
            if time.monotonic() >= deadline:
                print(f"jack_transport_peer: {error}", file=sys.stderr)
                sys.exit(1)
            time.sleep(0.005)


client.activate()
if "connect" not in steps:
    connect()
taken = []
for step in steps:
    name, _, value = step.partition(":")
    if name == "wait":
        time.sleep(float(value))
        continue
    if name == "connect":
        connect(within=5)
    elif name == "start":
        client.transport_start()
    elif name == "stop":
        client.transport_stop()
    elif name == "locate":
        client.transport_locate(int(value))
    else:
        print(f"jack_transport_peer: unknown step {step}", file=sys.stderr)
        sys.exit(1)
    taken.append((name, client.transport_frame))
time.sleep(0.3)
client.deactivate()
client.close()

silent = 0
for frame, rolling, connected, samples in chunks:
    if not connected:
        silent = 0
        continue
    for index, value in enumerate(samples):
        if value == 0:
            silent += 1
            continue
        if silent >= 100:
            print(f"audio {frame + index} {'rolling' if rolling else 'stopped'}")
        silent = 0
for frame, rolling, text in messages:
    print(f"midi {frame} {'rolling' if rolling else 'stopped'} {text}")
for frame, rolling, *fields in bbts:
    state = "rolling" if rolling else "stopped"
    print(f"bbt {frame} {state} " + " ".join(f"{value:g}" if isinstance(value, float) else str(value) for value in fields))
for name, frame in taken:
    print(f"step {name} {frame}")
