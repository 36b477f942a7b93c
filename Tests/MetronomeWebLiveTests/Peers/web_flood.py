"""A flood of hostile TCP connections for `metronome serve --http` on loopback, every one's outcome observed.

Usage: web_flood.py PORT [--limit 32] [--connections 1000] [--window 64] [--seed 23]

Connections are non-blocking, opened as fast as the service's accept queue takes them: at most WINDOW open at once
(the service's listen backlog; beyond it the kernel drops handshakes, with SYN cookies silently, and a client that
sends nothing would wait forever on a connection the service never saw). Phases:
  pages   LIMIT WebSockets (good upgrades), held open: the service is then full.
  full    CONNECTIONS/2 - LIMIT connections while it is full, of every kind, those that send nothing, reset at once
          or send a partial head and a FIN included: the service must close each with nothing sent.
  release the pages end, each its own way: a bad frame (unmasked, reserved bits, an unknown opcode, a fragmented or
          long ping, a continuation first, one frame or fragments over 4096 bytes, text that is not UTF-8), a binary
          frame, refused commands, a ping, a close, a reset, a bare FIN.
  mixed   the rest of CONNECTIONS, up to 2 x WINDOW open at once, of the kinds whose outcome the client can see:
          garbage, oversize heads, too many headers, bad upgrades, refused methods, paths and hosts, pages (read to
          the end, reset after the first bytes, or — one in four — a head held open 0.3 to 1 s before it is
          finished) and good upgrades followed by a bad frame, refused commands, a ping, a close, a reset or a FIN.
          The holders fill the service, so the others are answered or refused at the limit.
  single  each of those kinds once, one connection at a time.
Then the page, as a browser asks for it (urllib).

Prints one JSON object: {"connections": [...], "seconds": {phase: wall-clock seconds}, "started": T0, "finished": T1,
"page": {"status", "bytes", "title"}}, T0 and T1 on CLOCK_MONOTONIC (time.monotonic), and per connection its phase,
kind, the status of the response (null: none), the code of the server's WebSocket close frame (null: none), the
"refused" messages and pongs it got and the bytes the server sent. The Swift test (WebFloodLiveTests) and
Benchmarks/web-flood judge them; nothing here decides what is right.
"""
import argparse
import errno
import json
import os
import random
import selectors
import socket
import struct
import time
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("--limit", type=int, default=32)
parser.add_argument("--connections", type=int, default=1000)
parser.add_argument("--window", type=int, default=64)
parser.add_argument("--seed", type=int, default=23)
arguments = parser.parse_args()
PORT = arguments.port
WINDOW = arguments.window
HOST = f"127.0.0.1:{PORT}".encode()
rng = random.Random(arguments.seed)


def request(line, headers=(), body=b""):
    return line + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


def upgrade(path=b"/ws", key=b"dGhlIHNhbXBsZSBub25jZQ==", version=b"13", origin=None, connection=b"Upgrade"):
    headers = [b"Host: " + HOST, b"Upgrade: websocket"]
    if connection:
        headers.append(b"Connection: " + connection)
    if key:
        headers.append(b"Sec-WebSocket-Key: " + key)
    headers.append(b"Sec-WebSocket-Version: " + version)
    headers.append(b"Origin: " + (origin or b"http://" + HOST))
    return request(b"GET " + path + b" HTTP/1.1", headers)


def frame(opcode, payload, fin=True, masked=True, rsv=0):
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    bit = 0x80 if masked else 0
    if len(payload) < 126:
        head += bytes([bit | len(payload)])
    elif len(payload) < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", len(payload))
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", len(payload))
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def text(message, **options):
    return frame(1, message.encode() if isinstance(message, str) else message, **options)


PAGE = request(b"GET / HTTP/1.1", [b"Host: " + HOST])

