"""A JACK timebase master with a tempo and meter schedule, which also starts the transport and records one audio port
against it: what `--transport follow` must follow, in a single client.

Usage: jack_timebase_master.py SERVER AUDIO_PORT SECONDS SEGMENT…
A segment is FRAME:BPM:BEATS/TYPE, the first at frame 0: from that transport frame on, BPM beats of TYPE a minute,
BEATS to the bar. The beat count goes on across a change (a tempo change inside a beat keeps the phase); a meter
change is meant for a bar line. Ticks: 192 000 a beat (finer than a frame at any tempo here), whole ticks as JACK
gives them.

Starts the transport 0.5 s after the port is connected, stops it SECONDS later. Prints "audio TRANSPORT_FRAME" for
each onset while rolling (a non-zero sample after at least 100 silent ones, stamped with the cycle's transport frame
plus the offset in the period). Exits 0, or 1 with a line on stderr when the port does not exist or the timebase is
refused.
"""
import math
import sys
import time

import jack
import numpy

server, audio_port, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
segments = []
for text in sys.argv[4:]:
    frame, bpm, meter = text.split(":")
    beats, beat_type = meter.split("/")
    segments.append((int(frame), float(bpm), int(beats), int(beat_type)))
TICKS = 192000.0

client = jack.Client("timebase_master", servername=server, no_start_server=True)
rate = client.samplerate
audio_in = client.inports.register("audio_in")
chunks = []

# The bar (from 1) and the beats into it at each segment's first frame.
starts = []
bar, into = 1, 0.0
for index, (frame, bpm, beats, beat_type) in enumerate(segments):
    starts.append((bar, into))
    if index + 1 < len(segments):
        total = into + (segments[index + 1][0] - frame) * bpm / (60.0 * rate)
        bar += int(total // beats)
        into = total - (total // beats) * beats


def position(frame):
    index = max(i for i, segment in enumerate(segments) if segment[0] <= frame)
    start, bpm, beats, beat_type = segments[index]
    bar, into = starts[index]
    total = into + (frame - start) * bpm / (60.0 * rate)
    bars = math.floor(total / beats)
    in_bar = total - bars * beats
    beat = math.floor(in_bar)
    tick = min(int((in_bar - beat) * TICKS), int(TICKS) - 1)
    return bar + bars, beat + 1, tick, bpm, beats, beat_type


@client.set_timebase_callback
def timebase(state, blocksize, pos, new_pos):
    bar, beat, tick, bpm, beats, beat_type = position(pos.frame)
    pos.valid = pos.valid | jack.POSITION_BBT
    pos.bar, pos.beat, pos.tick = bar, beat, tick
    pos.bar_start_tick = 0.0
    pos.beats_per_bar, pos.beat_type = float(beats), float(beat_type)
    pos.ticks_per_beat, pos.beats_per_minute = TICKS, bpm


@client.set_process_callback
def process(frames):
    state, position_now = client.transport_query()
    if state == jack.ROLLING:
        chunks.append((position_now["frame"], numpy.array(audio_in.get_array(), copy=True)))


client.activate()
try:
    client.connect(audio_port, audio_in)
except jack.JackError as error:
    print(f"jack_timebase_master: {error}", file=sys.stderr)
    sys.exit(1)
time.sleep(0.5)
client.transport_start()
time.sleep(seconds)
client.transport_stop()
time.sleep(0.3)
client.deactivate()
client.close()

silent = 100
for frame, samples in chunks:
    for index, value in enumerate(samples):
        if value == 0:
            silent += 1
            continue
        if silent >= 100:
            print(f"audio {frame + index}")
        silent = 0
