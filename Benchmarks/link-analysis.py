"""Figures from the Link benchmark's recordings and logs (Benchmarks/link). Usage:
    link-analysis.py pair RECORDING.wav BEEP.wav    B's clicks against A's: error in µs, median, p99, max
    link-analysis.py beats BEAT_TIMES.txt           beat_times.py's output: error in µs, and the change's latency
Prints one Markdown table row's cells, separated by ' | '."""
import struct
import sys

import numpy


def read_wav(path):
    data = open(path, "rb").read()
    position, channels, body = 12, 1, b""
    while position < len(data):
        chunk, size = data[position:position + 4], struct.unpack("<I", data[position + 4:position + 8])[0]
        if chunk == b"fmt ":
            channels = struct.unpack("<H", data[position + 10:position + 12])[0]
        if chunk == b"data":
            body = data[position + 8:] if size in (0, 0xFFFFFFFF) else data[position + 8:position + 8 + size]
            break
        position += 8 + size + (size & 1)
    body = body[:len(body) // (4 * channels) * 4 * channels]
    return numpy.frombuffer(body, dtype="<f4").reshape(-1, channels)[:, 0]


def onsets(samples, gap=1000):
    loud = numpy.flatnonzero(samples != 0)
    if len(loud) == 0:
        return []
    starts = [loud[0]] + [b for a, b in zip(loud[:-1], loud[1:]) if b - a > gap]
    return [int(s) for s in starts]


def stats(values):
    values = numpy.abs(numpy.array(values, dtype=float))
    return numpy.median(values), numpy.percentile(values, 99), values.max()


if sys.argv[1] == "pair":
    samples, beep = read_wav(sys.argv[2]), read_wav(sys.argv[3])
    beep_start = beep[onsets(beep)[0]:][:32]
    a_clicks, errors = [], []
    for onset in onsets(samples):
        if numpy.array_equal(samples[onset:onset + 32], beep_start):
            if a_clicks:
                errors.append((onset - a_clicks[-1] - 24000) / 48000 * 1e6)
        else:
            a_clicks.append(onset)
    median, p99, worst = stats(errors)
    print(f"{len(errors)} | {median:.0f} | {p99:.0f} | {worst:.0f}")
elif sys.argv[1] == "beats":
    errors, change, change_micros, first_new = [], None, None, None
    for line in open(sys.argv[2]):
        words = line.split()
        if words[0] == "tempo_change":
            change, change_micros = int(words[1]), float(words[2])
        elif words[0] == "beat":
            errors.append(float(words[3]))
            if change is not None and first_new is None and int(words[2]) == change + 1:
                first_new = float(words[4])
    median, p99, worst = stats(errors)
    latency = (first_new - change_micros) / 1000 if first_new is not None else float("nan")
    print(f"{len(errors)} | {median:.0f} | {p99:.0f} | {worst:.0f} | {latency:.0f}")