# What each kind sends (after the connection is made), as plain HTTP. Pages and upgrades add their own steps.
HTTP = {
    "garbage": lambda: b"\x01" + bytes(rng.randrange(32, 127) for _ in range(rng.randrange(10, 200))) + b"\r\n\r\n",
    "oversize-head": lambda: request(b"GET / HTTP/1.1", [b"Host: " + HOST, b"X-Padding: " + b"a" * 9000]),
    "many-headers": lambda: request(b"GET / HTTP/1.1", [b"Host: " + HOST] + [b"X-%d: 1" % i for i in range(120)]),
    "post": lambda: request(b"POST / HTTP/1.1", [b"Host: " + HOST, b"Content-Length: 5"], b"hello"),
    "not-found": lambda: request(b"GET /admin HTTP/1.1", [b"Host: " + HOST]),
    "no-host": lambda: request(b"GET / HTTP/1.1"),
    "rebinding-host": lambda: request(b"GET / HTTP/1.1", [b"Host: attacker.example"]),
    "upgrade-no-key": lambda: upgrade(key=None),
    "upgrade-bad-version": lambda: upgrade(version=b"12"),
    "upgrade-foreign-origin": lambda: upgrade(origin=b"http://attacker.example"),
    "upgrade-no-connection": lambda: upgrade(connection=None),
}
# A WebSocket's bad frame (or other ending) after a good upgrade.
FRAMES = {
    "ws-unmasked": lambda: text("/metronome/play", masked=False),
    "ws-reserved-bits": lambda: text("/metronome/play", rsv=4),
    "ws-opcode-3": lambda: frame(3, b"x"),
    "ws-fragmented-ping": lambda: frame(9, b"x", fin=False),
    "ws-long-ping": lambda: frame(9, b"p" * 200),
    "ws-continuation-first": lambda: frame(0, b"abc"),
    "ws-oversize": lambda: text("x" * 5000),
    "ws-fragments-too-large": lambda: text("a" * 3000, fin=False) + frame(0, b"b" * 3000),
    "ws-not-utf8": lambda: text(b"/metronome/sound\ts\t\xff\xfe"),
    "ws-binary": lambda: frame(2, b"\x01\x02\x03"),
    "ws-refused-commands": lambda: text("/metronome/quit") + text("/metronome/tempo\tf\t0") + frame(8, b"\x03\xe8"),
    "ws-ping": lambda: frame(9, b"are you there") + frame(8, b"\x03\xe8"),
    "ws-close": lambda: frame(8, b"\x03\xe8"),
    "ws-reset": lambda: b"",
    "ws-fin": lambda: b"",
}
# Kinds only the phase at the limit sends: their outcome, when taken, is not visible to the client.
BLIND = ["nothing", "reset-at-once", "partial-head-then-fin"]
PAGES = ["page", "page-reset", "page-held"]


