"""The recorder and beat subscriber of Benchmarks/jack-beat-times (docs/benchmarks.md, "Beat host times through
JACK"): how far each `/metronome/beat` time tag of `metronome serve --driver jack` lies from the host time its click
is heard, as JACK's own clock says.

Usage: jack-beat-times.py SERVER OSC_PORT SECONDS [PORT]   (PORT: the port recorded, default metronome:out_1)

One JACK client (JACK-Client) records PORT; each process callback keeps its samples, `last_frame_time`, JACK's
`jack_frames_to_time` of the cycle's first frame and of the next cycle's, PORT's playback latency range as JACK
reports it (`jack_port_get_latency_range`), and `CLOCK_MONOTONIC_RAW − CLOCK_MONOTONIC` (JACK2's clock is
CLOCK_MONOTONIC_RAW in µs; the tightest of three back-to-back reads of MONOTONIC, RAW, MONOTONIC). A click is heard
at its onset (a non-zero sample after at least 100 zero ones, as Tests/MetronomeJackLiveTests/Peers/jack_recorder.py
finds them): the frames_to_time line through the cycle (frames_to_time's own formula, without its rounding to the
µs), plus the playback latency, turned into CLOCK_MONOTONIC.

Meanwhile it subscribes to `/metronome/beat` on 127.0.0.1:OSC_PORT, sends `/metronome/play` (serve runs with
--wait, so every beat from the first is recorded), keeps each beat's time tag (NTP time: the service adds
CLOCK_REALTIME − CLOCK_MONOTONIC to the host time; taken off again here, read the same tight way), and after SECONDS
sends `/metronome/quit`.

Each beat whose time tag lies inside the recording (from its first cycle to 0.1 s before its last) is paired with the
nearest onset within 50 ms; error = time tag − heard. Prints
    C cycles recorded, G gaps between them; CLOCK_REALTIME − CLOCK_MONOTONIC moved X µs over the run
    latency at the matched onsets: PORT's playback range [MIN, MAX] frames, the largest added; system:playback_1 …
    row BEATS | MISSING | EXTRA | MEDIAN | P99 | MAX | MEAN | MIN..MAX | LATE
(µs; median, p99 and max of |error|; the signed mean and range; LATE: the median time from a beat's heard time to
the arrival of its message, in ms: beats go out once heard); for every beat off by more than half a frame, its error
and how far its click lies from the beat grid of the first click; on stderr, every beat unmatched. Exits 0, or 1 with
one line when PORT or the service does not answer, or no beat or onset came.
"""
import ctypes
import socket
import struct
import sys
import time

import jack
import numpy
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

server, osc_port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
port_name = sys.argv[4] if len(sys.argv) > 4 else "metronome:out_1"
NTP_TO_UNIX = 2_208_988_800
PLAYBACK = 1  # JackPlaybackLatency (jack_latency_callback_mode_t)


class LatencyRange(ctypes.Structure):
    _fields_ = [("min", ctypes.c_uint32), ("max", ctypes.c_uint32)]


# JACK-Client does not bind these three; the same libjack, through ctypes.
libjack = ctypes.CDLL("libjack.so.0")
libjack.jack_frames_to_time.restype = ctypes.c_uint64
libjack.jack_frames_to_time.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
libjack.jack_port_get_latency_range.restype = None
libjack.jack_port_get_latency_range.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(LatencyRange)]


def pointer(cdata):
    return int(jack._ffi.cast("uintptr_t", cdata))


