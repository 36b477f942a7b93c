"""Switches a set from the keys or over OSC while recording it through JACK (Benchmarks/setlist-switch).

Usage: setlist-press.py keys|osc SERVER BINARY SETLIST PRESSES

Starts BINARY (`play SETLIST` in a pseudo-terminal for the keys, `serve SETLIST --osc 127.0.0.1:PORT` for OSC) on the
JACK server SERVER with --driver jack --no-connect --midi-notes, has its metronome:out_1 and metronome:midi_out
recorded on the server's frame clock by Tests/MetronomeJackLiveTests/Peers/jack_recorder.py in a process of its own
(a Python process callback beside the presses made the server's cycles late at period 64), and from 2.5 s after the
recorder starts presses PRESSES times, 3.1 s apart: `n` or /metronome/setlist/next (to song 2),
then `b` or /metronome/setlist/previous (to song 1), alternating. A press's frame is the server's frame clock read
just before the byte is written or the datagram sent (`frame_time` of a client with no process callback: the current
frame as JACK's clock estimates it, within a period).

Prints "sent FRAME SOURCE TARGET" for each press (TARGET 01 for song 2, 00 for song 1, as a Program Change would
say), then the recorder's lines: "audio FRAME" for each onset and "midi FRAME HEX…" for each MIDI message.
Exits 1 with a line on stderr (and the metronome's own last line, serving) when its ports do not appear in 10 s. The
metronome is stopped (SIGINT, then SIGKILL after 5 s) however this script ends.
"""
import os
import pty
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import jack
from pythonosc.udp_client import SimpleUDPClient

source, server, binary, setlist, presses = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
peers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "MetronomeJackLiveTests", "Peers")
environment = dict(os.environ, JACK_DEFAULT_SERVER=server)
common = ["--driver", "jack", "--no-connect", "--midi-notes"]

if source == "keys":
    pid, terminal = pty.fork()
    if pid == 0:
        os.execve(binary, [binary, "play", setlist] + common, environment)

    def drain():
        # The status line is written to the terminal all along: read it so the writer never blocks.
        while True:
            try:
                if not os.read(terminal, 4096):
                    return
            except OSError:
                return

    threading.Thread(target=drain, daemon=True).start()

    def press(forward):
        os.write(terminal, b"n" if forward else b"b")

    def stop():
        os.kill(pid, signal.SIGINT)
        for _ in range(50):
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

    def said():
        return ""
else:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    errors = tempfile.TemporaryFile(mode="w+")
    service = subprocess.Popen(
        [binary, "serve", setlist, "--osc", f"127.0.0.1:{port}", "--quiet"] + common,
        env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
    osc = SimpleUDPClient("127.0.0.1", port)

    def press(forward):
        osc.send_message("/metronome/setlist/next" if forward else "/metronome/setlist/previous", [])

    def stop():
        if service.poll() is not None:
            return
        service.send_signal(signal.SIGINT)
        try:
            service.wait(timeout=5)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()

    def said():
        errors.seek(0)
        lines = errors.read().strip().splitlines()
        return f" (serve: {lines[-1]})" if lines else ""

sent = []
recorded = ""
try:
    # A client of its own for the frame clock only: no process callback, so no Python runs in the server's cycle.
    # The recording is made by jack_recorder.py in a process of its own, as for the Program Changes.
    client = jack.Client("presser", servername=server, no_start_server=True)
    # Never activated: it takes no part in the server's cycles.
    deadline = time.monotonic() + 10
    while not (client.get_ports("metronome:out_1") and client.get_ports("metronome:midi_out")):
        if time.monotonic() > deadline:
            print(f"setlist-press: no metronome:out_1 and metronome:midi_out after 10 s{said()}", file=sys.stderr)
            sys.exit(1)
        time.sleep(0.05)
    recorder = subprocess.Popen(
        [sys.executable, peers + "/jack_recorder.py", server, "metronome:out_1", "metronome:midi_out",
         str(2.5 + presses * 3.1 + 3.1)],
        stdout=subprocess.PIPE, text=True)
    begin = time.monotonic() + 2.5
    for index in range(presses):
        time.sleep(max(0, begin + index * 3.1 - time.monotonic()))
        forward = index % 2 == 0
        sent.append((client.frame_time, "01" if forward else "00"))
        press(forward)
    recorded, _ = recorder.communicate()

    client.close()
finally:
    stop()

for frame, target in sent:
    print(f"sent {frame} {source} {target}")
print(recorded, end="")
