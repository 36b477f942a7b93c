"""A Link peer for the tests (linkpython-extern, PyPI module `link`): joins at TEMPO, then, every WAIT seconds, sets
the next of NEW_TEMPOS (comma-separated) from the session's next beat, and stays STAY seconds more. Prints one line
per event on stdout:
    ready                          Link is enabled
    peers N                        the peers it saw at the end of the first wait
    changed BEAT                   a tempo was committed from BEAT (quantum 4)
    tempo T                        the session's tempo at the end (rounded to 0.01)
SIGINT (a test done with it) ends the wait under way at once; no later tempo is set, and the lines left are printed.
Usage: tempo_peer.py TEMPO WAIT NEW_TEMPOS STAY   (NEW_TEMPOS 0: no change)"""
import math
import signal
import sys
import threading
import time

import link

tempo, wait = float(sys.argv[1]), float(sys.argv[2])
new_tempos = [float(value) for value in sys.argv[3].split(",") if float(value) > 0]
stay = float(sys.argv[4])
ended = threading.Event()
signal.signal(signal.SIGINT, lambda *_: ended.set())
peer = link.Link(tempo)
peer.enabled = True
print("ready", flush=True)
deadline = time.monotonic() + wait
while peer.numPeers() == 0 and time.monotonic() < deadline and not ended.is_set():
    time.sleep(0.001)
ended.wait(max(0.0, deadline - time.monotonic()))
print("peers", peer.numPeers(), flush=True)
for index, new_tempo in enumerate(new_tempos):
    if index > 0:
        ended.wait(wait)
    if ended.is_set():
        break
    state = peer.captureAppSessionState()
    beat = math.floor(state.beatAtTime(peer.clock().micros(), 4)) + 1
    state.setTempo(new_tempo, state.timeAtBeat(beat, 4))
    peer.commitAppSessionState(state)
    print("changed", beat, flush=True)
ended.wait(stay)
print("tempo", round(peer.captureAppSessionState().tempo(), 2), flush=True)
peer.enabled = False
