"""The web's streams (live views, an upload's progress) never lock a newcomer out: over a client's cap its own
oldest stream is ended; with the server's streams all taken, the oldest of the network holding the most is
ended. In memory (Streams), and for real: event streams of a queued upload on sockets against `arena web`."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.web.streams import StreamLimits, Streams
from tests.web.test_hostile_clients import Web


def test_a_client_over_its_cap_ends_its_own_oldest_stream() -> None:
    async def scenario() -> None:
        streams = Streams(StreamLimits(total=100, per_address=2, per_network=3))
        first, second = streams.admit("10.0.0.1"), streams.admit("10.0.0.1")
        third = streams.admit("10.0.0.1")  # its own oldest makes room
        assert first.ended.is_set() and not second.ended.is_set() and not third.ended.is_set()
        neighbour = streams.admit("10.0.0.2")
        assert not neighbour.ended.is_set() and streams.count == 3
        streams.admit("10.0.0.3")  # the network's cap: its oldest (second) ends
        assert second.ended.is_set() and streams.ended == 2 and streams.count == 3
        third.release()
        third.release()  # (more than once: no harm)
        assert streams.count == 2

    asyncio.run(scenario())


def test_a_full_server_ends_the_oldest_stream_of_the_network_holding_the_most() -> None:
    async def scenario() -> None:
        streams = Streams(StreamLimits(total=5, per_address=16, per_network=64))
        crowd = [streams.admit(f"10.0.0.{n}") for n in range(4)]
        visitor = streams.admit("192.0.2.1")
        newcomer = streams.admit("198.51.100.1")  # all taken: the crowd's network gives up its oldest
        assert crowd[0].ended.is_set() and not any(ticket.ended.is_set() for ticket in crowd[1:])
        assert not visitor.ended.is_set() and not newcomer.ended.is_set() and streams.count == 5

    asyncio.run(scenario())


@pytest.fixture
def queued(tmp_path: Path) -> Iterator[tuple[Web, str, int]]:
    """A server with at most 20 streams and no pre-flight workers, an owner's token and a queued upload of theirs
    (it stays queued: its event stream stays open)."""
    db = f"sqlite:///{tmp_path / 'web.db'}"
    made = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "owner", "add", "ann",
                           "--db", db, "--json"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    token = json.loads(made.stdout)["token"]
    web = Web(db, tmp_path, "--preflight-workers", "0", "--max-streams", "20")
    try:
        status, answer = web.request("POST", "/api/owner/submissions?filename=bot.tar.gz", b"\x1f\x8b" + b"0" * 64,
                                     {"Authorization": f"Bearer {token}"})
        assert status == 202, answer
        yield web, token, answer["id"]
    finally:
        web.stop()


class EventStream:
    """An upload's event stream, opened from `source`: answered 200, then held."""

    def __init__(self, web: Web, token: str, submission: int, source: str) -> None:
        self.conn = socket.create_connection(("127.0.0.1", web.port), source_address=(source, 0), timeout=60)
        self.conn.sendall(f"GET /api/owner/submissions/{submission}/events HTTP/1.1\r\nHost: arena\r\n"
                          f"Authorization: Bearer {token}\r\n\r\n".encode())
        self.seen = b""
        while b"\r\n\r\n" not in self.seen:
            self.seen += self.conn.recv(4096)
        assert self.seen.startswith(b"HTTP/1.1 200"), self.seen[:200]

    def ended(self) -> bool:
        """Whether the server ends it (told so), waiting for it; False if it goes on (a minute without)."""
        while b"ended to make room" not in self.seen:
            try:
                chunk = self.conn.recv(4096)
            except socket.timeout:
                return False
            if not chunk:
                return False
            self.seen += chunk
        return True

    def open(self) -> bool:
        """Whether it is still open and not ended (looked at once, not waited for)."""
        self.conn.setblocking(False)
        try:
            chunk = self.conn.recv(4096)
            self.seen += chunk
            still = bool(chunk) and b"ended to make room" not in self.seen
        except BlockingIOError:
            still = b"ended to make room" not in self.seen
        self.conn.setblocking(True)
        return still

    def close(self) -> None:
        self.conn.close()


def test_streams_on_a_real_server_never_lock_a_newcomer_out(queued: tuple[Web, str, int]) -> None:
    web, token, submission = queued
    opened: list[EventStream] = []
    try:
        for n in range(16):  # one owner's address holds its cap (16)
            opened.append(EventStream(web, token, submission, "127.0.11.1"))
        opened.append(EventStream(web, token, submission, "127.0.11.1"))  # a 17th: its own oldest ends
        assert opened[0].ended() and opened[1].open()
        for n in range(4):  # the server's 20 streams all taken, from another network
            opened.append(EventStream(web, token, submission, f"127.0.12.{n + 1}"))
        newcomer = EventStream(web, token, submission, "127.0.13.1")  # served: the fullest network's oldest ends
        opened.append(newcomer)
        assert opened[1].ended() and opened[2].open() and all(stream.open() for stream in opened[17:])
    finally:
        for stream in opened:
            stream.close()
