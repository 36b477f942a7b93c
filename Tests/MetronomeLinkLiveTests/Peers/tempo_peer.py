"""A Link peer for the tests (linkpython-extern, PyPI module `link`): joins at TEMPO, waits, then sets NEW_TEMPO
from the session's next beat, and stays in the session. Prints one line per event on stdout:
    ready                          Link is enabled
    peers N                        when it sees N other peers (first time)
    changed BEAT                   the tempo was committed from BEAT (quantum 4)
Usage: tempo_peer.py TEMPO WAIT NEW_TEMPO STAY   (seconds for WAIT and STAY; NEW_TEMPO 0: no change)"""
import math
import sys
import time

import link

tempo, wait, new_tempo, stay = (float(argument) for argument in sys.argv[1:5])
peer = link.Link(tempo)
peer.enabled = True
print("ready", flush=True)
deadline = time.monotonic() + wait
while peer.numPeers() == 0 and time.monotonic() < deadline:
    time.sleep(0.001)
print("peers", peer.numPeers(), flush=True)
time.sleep(max(0.0, deadline - time.monotonic()))
if new_tempo > 0:
    state = peer.captureAppSessionState()
    now = peer.clock().micros()
    beat = math.floor(state.beatAtTime(now, 4)) + 1
    state.setTempo(new_tempo, state.timeAtBeat(beat, 4))
    peer.commitAppSessionState(state)
    print("changed", beat, flush=True)
time.sleep(stay)
peer.enabled = False
