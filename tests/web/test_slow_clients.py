"""`arena web` against slow bodies and behind a proxy, for real (a server in a process of its own, clients on
sockets): when the server is full of bodies trickling in, a fresh visitor is answered and the slowest body makes
room (a crowd's own, closed, cannot take each other's places); a body that falls behind the minimum rate is cut off though it never stalls; a whole request is cut off
at its deadline however steadily it comes; and the address a trusted proxy forwards is what the caps count,
from that proxy only."""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.test_hostile_clients import Web, closed_by_server, with_an_owner

SLOW_POST = (b"POST /api/owner/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
             b"Content-Length: %d\r\nExpect: 100-continue\r\n%s\r\n")


def start(tmp_path: Path, *options: str) -> Web:
    db = f"sqlite:///{tmp_path / 'web.db'}"
    if not (tmp_path / "web.db").exists():
        with_an_owner(db)
    return Web(db, tmp_path, *options)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Web]]:
    started: list[Web] = []
    yield started
    for server in started:
        server.stop()


def slow_body(web: Web, source: str, length: int = 1000, headers: bytes = b"") -> socket.socket:
    """A connection whose request's headers the server has read (it asked for the body: 100 Continue), and
    whose body has begun with one byte."""
    conn = socket.create_connection(("127.0.0.1", web.port), source_address=(source, 0), timeout=30)
    conn.sendall(SLOW_POST % (length, headers))
    assert conn.recv(64).startswith(b"HTTP/1.1 100"), "the server did not ask for the body"
    conn.sendall(b"{")
    return conn


def closed_among(conns: list[socket.socket], within_s: float) -> list[socket.socket]:
    """The connections the server has closed, once one is (or none, after `within_s`)."""
    readable, _, _ = select.select(conns, [], [], within_s)
    return [conn for conn in readable if closed_by_server(conn, 1)]


def test_a_full_server_of_slow_bodies_answers_a_fresh_visitor_and_closes_the_slowest(tmp_path: Path,
                                                                                         servers: list[Web]) -> None:
    web = start(tmp_path, "--max-connections", "16", "--connections-per-address", "4")
    servers.append(web)
    slow = [slow_body(web, f"127.0.7.{1 + n % 4}") for n in range(16)]  # the whole server, in bodies
    try:
        assert web.request("GET", "/api/games", source="127.0.20.1")[0] == 200
        assert closed_among(slow, 30)  # the room it took: a slow body's
    finally:
        for conn in slow:
            conn.close()


def trickle(conn: socket.socket, piece: bytes, every_s: float, most: int) -> int:
    """Send `piece` every `every_s` seconds until the server answers or closes, or `most` bytes are sent (two
    minutes at most); the bytes sent (the one byte `slow_body` sent included)."""
    sent, deadline = 1, time.monotonic() + 120
    while time.monotonic() < deadline and sent + len(piece) <= most:
        try:
            conn.sendall(piece)
        except OSError:
            break
        sent += len(piece)
        if select.select([conn], [], [], every_s)[0]:
            break
    return sent


def test_a_body_below_the_minimum_rate_is_cut_off_though_it_never_stalls(tmp_path: Path,
                                                                           servers: list[Web]) -> None:
    web = start(tmp_path, "--body-min-rate", "4096", "--body-grace", "1")
    servers.append(web)
    conn = slow_body(web, "127.0.7.1", length=60000)
    began = time.monotonic()
    try:  # a byte a fifth of a second: never idle for long, never fast enough
        assert trickle(conn, b" ", 0.2, 59000) < 59000 and closed_by_server(conn, 10)
        assert time.monotonic() - began >= 1.0  # (not before its grace)
        assert web.request("GET", "/api/games")[0] == 200
    finally:
        conn.close()


