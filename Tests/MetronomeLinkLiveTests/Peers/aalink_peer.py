"""A Link peer for the tests from a second binding of Link (aalink, PyPI): joins at TEMPO (quantum 4), waits up to
3 s for a peer, then counts BEATS beats with `sync` (asyncio), sets NEW_TEMPO, and counts BEATS more. Prints:
    peers N          the peers it saw once it stopped waiting
    tempo T          the session's tempo then (rounded to 0.01)
    beats K in S     K beats counted in S seconds (rounded to 0.01), at the tempo it then had
    set T            it set the tempo to T
Usage: aalink_peer.py TEMPO BEATS NEW_TEMPO"""
import asyncio
import sys
import time

from aalink import Link


async def main():
    tempo, beats, new_tempo = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    link = Link(tempo, asyncio.get_running_loop())
    link.quantum = 4
    link.enabled = True
    deadline = time.monotonic() + 3
    while link.num_peers == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    print("peers", link.num_peers, flush=True)
    print("tempo", round(link.tempo, 2), flush=True)

    async def count():
        await link.sync(1)
        start = time.monotonic()
        for _ in range(beats):
            await link.sync(1)
        print("beats", beats, "in", round(time.monotonic() - start, 2), flush=True)

    await count()
    link.tempo = new_tempo
    print("set", new_tempo, flush=True)
    await asyncio.sleep(1)
    await count()
    link.enabled = False


asyncio.run(main())
