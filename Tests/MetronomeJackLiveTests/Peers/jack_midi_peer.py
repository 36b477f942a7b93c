"""Plays MIDI into a JACK port on exact frames of the server's frame clock (a cycle's last_frame_time plus the offset
in the period). What it causes is recorded by another client (jack_recorder.py): a client both feeding a port and
recording the same client's output closes a loop in JACK's graph, which delays what it records by a period.

Usage: jack_midi_peer.py SERVER TO_PORT SECONDS EVENT…
Each EVENT is FRAMES:HEX (e.g. 0:903c64): the message's bytes, sent FRAMES after the base frame, which is the first
cycle's frame plus one second (the connection is made by then); or FRAMES:start (FRAMES:stop), which starts
(stops) the JACK transport from the cycle holding that frame.

Prints "base FRAME", then "sent FRAME HEX…" for each message sent, in frame order. Exits 0, or 1 with a line on
stderr when the port does not exist.
"""
import sys
import time

import jack

server, to_port, seconds = sys.argv[1:4]
events = []
for item in sys.argv[4:]:
    delay, _, data = item.partition(":")
    events.append((int(delay), data if data in ("start", "stop") else bytes.fromhex(data)))
events.sort(key=lambda event: event[0])

client = jack.Client("midi_peer", servername=server, no_start_server=True)
midi_out = client.midi_outports.register("midi_out")
state = {"base": None, "next": 0}
sent = []


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
        if data in ("start", "stop"):
            if data == "start":
                client.transport_start()
            else:
                client.transport_stop()
            sent.append((max(frame, start), data))
        else:
            midi_out.write_midi_event(max(0, frame - start), data)
            sent.append((max(frame, start), data.hex(" ")))
        state["next"] += 1


client.activate()
try:
    client.connect(midi_out, to_port)
except jack.JackError as error:
    print(f"jack_midi_peer: {error}", file=sys.stderr)
    sys.exit(1)
time.sleep(float(seconds))
client.deactivate()
client.close()

print(f"base {state['base']}")
for frame, text in sent:
    print(f"sent {frame} {text}")