def test_a_whole_request_is_cut_off_at_its_deadline_however_steadily_it_comes(tmp_path: Path,
                                                                               servers: list[Web]) -> None:
    web = start(tmp_path, "--request-timeout", "3", "--body-min-rate", "1")
    servers.append(web)
    conn = slow_body(web, "127.0.7.1", length=60000)
    try:  # 500 bytes a tenth of a second: well over the rate, never done within the deadline
        assert trickle(conn, b" " * 500, 0.1, 59000) < 59000 and closed_by_server(conn, 10)
    finally:
        conn.close()


def test_a_trusted_proxys_forwarded_address_is_what_the_caps_count(tmp_path: Path, servers: list[Web]) -> None:
    web = start(tmp_path, "--connections-per-address", "2", "--trusted-proxy", "127.0.9.0/24", "--open-signup")
    servers.append(web)
    held = [slow_body(web, "127.0.9.1", headers=b"X-Forwarded-For: 198.51.100.7, 203.0.113.5\r\n") for _ in range(2)]
    try:  # the proxy holds two connections of 203.0.113.5's: its third is refused, another client's served
        assert web.request("GET", "/api/games", headers={"X-Forwarded-For": "203.0.113.5"}, source="127.0.9.1")[0] == 429
        assert web.request("GET", "/api/games", headers={"X-Real-IP": "203.0.113.6"}, source="127.0.9.1")[0] == 200
        assert web.request("GET", "/api/games", headers={"X-Forwarded-For": "203.0.113.6"}, source="127.0.9.2")[0] == 200
        answers = [web.request("POST", "/api/signup", json.dumps({"name": f"owner-{n}"}).encode(),
                               headers={"Content-Type": "application/json", "X-Forwarded-For": f"203.0.113.{10 + n}"},
                               source="127.0.9.1")[0] for n in range(5)]
        assert answers == [201] * 5  # sign-ups limited per client, each its own (3 an hour each)
    finally:
        for conn in held:
            conn.close()
    # from anywhere else the header is ignored: the connecting address is counted, at its own cap
    untrusted = [slow_body(web, "127.0.10.1", headers=b"X-Forwarded-For: 203.0.113.%d\r\n" % n) for n in range(2)]
    try:
        extra = socket.create_connection(("127.0.0.1", web.port), source_address=("127.0.10.1", 0))
        assert closed_by_server(extra, 10)
        extra.close()
    finally:
        for conn in untrusted:
            conn.close()


def test_a_small_body_is_held_until_whole_and_then_answered(tmp_path: Path, servers: list[Web]) -> None:
    """A JSON body dripped in (without asking leave to send it) is answered once whole, as if sent at once; a
    request answered before its body is read (an upload with a wrong token) is not read on: it closes soon."""
    web = start(tmp_path)
    servers.append(web)
    body = json.dumps({"token": "not-a-token"}).encode()
    conn = socket.create_connection(("127.0.0.1", web.port), source_address=("127.0.7.1", 0), timeout=30)
    try:
        conn.sendall(b"POST /api/owner/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body))
        for byte in body[:-1]:
            conn.sendall(bytes([byte]))
            assert not select.select([conn], [], [], 0.01)[0], f"answered before the body was whole: {conn.recv(99)!r}"
        conn.sendall(body[-1:])
        assert conn.recv(64).startswith(b"HTTP/1.1 401")
    finally:
        conn.close()
    upload = socket.create_connection(("127.0.0.1", web.port), source_address=("127.0.7.2", 0), timeout=30)
    try:
        upload.sendall(b"POST /api/owner/submissions?filename=bot.tar.gz HTTP/1.1\r\nHost: arena\r\n"
                       b"Authorization: Bearer not-a-token\r\nContent-Length: 30000000\r\n\r\n" + b"\0" * 65536)
        assert upload.recv(64).startswith(b"HTTP/1.1 401")
        assert trickle(upload, b"\0" * 65536, 0.05, 30_000_000) < 30_000_000  # closed long before it is all sent
    finally:
        upload.close()
