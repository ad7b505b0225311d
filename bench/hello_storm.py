"""Hello storms from one address: what each Hello costs the referee's CPU (issue 46).

    .venv/bin/python bench/hello_storm.py [--hellos N] [--json]

Two storms, each on a fresh referee (no bots, a free loopback port) in this process, sent by a child process
from one address, 32 streams at a time on one channel (which reconnects when its connection is closed): N
Hellos with a wrong token (a guesser), then N with the right token that hang up at once (a bot reconnecting
in a loop). For each: the referee process's CPU time over the storm per Hello, and how the streams ended
(UNAUTHENTICATED: a token checked; RESOURCE_EXHAUSTED: refused as it opened, with the reason; UNAVAILABLE:
its connection closed, or refused at the gate).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.rpc.background import BackgroundReferee  # noqa: E402
from arena.rpc.server import ServerConfig  # noqa: E402

STORM = r'''
import asyncio, json, sys
import grpc
from arena.rpc.generated import bot_pb2

address, name, token, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


async def main() -> None:
    codes: dict[str, int] = {}
    async with grpc.aio.insecure_channel(address) as channel:
        at_once = asyncio.Semaphore(32)

        async def one() -> None:
            async with at_once:
                call = channel.stream_stream("/arena.v1.Bot/Play")()
                try:
                    await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name,
                                                                            token=token)).SerializeToString())
                    async with asyncio.timeout(0.2):
                        await call.read()
                except (TimeoutError, grpc.aio.AioRpcError):
                    pass
                call.cancel()
                code = (await call.code()).name
                codes[code] = codes.get(code, 0) + 1

        await asyncio.gather(*(one() for _ in range(count)))
    print(json.dumps(codes))


asyncio.run(main())
'''


def cpu_s() -> float:
    """This process's CPU time (the referee's threads; the storm runs in a child)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def storm(hellos: int, right_token: bool) -> dict[str, object]:
    with BackgroundReferee(ServerConfig(port=0, bot_dirs=(), results_dir=None), drain_s=0.0) as referee:
        token = referee.register_remote("far-bot")
        sent = token if right_token else "0" * 48
        before, started = cpu_s(), time.monotonic()
        done = subprocess.run([sys.executable, "-c", STORM, referee.address, "far-bot", sent, str(hellos)],
                              capture_output=True, text=True, timeout=600)
        spent, wall = cpu_s() - before, time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"the storm failed: {done.stderr[-2000:]}")
    return {"hellos": hellos, "wall_s": round(wall, 2), "referee_cpu_s": round(spent, 3),
            "referee_cpu_us_per_hello": round(1e6 * spent / hellos, 1), "codes": json.loads(done.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hellos", type=int, default=3000)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    figures = {"wrong_token": storm(arguments.hellos, right_token=False),
               "right_token": storm(arguments.hellos, right_token=True),
               "command": f"python bench/hello_storm.py --hellos {arguments.hellos}"}
    if arguments.json:
        print(json.dumps(figures))
        return
    for label in ("wrong_token", "right_token"):
        part = figures[label]
        assert isinstance(part, dict)
        print(f"{label.replace('_', ' ')}: {part['hellos']} Hellos in {part['wall_s']} s, referee CPU "
              f"{part['referee_cpu_s']} s ({part['referee_cpu_us_per_hello']} us a Hello); {part['codes']}")


if __name__ == "__main__":
    main()
