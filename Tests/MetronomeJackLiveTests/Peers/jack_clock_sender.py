"""A MIDI clock sender with jitter of a known shape, on a JACK server's frame clock (JACK-Client): what hardware
through a2jmidid or a DAW sends, made rough on purpose, for `--follow midi-clock`.

Usage: jack_clock_sender.py SERVER TO_PORT SECONDS ITEM…
Items, in any order:
    bpm:B               the tempo at the first clock (default 120)
    tempo:B@S           from the first clock at or after S seconds, the tempo is B
    jitter:uniform:MS   each clock moved by a uniform amount in ±MS milliseconds
    jitter:gauss:MS     … by a Gaussian amount of standard deviation MS milliseconds
    quantize:MS         each clock's frame rounded down to a multiple of MS milliseconds (USB frames)
    drop:EVERY          every EVERY-th clock is not sent (its time still passes)
    seed:N              the random seed (default 1)
    start@S, stop@S, continue@S, spp:SIXTEENTHS@S
                        Start (FA), Stop (FC), Continue (FB), Song Position Pointer (F2) at S seconds
    raw:HEX@S           any bytes as one message at S seconds (System Exclusive, active sensing, running status…)
    flood:N@S-E         N extra F8 a second from S to E seconds, on top of the clock
    silence@S-E         no clock from S to E seconds (its time passes)
Seconds count from the base frame: the first cycle's frame plus one second (the connection is made by then). The
clock runs from the base frame to the end, clocks before Start included (as hardware sends them).

Prints "base FRAME", then one line per clock, "ideal INDEX FRAME" (its exact frame before jitter, to 3 decimals),
and one per message sent, "sent FRAME HEX…", in frame order; then, for each transport message, "mark INDEX HEX…":
the clock it was sent just before (on that clock's frame: a message at S seconds goes before the first clock due at
or after S, so jitter never puts that clock before it). Exits 0, or 1 with a line on stderr when the port does
not exist.
"""
import random
import sys
import time

import jack

server, to_port, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
bpm = 120.0
changes = []
jitter = None
quantum_ms = 0.0
drop_every = 0
seed = 1
marks = []
floods = []
silences = []
for item in sys.argv[4:]:
    head, _, at = item.partition("@")
    kind, _, value = head.partition(":")
    if kind == "bpm":
        bpm = float(value)
    elif kind == "tempo":
        changes.append((float(at), float(value)))
    elif kind == "jitter":
        shape, _, amount = value.partition(":")
        jitter = (shape, float(amount))
    elif kind == "quantize":
        quantum_ms = float(value)
    elif kind == "drop":
        drop_every = int(value)
    elif kind == "seed":
        seed = int(value)
    elif kind in ("start", "stop", "continue"):
        marks.append((float(at), {"start": b"\xfa", "stop": b"\xfc", "continue": b"\xfb"}[kind]))
    elif kind == "raw":
        marks.append((float(at), bytes.fromhex(value)))
    elif kind == "flood":
        begin, _, end = at.partition("-")
        floods.append((int(value), float(begin), float(end)))
    elif kind == "silence":
        begin, _, end = at.partition("-")
        silences.append((float(begin), float(end)))
    elif kind == "spp":
        sixteenths = int(value)
        marks.append((float(at), bytes([0xF2, sixteenths & 0x7F, (sixteenths >> 7) & 0x7F])))
    else:
        sys.exit(f"jack_clock_sender: {item}: not an item")

client = jack.Client("clock_sender", servername=server, no_start_server=True)
rate = client.samplerate
midi_out = client.midi_outports.register("midi_out")
generator = random.Random(seed)

# Every clock's ideal exact frame (from the base), and the frame it is sent on.
ideal = []
sent_frames = []
frame = 0.0
tempo = bpm
pending = sorted(changes)
total = seconds * rate
index = 0
while frame < total:
    while pending and pending[0][0] * rate <= frame:
        tempo = pending.pop(0)[1]
    ideal.append(frame)
    moved = frame
    if jitter is not None:
        shape, amount = jitter
        if shape == "uniform":
            moved += generator.uniform(-amount, amount) * rate / 1000
        else:
            moved += generator.gauss(0, amount) * rate / 1000
    if quantum_ms > 0:
        step = quantum_ms * rate / 1000
        moved = (moved // step) * step
    keep = not (drop_every and index % drop_every == drop_every - 1)
    keep = keep and not any(begin * rate <= frame < end * rate for begin, end in silences)
    sent_frames.append(max(0, round(moved)) if keep else None)
    frame += 60 * rate / (tempo * 24)
    index += 1

events = [(f, 1, b"\xf8") for f in sent_frames if f is not None]
# A transport message goes just before the first clock due at or after its time, on that clock's frame (jitter moves
# the bytes of a cable together: the clock after a Start never comes before it); "mark INDEX HEX" says which.
mark_lines = []
for at, data in marks:
    index = next((n for n, f in enumerate(ideal) if f >= at * rate - 0.5), len(ideal) - 1)
    frame = sent_frames[index] if sent_frames[index] is not None else round(ideal[index])
    events.append((frame, 0, data))
    mark_lines.append((index, data.hex(" ")))
for per_second, begin, end in floods:
    count = int((end - begin) * per_second)
    events += [(round((begin + n / per_second) * rate), 2, b"\xf8") for n in range(count)]
events.sort(key=lambda event: (event[0], event[1]))
state = {"base": None, "next": 0}
sent = []


@client.set_process_callback
def process(frames):
    start = client.last_frame_time
    if state["base"] is None:
        state["base"] = start + rate
    midi_out.clear_buffer()
    while state["next"] < len(events):
        offset, _, data = events[state["next"]]
        at = state["base"] + offset
        if at >= start + frames:
            break
        midi_out.write_midi_event(max(0, at - start), data)
        sent.append((max(at, start), data.hex(" ")))
        state["next"] += 1


client.activate()
try:
    client.connect(midi_out, to_port)
except jack.JackError as error:
    print(f"jack_clock_sender: {error}", file=sys.stderr)
    sys.exit(1)
time.sleep(seconds + 1.2)
client.deactivate()
client.close()

base = state["base"]
print(f"base {base}")
lines = [(base + f, f"ideal {n} {base + f:.3f}") for n, f in enumerate(ideal)]
lines += [(f, f"sent {f} {text}") for f, text in sent]
for _, text in sorted(lines, key=lambda line: line[0]):
    print(text)
for index, text in mark_lines:
    print(f"mark {index} {text}")
