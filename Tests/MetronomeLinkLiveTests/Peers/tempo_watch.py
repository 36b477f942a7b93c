"""A Link peer that watches the session's tempo (linkpython-extern, PyPI module `link`): founds the session at TEMPO
(or joins one), and for SECONDS, or until SIGINT, prints, one line each,
    ready          Link is enabled
    tempo T        the session's tempo changed to T (rounded to 0.01), polled every millisecond
It never changes the tempo itself.
Usage: tempo_watch.py TEMPO SECONDS"""
import sys
import time

import link

tempo, seconds = float(sys.argv[1]), float(sys.argv[2])
peer = link.Link(tempo)
peer.enabled = True
print("ready", flush=True)
seen = round(peer.captureAppSessionState().tempo(), 2)
deadline = time.monotonic() + seconds
try:
    while time.monotonic() < deadline:
        now = round(peer.captureAppSessionState().tempo(), 2)
        if now != seen:
            seen = now
            print("tempo", now, flush=True)
        time.sleep(0.001)
except KeyboardInterrupt:
    pass  # the test's end, sooner than SECONDS
peer.enabled = False
