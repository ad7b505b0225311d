"""Three hostile cases run through the deployment's nginx proxy by `make docker-test` (docker/test.sh), each
checking that a visitor is still answered (issue 46). Standard library only; run on the host, where the
attackers' addresses were added to the proxy network's bridge (each address a client of its own to nginx,
in a network of its own) and the visitor comes through the published port (another address).

1. slow bodies: from each of `--slow` addresses, 30 POST bodies dripped a byte a second (under nginx's 32
   connections an address): every visitor meanwhile gets the home page (200, "<title>Arena"), and every slow
   body is cut off (by the web's minimum rate, the proxy closing it too) within `CUT_WITHIN_S`;
2. per-client limits behind the proxy: one `--crowd` address opens 40 such bodies: nginx refuses those past its
   32 (429), the web counts the ones it lets through against that address, not against the proxy, so a visitor
   is still answered (were every visitor one client, the proxy, the web's cap of 32 would refuse them);
3. the live relay: one `--watcher` address opens 20 live views of a running match, then 16 more; a visitor's
   live view gets the match's header and is not ended, while the crowd's oldest are (16 streams an address).

Bounds are liveness bounds (an answer at all, within seconds on a busy machine), not timings. Prints one JSON
line; exits 1 with the reasons when a case fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import sys
import time
from typing import Any

SLOW_EACH, CROWD = 30, 40  # slow bodies per address; the crowd's connections (nginx allows 32 an address)
ANSWER_WITHIN_S = 15.0  # a visitor's answer, on a busy 2-core machine
CUT_WITHIN_S = 90.0  # every slow body ended (the web: 4 KiB/s after a 10 s grace; a stall of 30 s; 300 s in all)
ENDED = b"ended to make room"


class Target:
    def __init__(self, host: str, port: int, context: ssl.SSLContext) -> None:
        self.host, self.port, self.context = host, port, context

    async def open(self, source: str | None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.wait_for(asyncio.open_connection(
            self.host, self.port, ssl=self.context, server_hostname="localhost",
            local_addr=(source, 0) if source else None), ANSWER_WITHIN_S)


async def visit(target: Target) -> str:
    """The home page through the proxy: '' when it came (200, Arena's page), else what came instead."""
    try:
        reader, writer = await target.open(None)
        writer.write(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(-1), ANSWER_WITHIN_S)
        writer.close()
    except (OSError, asyncio.TimeoutError, ssl.SSLError) as error:
        return f"no answer within {ANSWER_WITHIN_S:g}s: {type(error).__name__} {error}"
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
    if " 200 " not in status or b"<title>Arena" not in answer:
        return f"answered {status!r}"
    return ""


async def slow_body(target: Target, source: str, held: list[int]) -> str:
    """A POST whose body comes a byte a second; what ended it: an HTTP status line, or 'closed'."""
    try:
        reader, writer = await target.open(source)
    except (OSError, asyncio.TimeoutError, ssl.SSLError) as error:
        return f"not opened: {type(error).__name__}"
    writer.write(b"POST /api/owner/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 60000\r\n\r\n{")
    held[0] += 1
    answer = asyncio.ensure_future(reader.read(4096))
    try:
        while not answer.done():
            try:
                writer.write(b" ")
                await writer.drain()
            except (OSError, ssl.SSLError):
                break
            await asyncio.wait([answer], timeout=1.0)
        data = await answer
    except (OSError, ssl.SSLError):
        data = b""
    finally:
        held[0] -= 1
        writer.close()
    return data.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"


async def slow_cases(target: Target, proxy: Target, slow: list[str], crowd: str) -> dict[str, Any]:
    held = [0]
    began = time.monotonic()
    bodies = [asyncio.ensure_future(slow_body(proxy, source, held)) for source in slow for _ in range(SLOW_EACH)]
    crowded = [asyncio.ensure_future(slow_body(proxy, crowd, held)) for _ in range(CROWD)]
    while held[0] < len(bodies) + 32 and time.monotonic() - began < ANSWER_WITHIN_S:  # (they are all in)
        await asyncio.sleep(0.2)
    holding = held[0]
    visits = [await visit(target) for _ in range(5)]
    done, pending = await asyncio.wait(bodies + crowded, timeout=CUT_WITHIN_S)
    for task in pending:
        task.cancel()
    ends = [task.result() for task in bodies if task in done]
    crowd_ends = [task.result() for task in crowded if task in done]
    problems = [f"a visitor during the slow bodies: {seen}" for seen in visits if seen]
    if pending:
        problems.append(f"{len(pending)} slow bodies still open after {CUT_WITHIN_S:g}s")
    if sum(" 429 " in end for end in crowd_ends) < CROWD - 32:
        problems.append(f"nginx let one address hold more than 32: {crowd_ends}")
    return {"held": holding, "visitors": len(visits) - sum(map(bool, visits)), "visits": len(visits),
            "slow_ends": sorted(set(ends)), "crowd_429": sum(" 429 " in end for end in crowd_ends),
            "cut_within_s": round(time.monotonic() - began, 1), "problems": problems}


class Stream:
    """A live view (server-sent events) through the proxy, read as it comes."""

    def __init__(self) -> None:
        self.data = b""
        self.task: asyncio.Future[None] | None = None

    async def follow(self, target: Target, source: str | None, match_id: str) -> None:
        try:
            reader, writer = await target.open(source)
            writer.write(f"GET /api/live/{match_id}/events HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
            while chunk := await reader.read(4096):
                self.data += chunk
        except (OSError, asyncio.TimeoutError, ssl.SSLError) as error:
            self.data += f"\n(broken: {type(error).__name__})".encode()

    def start(self, target: Target, source: str | None, match_id: str) -> Stream:
        self.task = asyncio.ensure_future(self.follow(target, source, match_id))
        return self

    @property
    def begun(self) -> bool:
        return b"event: header" in self.data or ENDED in self.data or (self.task is not None and self.task.done())


async def until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def relay_case(target: Target, proxy: Target, watcher: str, match_id: str) -> dict[str, Any]:
    crowd = [Stream().start(proxy, watcher, match_id) for _ in range(20)]
    await until(lambda: all(stream.begun for stream in crowd), ANSWER_WITHIN_S)
    visitor = Stream().start(target, None, match_id)
    came = await until(lambda: b"event: header" in visitor.data, ANSWER_WITHIN_S)
    crowd += [Stream().start(proxy, watcher, match_id) for _ in range(16)]
    await until(lambda: all(stream.begun for stream in crowd), ANSWER_WITHIN_S)
    await asyncio.sleep(1.0)  # (an ending sent to the visitor would be on its way by now)
    for stream in [visitor, *crowd]:
        assert stream.task is not None
        stream.task.cancel()
    finished = any(b"event: finished" in stream.data for stream in [visitor, *crowd])
    ended = sum(ENDED in stream.data for stream in crowd)
    problems = []
    if not came or b" 200 " not in visitor.data.split(b"\r\n", 1)[0]:
        problems.append(f"the visitor's live view: {visitor.data[:200]!r}")
    if ENDED in visitor.data:
        problems.append("the visitor's live view was ended to make room for another address's")
    if ended < 20 and not finished:
        problems.append(f"one address held more than 16 live views: {ended} of 36 ended")
    return {"visitor_header": came, "crowd_ended": ended, "match_finished_meanwhile": finished,
            "problems": problems}


async def main(arguments: argparse.Namespace) -> dict[str, Any]:
    context = ssl.create_default_context(cafile=arguments.ca)
    host, _, port = arguments.visitor.rpartition(":")
    target = Target(host, int(port), context)
    proxy_host, _, proxy_port = arguments.proxy.rpartition(":")
    proxy = Target(proxy_host, int(proxy_port), context)
    seen = {"slow": await slow_cases(target, proxy, arguments.slow.split(","), arguments.crowd)}
    seen["relay"] = await relay_case(target, proxy, arguments.watcher, arguments.match)
    return seen


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ca", required=True, help="the proxy's certificate")
    parser.add_argument("--visitor", required=True, help="host:port the visitor uses (the published port)")
    parser.add_argument("--proxy", required=True, help="host:port of the proxy for the attackers")
    parser.add_argument("--slow", required=True, help="the slow bodies' source addresses, comma-separated")
    parser.add_argument("--crowd", required=True, help="the crowd's source address")
    parser.add_argument("--watcher", required=True, help="the live views' source address")
    parser.add_argument("--match", required=True, help="a running match's id on the referee")
    result = asyncio.run(main(parser.parse_args()))
    print(json.dumps(result))
    sys.exit(1 if result["slow"]["problems"] or result["relay"]["problems"] else 0)
