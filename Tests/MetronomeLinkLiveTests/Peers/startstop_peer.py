"""A Link peer with start/stop sync for the tests (linkpython-extern, PyPI module `link`). Founds the session at TEMPO
(quantum 4), then runs its steps in order:
    wait S     sleep S seconds
    start      start playing, beat 0 on the session's next quantum boundary (Link's quantized launch)
    stop       stop playing now
and prints on stdout, one line each: `ready`, `start` / `stop` when it did so, and `playing 1` / `playing 0` whenever
the session's playing state changes (its own changes and the peers'), polled every millisecond.
SIGINT (a test done with it) ends the wait under way and the steps left.
Usage: startstop_peer.py TEMPO STEP…"""
import signal
import sys
import time

import link

tempo = float(sys.argv[1])
steps = sys.argv[2:]
ended = False


def interrupted(*_):
    # Only a flag: a handler that took a lock (an Event's set) could find the main thread holding it.
    global ended
    ended = True


signal.signal(signal.SIGINT, interrupted)
peer = link.Link(tempo)
peer.startStopSyncEnabled = True
peer.enabled = True
print("ready", flush=True)
playing = peer.captureAppSessionState().isPlaying()


def watch(seconds):
    global playing
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not ended:
        now = peer.captureAppSessionState().isPlaying()
        if now != playing:
            playing = now
            print("playing", int(now), flush=True)
        time.sleep(0.001)


index = 0
while index < len(steps) and not ended:
    step = steps[index]
    if step == "wait":
        watch(float(steps[index + 1]))
        index += 2
        continue
    state = peer.captureAppSessionState()
    if step == "start":
        state.setIsPlayingAndRequestBeatAtTime(True, peer.clock().micros(), 0.0, 4.0)
    elif step == "stop":
        state.setIsPlaying(False, peer.clock().micros())
    else:
        raise SystemExit(f"unknown step {step}")
    peer.commitAppSessionState(state)
    print(step, flush=True)
    index += 1
peer.enabled = False
