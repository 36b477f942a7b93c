"""Sends OSC messages to a `metronome serve` and prints its state (python-osc). Each argument is a step:
    ADDRESS[:TYPE:VALUE]   send one message (TYPE i, f or s), e.g. /metronome/link:i:1
    wait:S                 sleep S seconds
    state                  send /metronome/query and print, from the /metronome/state reply, the pairs named link,
                           peers, quantum, tempo (rounded to 0.1) and error
    playing                the same, printing the pair named playing
    ready                  send /metronome/query every 0.2 s until the state comes back (at most 10 s), printing
                           nothing: the service is up
Usage: osc_state.py PORT STEP…"""
import socket
import sys
import time

from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

port = int(sys.argv[1])
client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
client.bind(("127.0.0.1", 0))
client.settimeout(2)


def wait_for_service():
    query = OscMessageBuilder(address="/metronome/query").build().dgram
    client.settimeout(0.2)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        client.sendto(query, ("127.0.0.1", port))
        try:
            while OscMessage(client.recvfrom(65536)[0]).address != "/metronome/state":
                pass
            client.settimeout(2)
            return
        except (socket.timeout, ConnectionRefusedError):
            continue
    raise SystemExit("the service did not answer within 10 s")


for step in sys.argv[2:]:
    if step.startswith("wait:"):
        time.sleep(float(step[5:]))
        continue
    if step == "ready":
        wait_for_service()
        continue
    asking = step in ("state", "playing")
    address, *rest = (step if not asking else "/metronome/query").split(":")
    builder = OscMessageBuilder(address=address)
    if rest:
        kind, value = rest
        builder.add_arg({"i": int, "f": float, "s": str}[kind](value), kind)
    client.sendto(builder.build().dgram, ("127.0.0.1", port))
    if asking:
        while True:
            reply = OscMessage(client.recvfrom(65536)[0])
            if reply.address == "/metronome/state":
                break
        pairs = dict(zip(reply.params[::2], reply.params[1::2]))
        pairs["tempo"] = round(pairs["tempo"], 1)
        keys = ["playing"] if step == "playing" else ["link", "peers", "quantum", "tempo", "error"]
        print(" ".join(f"{key}={pairs[key]}" for key in keys), flush=True)
