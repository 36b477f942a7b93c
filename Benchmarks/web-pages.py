"""Pages for the web remote's benchmark (Benchmarks/web): N WebSocket clients of `metronome serve --http` on loopback
that read every frame the service pushes (state and beats) for SECONDS, as the page's script does, without a browser.

Usage: web-pages.py PORT N SECONDS [COMMAND]
COMMAND (e.g. /metronome/play) is sent once by the first client, as the page sends a command: the address, then
tab-separated type tags and arguments. Prints "N pages: B beat messages and S state messages received".
"""
import base64
import os
import select
import socket
import struct
import sys
import time

port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
command = sys.argv[4] if len(sys.argv) > 4 else None


def open_page():
    page = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    page.sendall(
        (f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = page.recv(4096)
        if not chunk:
            sys.exit("web-pages: the server closed the connection during the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        sys.exit(f"web-pages: no upgrade: {head.splitlines()[0].decode()}")
    return page, bytearray(head.split(b"\r\n\r\n", 1)[1])


def send_text(page, text):
    data = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81]) + (bytes([0x80 | len(data)]) if len(data) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(data)))
    page.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def frames(buffer):
    """Takes the whole unmasked server frames off the buffer's front."""
    out = []
    while len(buffer) >= 2:
        length = buffer[1] & 0x7F
        start = 2
        if length == 126:
            if len(buffer) < 4:
                break
            length = struct.unpack(">H", buffer[2:4])[0]
            start = 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length = struct.unpack(">Q", buffer[2:10])[0]
            start = 10
        if len(buffer) < start + length:
            break
        out.append(bytes(buffer[start:start + length]))
        del buffer[:start + length]
    return out


pages = [open_page() for _ in range(count)]
if command:
    send_text(pages[0][0], command)
beats = states = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    ready, _, _ = select.select([page for page, _ in pages], [], [], 0.1)
    for page, buffer in pages:
        if page in ready:
            data = page.recv(65536)
            if not data:
                sys.exit("web-pages: the server closed a page")
            buffer += data
            for payload in frames(buffer):
                if payload.startswith(b'{"type":"beat"'):
                    beats += 1
                elif payload.startswith(b'{"type":"state"'):
                    states += 1
print(f"{count} pages: {beats} beat messages and {states} state messages received")
