"""A Link peer (linkpython-extern) that is also a JACK client (JACK-Client) with no ports: it joins the session and, for
SECONDS, every 50 ms prints where the session's timeline is and where the JACK server's frame clock is, both on Link's
clock, so that a beat sent on a JACK frame can be compared with the session's time for it:
    clock FRAME LINK_MICROS        (the server's current frame, jack_frame_time, read between two reads of Link's
                                    clock: LINK_MICROS their mean; WIDTH_US how far apart they were)
    timeline LINK_MICROS BEAT TEMPO (the session's beat at that instant for QUANTUM, and its tempo)
and at the end
    peers N
Usage: link_clock_watch.py SERVER SECONDS [QUANTUM]   (QUANTUM: the peer's, default 4)"""
import sys
import time

import jack
import link

server, seconds = sys.argv[1], float(sys.argv[2])
quantum = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
client = jack.Client("link_watch", servername=server, no_start_server=True)
client.activate()
peer = link.Link(100)
peer.enabled = True
print("ready", flush=True)
start = time.monotonic()
while time.monotonic() - start < seconds:
    before = peer.clock().micros()
    frame = client.frame_time
    after = peer.clock().micros()
    print("clock", frame, (before + after) // 2, after - before, flush=True)
    state = peer.captureAppSessionState()
    now = peer.clock().micros()
    print("timeline", now, repr(state.beatAtTime(now, quantum)), repr(state.tempo()), flush=True)
    time.sleep(0.05)
print("peers", peer.numPeers(), flush=True)
peer.enabled = False
client.deactivate()
client.close()
