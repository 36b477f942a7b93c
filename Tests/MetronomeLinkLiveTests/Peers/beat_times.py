"""A Link peer that is also a beat subscriber of `metronome serve` (linkpython-extern and python-osc): it founds the
session at TEMPO (quantum QUANTUM), waits WAIT seconds (the test starts `serve --link` meanwhile), subscribes to
/metronome/beat on 127.0.0.1:PORT, and for SECONDS compares each beat's
time tag (the instant the beat is heard, as NTP time) with the Link session's time for the nearest session beat.
At CHANGE_AT seconds it sets NEW_TEMPO from the session's next beat. Prints one line per beat,
    beat BAR.BEAT SESSION_BEAT ERROR_US LINK_MICROS
(ERROR_US: the time tag minus the session's time for SESSION_BEAT, in microseconds; LINK_MICROS: the time tag on
Link's clock), then, when it changes the tempo,
    tempo_change BEAT LINK_MICROS        (the beat it applies from, and when it was committed)
and at the end
    beats N max_error_us E after_change M
(CHANGE_AT counts from the subscription.) Sends /metronome/quit at the end.
Usage: beat_times.py PORT WAIT SECONDS TEMPO CHANGE_AT NEW_TEMPO [QUANTUM]   (QUANTUM: the peer's, default 4)"""
import math
import socket
import struct
import sys
import time

import link
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

port, wait, seconds, tempo, change_at, new_tempo = int(sys.argv[1]), *map(float, sys.argv[2:7])
quantum = float(sys.argv[7]) if len(sys.argv) > 7 else 4.0
NTP_TO_UNIX = 2208988800
peer = link.Link(tempo)
peer.enabled = True
print("ready", flush=True)
time.sleep(wait)
socket_ = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
socket_.bind(("127.0.0.1", 0))
socket_.settimeout(0.05)
socket_.sendto(OscMessageBuilder(address="/metronome/subscribe").build().dgram, ("127.0.0.1", port))


def link_micros_of_unix(unix_seconds):
    """Link's clock (CLOCK_MONOTONIC_RAW, microseconds) at a Unix instant, through both clocks read now."""
    before = time.clock_gettime(time.CLOCK_REALTIME)
    raw = time.clock_gettime(time.CLOCK_MONOTONIC_RAW)
    after = time.clock_gettime(time.CLOCK_REALTIME)
    return (unix_seconds - (before + after) / 2 + raw) * 1e6


start = time.monotonic()
changed = None
worst = 0.0
count = 0
after_change = 0
while time.monotonic() - start < seconds:
    if changed is None and time.monotonic() - start >= change_at:
        state = peer.captureAppSessionState()
        changed = math.floor(state.beatAtTime(peer.clock().micros(), quantum)) + 1
        change_micros = state.timeAtBeat(changed, quantum)
        # The timeline before the change: a beat heard before it is measured against it. (The session's new timeline
        # keeps beat CHANGED where it was and moves every beat before it: a tag for the last beat at the old tempo
        # that arrives after this commit would read a beat at the new tempo, 71 ms at 120 to 140, as our error.)
        before_change = peer.captureAppSessionState()
        state.setTempo(new_tempo, change_micros)
        peer.commitAppSessionState(state)
        print("tempo_change", changed, peer.clock().micros(), flush=True)
    try:
        data = socket_.recvfrom(65536)[0]
    except socket.timeout:
        continue
    message = OscMessage(data)
    if message.address != "/metronome/beat":
        continue
    bar, beat = message.params[0], message.params[1]
    # The time tag is the last argument: its 8 bytes end the datagram (NTP seconds, then the fraction).
    ntp_seconds, fraction = struct.unpack(">II", data[-8:])
    unix = ntp_seconds - NTP_TO_UNIX + fraction / 2**32
    micros = link_micros_of_unix(unix)
    state = peer.captureAppSessionState()
    if changed is not None and micros < change_micros:
        state = before_change
    session_beat = round(state.beatAtTime(int(micros), quantum))
    error = micros - state.timeAtBeat(session_beat, quantum)
    count += 1
    worst = max(worst, abs(error))
    if changed is not None and session_beat > changed:
        after_change += 1
    print("beat", f"{bar}.{beat}", session_beat, round(error), round(micros), flush=True)
socket_.sendto(OscMessageBuilder(address="/metronome/quit").build().dgram, ("127.0.0.1", port))
print("beats", count, "max_error_us", round(worst), "after_change", after_change, flush=True)
peer.enabled = False