def clock_offset(reference):
    """CLOCK_X − CLOCK_MONOTONIC in ns from the tightest of three MONOTONIC, X, MONOTONIC reads."""
    best = None
    for _ in range(3):
        before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        other = time.clock_gettime_ns(reference)
        after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if best is None or after - before < best[0]:
            best = (after - before, other - (before + after) // 2)
    return best[1]


client = jack.Client("beattimes", servername=server, no_start_server=True)
inport = client.inports.register("in")
client_ptr = pointer(client._ptr)
latency = LatencyRange()  # the process callback's own
# Per cycle: last_frame_time, the µs of its first frame and of the next cycle's, the latency range's min and max,
# CLOCK_MONOTONIC_RAW − CLOCK_MONOTONIC in ns, the samples.
cycles = []
watched = None  # PORT's jack_port_t *, once connected


@client.set_process_callback
def process(frames):
    first = client.last_frame_time
    start = libjack.jack_frames_to_time(client_ptr, first)
    end = libjack.jack_frames_to_time(client_ptr, (first + frames) & 0xFFFFFFFF)
    low = high = -1
    if watched is not None:
        libjack.jack_port_get_latency_range(watched, PLAYBACK, ctypes.byref(latency))
        low, high = latency.min, latency.max
    cycles.append((first, start, end, low, high, clock_offset(time.CLOCK_MONOTONIC_RAW),
                   numpy.array(inport.get_array(), copy=True)))


client.activate()
sample_rate = client.samplerate
try:
    client.connect(port_name, inport)
    watched = pointer(client.get_port_by_name(port_name)._ptr)
except jack.JackError as error:
    print(f"jack-beat-times: {error}", file=sys.stderr)
    sys.exit(1)
system_ports = client.get_ports(is_physical=True, is_input=True, is_audio=True)
if system_ports:
    system_range = LatencyRange()
    libjack.jack_port_get_latency_range(pointer(system_ports[0]._ptr), PLAYBACK, ctypes.byref(system_range))
    system_latency = f"{system_ports[0].name}'s [{system_range.min}, {system_range.max}]"
else:
    system_latency = "no physical playback port"

osc = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
osc.bind(("127.0.0.1", 0))
osc.settimeout(0.05)
service = ("127.0.0.1", osc_port)


def ask(address, reply, tries=50):
    """Sends ADDRESS every 0.1 s until a message at REPLY comes back (the service may still be starting)."""
    for _ in range(tries):
        osc.sendto(OscMessageBuilder(address=address).build().dgram, service)
        end = time.monotonic() + 0.1
        while time.monotonic() < end:
            try:
                if OscMessage(osc.recv(65536)).address == reply:
                    return
            except (socket.timeout, ConnectionRefusedError):
                pass
    print(f"jack-beat-times: no {reply} from 127.0.0.1:{osc_port} in {tries / 10:g} s", file=sys.stderr)
    sys.exit(1)


ask("/metronome/query", "/metronome/state")
osc.sendto(OscMessageBuilder(address="/metronome/subscribe").build().dgram, service)
ask("/metronome/query", "/metronome/state")  # answered after the subscription: it is in before play
osc.sendto(OscMessageBuilder(address="/metronome/play").build().dgram, service)
beats = []  # (bar, beat, tempo, time tag as CLOCK_MONOTONIC ns, arrival CLOCK_MONOTONIC ns)
unix_offsets = []
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        data = osc.recv(65536)
    except socket.timeout:
        continue
    arrival = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    message = OscMessage(data)
    if message.address != "/metronome/beat":
        continue
    # The time tag is the last argument: its 8 bytes end the datagram (NTP seconds, then the fraction).
    ntp_seconds, fraction = struct.unpack(">II", data[-8:])
    if (ntp_seconds, fraction) == (0, 1):
        beats.append((*message.params[:3], None, arrival))
        continue
    unix_ns = (ntp_seconds - NTP_TO_UNIX) * 1_000_000_000 + ((fraction * 1_000_000_000 + (1 << 31)) >> 32)
    unix_offsets.append(clock_offset(time.CLOCK_REALTIME))
    beats.append((*message.params[:3], unix_ns - unix_offsets[-1], arrival))
client.deactivate()
client.close()
osc.sendto(OscMessageBuilder(address="/metronome/quit").build().dgram, service)

# Onsets on the recorder's frame clock (a non-zero sample more than 100 frames after the last non-zero one), and the
# host time each is heard at.
frames = numpy.concatenate([first + numpy.arange(len(samples), dtype=numpy.int64) for first, *_, samples in cycles])
cycle_of = numpy.concatenate([numpy.full(len(c[6]), i) for i, c in enumerate(cycles)])
loud = numpy.flatnonzero(numpy.concatenate([c[6] for c in cycles]) != 0)
starts = [index for n, index in enumerate(loud) if n == 0 or frames[index] - frames[loud[n - 1]] > 100]
after_gap = {b for b in range(1, len(cycles))
             if (cycles[b - 1][0] + len(cycles[b - 1][6])) & 0xFFFFFFFF != cycles[b][0]}
heard = []  # (frame, CLOCK_MONOTONIC ns, the playback latency added in frames, the first cycle after a gap)
for index in starts:
    first, start, end, low, high, raw_offset, samples = cycles[cycle_of[index]]
    offset = frames[index] - first
    rate = len(samples) / (end - start)  # frames a µs: JACK's estimate for this cycle
    heard.append((int(frames[index]), (start + offset / rate + high / rate) * 1000 - raw_offset, (low, high),
                  int(cycle_of[index]) in after_gap))
if not beats or not heard:
    print(f"jack-beat-times: {len(beats)} beats and {len(heard)} onsets received", file=sys.stderr)
    sys.exit(1)
moved = (max(unix_offsets) - min(unix_offsets)) / 1000 if unix_offsets else 0
print(f"{len(cycles)} cycles recorded, {len(after_gap)} gaps between them; "
      f"CLOCK_REALTIME − CLOCK_MONOTONIC moved {moved:.1f} µs over the run")

first_heard = (cycles[0][1] * 1000 - cycles[0][5])
last_heard = (cycles[-1][1] * 1000 - cycles[-1][5]) - 100_000_000
onset_times = numpy.array([onset[1] for onset in heard])
frame_micros = 1e6 / sample_rate
errors, late, used, outside, untagged = [], [], set(), 0, 0
for bar, beat, tempo, tag, arrival in beats:
    if tag is None:
        untagged += 1
        continue
    if not first_heard <= tag <= last_heard:
        outside += 1
        continue
    nearest = int(numpy.argmin(numpy.abs(onset_times - tag)))
    if abs(onset_times[nearest] - tag) > 50_000_000:
        print(f"beat {bar}.{beat}: no onset within 50 ms of its time tag", file=sys.stderr)
        continue
    used.add(nearest)
    errors.append((tag - onset_times[nearest]) / 1000)
    late.append((arrival - onset_times[nearest]) / 1e6)
    if abs(errors[-1]) > frame_micros / 2:
        # Where the click sits on the beat grid of the first click heard (the tempo is steady): off it, the click
        # itself moved (a late event is played at once); on it, the time tag is off.
        interval = 60 * sample_rate / tempo
        grid = heard[0][0] + round((heard[nearest][0] - heard[0][0]) / interval) * interval
        print(f"beat {bar}.{beat}: time tag − heard {errors[-1]:+.1f} µs ({errors[-1] / frame_micros:+.1f} frames); "
              f"its click at frame {heard[nearest][0]}, {heard[nearest][0] - grid:+.0f} frames off the beat grid of "
              f"the first click{'; the first cycle recorded after a gap' if heard[nearest][3] else ''}")
inside = [index for index, ns in enumerate(onset_times) if first_heard <= ns <= last_heard]
extra = len([index for index in inside if index not in used])
missing = len(beats) - untagged - outside - len(errors)
values = numpy.array(errors)
size = numpy.abs(values)
added = sorted({heard[index][2] for index in used})
print(f"latency at the matched onsets: {port_name}'s playback range "
      f"{', '.join(f'[{low}, {high}]' for low, high in added)} frames, the largest added; {system_latency}")
print(f"row {len(errors)} | {missing} | {extra} | {numpy.median(size):.1f} | {numpy.percentile(size, 99):.1f} | "
      f"{size.max():.1f} | {values.mean():+.1f} | {values.min():+.1f}..{values.max():+.1f} | "
      f"{numpy.median(late):+.1f}")
print(f"beats received {len(beats)}: untagged {untagged}, outside the recording {outside}")
