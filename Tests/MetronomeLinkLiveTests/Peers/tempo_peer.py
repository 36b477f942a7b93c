"""A Link peer for the tests (linkpython-extern, PyPI module `link`): joins at TEMPO, then, every WAIT seconds, sets
the next of NEW_TEMPOS (comma-separated) from the session's next beat, and stays STAY seconds more. Prints one line
per event on stdout:
    ready                          Link is enabled
    peers N                        the peers it saw at the end of the first wait
    changed BEAT                   a tempo was committed from BEAT (quantum 4)
    tempo T                        the session's tempo at the end (rounded to 0.01)
SIGINT (a test done with it) ends the wait under way within 10 ms; no later tempo is set (no `changed` line for it),
and `peers` and `tempo` are printed as ever.
Usage: tempo_peer.py TEMPO WAIT NEW_TEMPOS STAY   (NEW_TEMPOS 0: no change)"""
import math
import signal
import sys
import time

import link

tempo, wait = float(sys.argv[1]), float(sys.argv[2])
new_tempos = [float(value) for value in sys.argv[3].split(",") if float(value) > 0]
stay = float(sys.argv[4])
ended = False


def interrupted(*_):
    # Only a flag: a handler that took a lock (an Event's set) could find the main thread holding it.
    global ended
    ended = True


def pause(seconds):
    """Sleeps `seconds`, or until SIGINT."""
    deadline = time.monotonic() + seconds
    while not ended and time.monotonic() < deadline:
        time.sleep(min(0.01, max(0.0, deadline - time.monotonic())))


signal.signal(signal.SIGINT, interrupted)
peer = link.Link(tempo)
peer.enabled = True
print("ready", flush=True)
deadline = time.monotonic() + wait
while peer.numPeers() == 0 and time.monotonic() < deadline and not ended:
    time.sleep(0.001)
pause(deadline - time.monotonic())
print("peers", peer.numPeers(), flush=True)
for index, new_tempo in enumerate(new_tempos):
    if index > 0:
        pause(wait)
    if ended:
        break
    state = peer.captureAppSessionState()
    beat = math.floor(state.beatAtTime(peer.clock().micros(), 4)) + 1
    state.setTempo(new_tempo, state.timeAtBeat(beat, 4))
    peer.commitAppSessionState(state)
    print("changed", beat, flush=True)
pause(stay)
print("tempo", round(peer.captureAppSessionState().tempo(), 2), flush=True)
peer.enabled = False