class Connection:
    def __init__(self, phase, kind, index, hold=False):
        self.phase, self.kind, self.index = phase, kind, index
        self.hold = hold  # a page waits for its release to send its frames
        self.received = bytearray()
        self.total = 0
        self.half_closed = False
        self.status = None
        self.close_code = None
        self.refusals = 0
        self.pongs = 0
        self.done = False
        self.sent_frames = False
        self.later = None  # (time, bytes) to send later
        self.socket = None
        self.selector = None  # the one watching it, told before the socket closes (its number is then reused)
        self.connected = False
        self.outbox = bytearray()

    def start(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setblocking(False)
        result = self.socket.connect_ex(("127.0.0.1", PORT))
        if result not in (0, errno.EINPROGRESS):
            raise SystemExit(f"web_flood: connect: {os.strerror(result)}")

    def first_bytes(self):
        kind = self.kind
        if kind in HTTP:
            return HTTP[kind]()
        if kind in ("page", "page-reset"):
            return PAGE
        if kind == "page-held":
            self.later = (time.monotonic() + rng.uniform(0.3, 1.0), PAGE[20:])
            return PAGE[:20]
        if kind in FRAMES:
            return upgrade()
        if kind == "partial-head-then-fin":
            return PAGE[:10]
        return b""

    def on_connected(self):
        self.connected = True
        if self.kind == "reset-at-once":
            return self.finish(reset=True)
        self.outbox += self.first_bytes()

    def flush(self):
        while self.outbox and not self.done:
            try:
                count = self.socket.send(self.outbox, socket.MSG_NOSIGNAL)
            except BlockingIOError:
                return
            except (BrokenPipeError, ConnectionResetError):
                self.outbox.clear()
                return
            del self.outbox[:count]
        if self.kind == "partial-head-then-fin" and not self.outbox and not self.done and not self.half_closed:
            self.half_closed = True
            self.shutdown()

    def on_readable(self):
        while not self.done:
            try:
                data = self.socket.recv(65536)
            except BlockingIOError:
                return
            except ConnectionResetError:
                return self.finish()
            if not data:
                return self.finish()
            self.total += len(data)
            self.received += data
            self.look()

    def look(self):
        """Reads what came so far: a status, and after a 101 the server's frames; sends a WebSocket's frames once."""
        if self.status is None:
            end = self.received.find(b"\r\n\r\n")
            if end < 0:
                if self.kind == "page-reset" and len(self.received) >= 12:
                    self.status = int(self.received[9:12])
                    return self.finish(reset=True)
                return
            self.status = int(self.received[9:12])
            if self.status == 101:
                del self.received[: end + 4]
            elif self.kind == "page-reset":
                return self.finish(reset=True)
        if self.status != 101:
            return
        if not self.sent_frames and not self.hold and self.kind in FRAMES:
            self.sent_frames = True
            if self.kind == "ws-reset":
                return self.finish(reset=True)
            if self.kind == "ws-fin":
                self.shutdown()
            self.outbox += FRAMES[self.kind]()
            self.flush()
        while len(self.received) >= 2:
            length = self.received[1] & 0x7F
            start = 2
            if length == 126:
                if len(self.received) < 4:
                    return
                length, start = struct.unpack(">H", self.received[2:4])[0], 4
            elif length == 127:
                if len(self.received) < 10:
                    return
                length, start = struct.unpack(">Q", self.received[2:10])[0], 10
            if len(self.received) < start + length:
                return
            opcode = self.received[0] & 0x0F
            payload = bytes(self.received[start : start + length])
            del self.received[: start + length]
            if opcode == 8:
                self.close_code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 0
            elif opcode == 10:
                self.pongs += 1
            elif opcode == 1 and payload.startswith(b'{"type":"refused"'):
                self.refusals += 1

    def shutdown(self):
        """Half-closes (a FIN): the server may have closed first."""
        try:
            self.socket.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def finish(self, reset=False):
        if self.done:
            return
        self.done = True
        self.reset = reset
        if reset:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        if self.selector:
            self.selector.unregister(self.socket)
            self.selector = None
        self.socket.close()

    def report(self):
        return {
            "phase": self.phase,
            "kind": self.kind,
            "status": self.status,
            "close": self.close_code,
            "refusals": self.refusals,
            "pongs": self.pongs,
            "bytes": self.total,
        }


def run(connections, until=None, timeout=30, window=None):
    """Drives connections until every one is done (or `until()` holds), at most `window` open at a time (WINDOW
    unless given); returns the seconds it took."""
    window = window or WINDOW
    start = time.monotonic()
    selector = selectors.DefaultSelector()
    waiting = [c for c in connections if c.socket is None]
    waiting.reverse()
    live = set()

    def admit(connection):
        if connection.socket is None:
            connection.start()
        selector.register(connection.socket, selectors.EVENT_READ | selectors.EVENT_WRITE, connection)
        connection.selector = selector
        live.add(connection)

    for connection in connections:
        if connection.socket is not None and not connection.done:
            admit(connection)
    while waiting and len(live) < window:
        admit(waiting.pop())
    while (live or waiting) and not (until and until()):
        if time.monotonic() - start > timeout:
            raise SystemExit(f"web_flood: {len(live)} connections still open after {timeout} s: "
                             + ", ".join(sorted({c.kind for c in live})))
        for key, events in selector.select(0.05):
            connection = key.data
            if connection.done:
                continue
            if events & selectors.EVENT_WRITE and not connection.connected:
                error = connection.socket.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if error:
                    raise SystemExit(f"web_flood: connect: {os.strerror(error)}")
                connection.on_connected()
            if not connection.done and connection.connected:
                connection.flush()
                if not connection.outbox and not connection.done:
                    selector.modify(connection.socket, selectors.EVENT_READ, connection)
            if events & selectors.EVENT_READ and not connection.done:
                connection.on_readable()
        now = time.monotonic()
        for connection in list(live):
            if connection.done:
                live.discard(connection)
                if waiting:
                    admit(waiting.pop())
            elif connection.later and connection.later[0] <= now:
                connection.outbox += connection.later[1]
                connection.later = None
                connection.flush()
                if connection.outbox:
                    selector.modify(connection.socket, selectors.EVENT_READ | selectors.EVENT_WRITE, connection)
    for connection in live:
        selector.unregister(connection.socket)
        connection.selector = None
    return time.monotonic() - start


seconds = {}
started = time.monotonic()
# The server full: LIMIT pages, each upgraded (its 101 read) before the next phase.
pages = [Connection("pages", list(FRAMES)[i % len(FRAMES)], i, hold=True) for i in range(arguments.limit)]
seconds["pages"] = run(pages, until=lambda: all(p.status == 101 for p in pages))
if not all(p.status == 101 for p in pages):
    raise SystemExit("web_flood: a page was not upgraded: " + str([p.report() for p in pages]))
# At the limit: every kind, blind ones too.
kinds = list(HTTP) + PAGES + list(FRAMES) + BLIND
full_count = arguments.connections // 2 - arguments.limit
full = [Connection("full", kinds[i % len(kinds)], i) for i in range(full_count)]
seconds["full"] = run(full)
# The pages end, each by its kind (their frames go out now).
for page in pages:
    page.hold = False
    page.look()
seconds["release"] = run(pages)
# Mixed: what the client can tell, up to 2 x WINDOW at once (none of them is silent: a handshake the kernel drops is
# sent again).
told = list(HTTP) + PAGES + list(FRAMES)
count = arguments.connections - len(pages) - len(full)
mixed = [Connection("mixed", "page-held" if i % 4 == 0 else told[i % len(told)], i) for i in range(count)]
rng.shuffle(mixed)
seconds["mixed"] = run(mixed, window=2 * WINDOW)
ended = time.monotonic()
time.sleep(0.2)
# One at a time.
single = []
for kind in told:
    connection = Connection("single", kind, len(single))
    run([connection])
    single.append(connection)
finished = time.monotonic()
seconds["single"] = finished - ended
# Afterwards, a page as a browser asks for it.
with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/", timeout=5) as response:
    body = response.read()
    page = {"status": response.status, "bytes": len(body), "title": b"<title>Metronome</title>" in body}
everything = pages + full + mixed + single
print(json.dumps({
    "connections": [c.report() for c in everything],
    "seconds": seconds,
    "started": started,
    "finished": finished,
    "page": page,
}))
