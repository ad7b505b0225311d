"""Streams that never say Hello: what 3,000 of them from one peer cost a running `arena serve`.

    .venv/bin/python bench/hello_flood.py [--streams N] [--rounds R] [--smoke] [--json]

Starts `arena serve` (no bots) on a free loopback port in a process of its own, opens N streams
at once on one connection that never say Hello, R times, and prints the server's resident memory
before and after each round, and how the streams ended: refused at once by the referee
(RESOURCE_EXHAUSTED: more than 32 waiting from one peer) or by HTTP/2 (UNAVAILABLE: more than 256
streams on one connection), or timed out waiting (DEADLINE_EXCEEDED, after 10 s). With --smoke (the test
suite's run: its figures mean nothing) the client gives up on each stream after 1 s and pauses 0.1 s, not 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def resident_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024


async def flood(address: str, streams: int, deadline_s: float | None = None) -> Counter[str]:
    async with grpc.aio.insecure_channel(address) as channel:
        async def silent() -> str:
            call = channel.stream_stream("/arena.v1.Bot/Play")(timeout=deadline_s)
            try:
                await call.read()
            except grpc.aio.AioRpcError:
                pass
            return (await call.code()).name

        return Counter(await asyncio.gather(*(silent() for _ in range(streams))))


def start_referee(folder: str, tries: int = 3) -> tuple[subprocess.Popen, int]:
    """`arena serve` on a free port, once it listens (another port when the one picked was taken meanwhile, as on
    a busy machine running other servers); its process and port."""
    said: list[str] = []
    for _ in range(tries):
        port = free_port()
        server = subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "serve", "--port",
                                   str(port), "--bots", f"{folder}/bots", "--out", f"{folder}/results"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert server.stdout is not None
        said = []
        while line := server.stdout.readline():  # (the end of its output: it stopped without listening)
            said.append(line)
            if "listening" in line:
                return server, port
        server.wait()
    raise SystemExit(f"arena serve did not start ({tries} tries); it said: {''.join(said)[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--streams", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="give up on a stream after 1 s (the test suite's run)")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    deadline_s, pause_s = (1.0, 0.1) if arguments.smoke else (None, 1.0)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bots").mkdir()
        server, port = start_referee(folder)
        try:
            time.sleep(pause_s)
            figures: dict = {"streams": arguments.streams, "rss_mb_before": round(resident_mb(server.pid), 1),
                             "rounds": []}
            for _ in range(arguments.rounds):
                started = time.perf_counter()
                codes = asyncio.run(flood(f"127.0.0.1:{port}", arguments.streams, deadline_s))
                seconds = time.perf_counter() - started
                time.sleep(pause_s)
                figures["rounds"].append({"rss_mb_after": round(resident_mb(server.pid), 1), "seconds": round(seconds, 2),
                                          "codes": dict(codes)})
        finally:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    figures["rss_mb_growth"] = round(figures["rounds"][-1]["rss_mb_after"] - figures["rss_mb_before"], 1)
    if arguments.json:
        print(json.dumps(figures))
        return 0
    print(f"$ bench/hello_flood.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"server RSS before: {figures['rss_mb_before']} MB")
    for number, entry in enumerate(figures["rounds"], 1):
        print(f"after round {number} ({arguments.streams} silent streams, {entry['seconds']} s): "
              f"{entry['rss_mb_after']} MB  {entry['codes']}")
    print(f"growth over {arguments.rounds} rounds: {figures['rss_mb_growth']:+.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
