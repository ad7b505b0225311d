"""What keeps `arena web` up and fair under hostile clients, below the application.

uvicorn caps neither connections per address nor the time a client may take to send its headers, and it
reads a request's whole body before a route decides whether to accept it. So:

- `GuardedProtocol` (uvicorn's h11 protocol with guards) counts connections in all, per address (an IPv4
  address, an IPv6 /64) and per network (an IPv4 /24, an IPv6 /48) in its server's `Connections` (a budget of
  arena.admission), and closes at once a connection over a cap; a connection must send a whole request's
  headers within `header_s` of its first byte (or of opening); a body may stall at most `body_idle_s` between
  chunks, must keep up `body_rate` bytes a second on average after its first `body_grace_s` (up to half as long
  again, drawn per body: a crowd cut off together comes back spread out, not as one burst), and the whole
  request must be in within `request_s` of its first byte; then it is closed. When the server is full, a
  newcomer takes the place of the oldest connection that has not sent its headers (nor bytes not yet read: a busy
  server is only late to read a visitor's request), else of the slowest body
  of an address holding at least two more connections than the newcomer's.
  A request answered before its body was read (a wrong token on an upload) is not read on: its connection closes
  `UNREAD_BODY_S` after the answer. An idle kept-alive connection is closed by uvicorn's keep-alive timeout.
- Behind a trusted proxy (`trusted_proxies`: `arena web --trusted-proxy`) a connection from the proxy counts
  only while it carries a request, as the client its X-Forwarded-For (or X-Real-IP) names, which becomes the
  request's client for the application too; a client over its caps there is answered 429. From any other
  address those headers are ignored.
- `RequestLimits` (ASGI middleware) refuses a path or query with a control character (NUL...), and refuses a body over its route's limit before reading it: a declared length
  over it is a 413 at once, and a body without one is counted as it comes and cut at the limit. JSON
  routes take `json_bytes`, the upload route the upload cap.

docs/security.md ("A hostile web client") says what each holds and its test; behind Debian's nginx in the
docker deployment the same limits hold at the proxy first.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import ipaddress
import json
import logging
import random
import struct
import termios
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote_to_bytes

import h11
from starlette.types import ASGIApp as App, Message, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from arena.admission import Budget, Caps, ClientKey


GRACE_SPREAD = 0.5  # a body's grace is drawn per body, up to this share longer (see WebLimits.body_grace_s)
WAITING_GRACE_S = 1.0  # a connection without headers goes before a slow body only once it has waited this long
UNREAD_BODY_S = 2.0  # a connection whose body was answered before it was read closes this long after the answer
HELD_HEADER_BYTES = 16 * 1024  # headers held this long without their end go to h11 (which refuses them: 400)
_SPREAD = random.Random()  # (a spread of deadlines, not a secret)
OVER_CAP = "arena.over_cap"  # a request's scope key: why its client is over a cap (RequestLimits answers 429)


@dataclass(frozen=True)
class WebLimits:
    """The web server's limits on its clients."""

    connections: int = 4096  # open at once, in all (also kept under the open-file limit)
    per_address: int = 64
    per_network: int = 256
    header_s: float = 10.0  # a request's headers, from its first byte (or the connection's opening)
    body_idle_s: float = 30.0  # the longest a body may stall between chunks
    request_s: float = 300.0  # the longest a whole request (headers and body) may take, from its first byte
    body_rate: int = 4096  # bytes a second a body must keep up on average, after its first `body_grace_s`
    # (each body's grace is drawn from body_grace_s to GRACE_SPREAD longer, so that a crowd of slow bodies, cut off
    # together, does not come back together: its reconnects spread over seconds, never one burst at the listen queue)
    body_grace_s: float = 10.0
    keep_alive_s: float = 5.0  # an idle kept-alive connection
    json_bytes: int = 64 * 1024  # a request body to any route but the upload
    trusted_proxies: tuple[str, ...] = ()  # networks whose X-Forwarded-For / X-Real-IP names the client


class Connections:
    """The open connections of one server, under its caps (a `Budget`). Those that have not sent a request's
    headers yet are open to eviction, in order of arrival, and after them those sending a body, the slowest
    first: when the server is full, one of them is closed to make room, so that a crowd of slow clients (each
    within its caps) never keeps out a visitor whose request comes at once. (One without headers goes first
    once it has waited `WAITING_GRACE_S`: a visitor's own connection, in the moment before its request comes,
    is not taken for a slow one.)"""

    def __init__(self, limits: WebLimits) -> None:
        self.limits = limits
        self.budget = Budget(Caps(per_address=limits.per_address, per_network=limits.per_network,
                                  total=limits.connections), waiting_grace_s=WAITING_GRACE_S)
        self.proxies = tuple(ipaddress.ip_network(entry, strict=False) for entry in limits.trusted_proxies)
        self.refused = 0
        self.timed_out = 0

    def admit(self, key: ClientKey) -> bool:
        """Count a connection from `key`; False (not counted) over a cap."""
        if self.budget.admit(key) is not None:
            self.refused += 1
            return False
        return True

    def trusts(self, host: str) -> bool:
        """Whether `host` is a trusted proxy's address."""
        try:
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        return any(ip in network for network in self.proxies)

    def forwarded(self, headers: Iterable[tuple[bytes, bytes]]) -> str | None:
        """The client a trusted proxy's request names: the last address of X-Forwarded-For that is no trusted
        proxy (the first, when all are), else X-Real-IP; None when it names none that is an IP address."""
        named = dict(headers)
        client = self._forwarded_for(named.get(b"x-forwarded-for", b""))
        if client is not None:
            return client
        real = named.get(b"x-real-ip", b"").decode("latin-1").strip()
        return real if _is_ip(real) else None

    def _forwarded_for(self, value: bytes) -> str | None:
        """The client an X-Forwarded-For value names: its last IP address that is no trusted proxy, else its
        first IP address; None when it holds none."""
        chain = [part.strip() for part in value.decode("latin-1").split(",")]
        chain = [host for host in chain if _is_ip(host)]
        untrusted = [host for host in chain if not self.trusts(host)]
        if untrusted:
            return untrusted[-1]
        return chain[0] if chain else None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol, with caps on connections and deadlines on headers and bodies (see above); its
    server's connections are `connections` (one `Connections` for every connection of one server). A connection
    from a trusted proxy is counted only while it carries a request, as the client the request names."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None, *, connections: Connections) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = connections.limits
        self._connections = connections
        self._key = ClientKey.as_given("unknown")  # (known once the connection is made)
        self._counted = False
        self._proxied = False  # from a trusted proxy: each request counts as the client it names
        self._deadline: asyncio.TimerHandle | None = None
        self._began: float | None = None  # when the request under way sent its first byte
        self._body_began: float | None = None  # ... and its body
        self._body_bytes = 0
        self._grace = self.limits.body_grace_s
        self._seen: object = None  # the last request's scope looked at
        self._held: bytearray | None = None  # a request held until whole (see `_hold`)
        self._held_length = 0  # ... its length, headers and body, once its headers are in (0: not yet)
        self._ends = 0.0  # when the deadline armed now falls (on the loop's clock)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else "unknown"
        self._proxied = self._connections.trusts(host)
        self._arm(self.limits.header_s)
        if self._proxied:
            return
        self._key = ClientKey.of(host)
        if not self._count():
            transport.abort()
            return
        self._connections.budget.open_to_eviction(self, transport.abort, since=time.monotonic(),
                                                  spoke=functools.partial(_has_unread, transport))

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        now = self.loop.time()
        self._began = now if self._began is None else self._began
        if self._held is None and not self._proxied and self._is_between_requests():
            self._held = bytearray()
        if self._held is not None:
            data = self._hold(now, data)
            if not data:
                return
        waiting = self.conn.their_state
        super().data_received(data)
        self._look_at_request()
        self._follow_request(now, waiting, len(data))

    def _follow_request(self, now: float, waiting: Any, size: int) -> None:
        """Set the deadlines for where the request stands after a read of `size` bytes (`waiting`: h11's state
        of the client before it)."""
        state = self.conn.their_state
        if state is h11.SEND_BODY:  # a body under way: it must keep coming, at a pace, and the whole in time
            self._body_chunk(now, waiting, size)
        elif state is h11.IDLE and self.conn.our_state is h11.IDLE:
            if waiting is not h11.IDLE or self._deadline is None:  # the first bytes of a request's headers
                self._arm(self.limits.header_s)
        else:  # the request is in: what follows is the application's (and uvicorn's keep-alive)
            self._began = self._body_began = None
            self._disarm()
            self._connections.budget.spare(self)  # no longer to be closed when the server is full

    def on_response_complete(self) -> None:
        if self._proxied:  # its client no longer holds this connection
            self._uncount()
        super().on_response_complete()
        self._disarm()  # (the keep-alive timeout runs until the next request's first bytes)
        if self.conn.their_state is h11.SEND_BODY and self.transport is not None and not self.transport.is_closing():
            # answered before its body was read (401, 413, 429): the rest is not read, and the connection closes
            # shortly (the answer on its way first), as nginx's lingering_time bounds it
            self.transport.pause_reading()
            self._arm(UNREAD_BODY_S)
            return
        self._look_at_request()  # (a pipelined request, begun now)

    def _is_between_requests(self) -> bool:
        conn = self.conn
        return conn.their_state is h11.IDLE and conn.our_state is h11.IDLE and not conn.trailing_data[0]

    def _hold(self, now: float, data: bytes) -> bytes:
        """A request with a small body of a declared length (at most `json_bytes`) is held here until it is whole,
        under the same deadlines, and only then parsed: a slow one costs its bytes and no parsed request, no
        application task, and no wake-up per chunk. (Not one from a trusted proxy: it counts as the client it
        names once parsed.) What to parse now: b"" while it is held; all of it once whole, or once its headers
        show a request without such a body (none, a large or a chunked one)."""
        held = cast(bytearray, self._held)
        first = not held
        held += data
        self._unset_keepalive_if_required()
        if self._held_length:
            self._body_chunk(now, h11.SEND_BODY, len(data))
        else:
            end = held.find(b"\r\n\r\n")
            if end < 0:  # the headers so far
                if len(held) > HELD_HEADER_BYTES:
                    return self._release()  # (h11 refuses them)
                if first:
                    self._arm(self.limits.header_s)
                return b""
            found = _small_body(bytes(held[:end]), self.limits.json_bytes)
            if found is None:
                return self._release()
            length, head = found
            if len(head) != end:  # it asks leave to send its body: given here, and h11 never sees it ask
                cast(asyncio.Transport, self.transport).write(b"HTTP/1.1 100 Continue\r\n\r\n")
                held[:end] = head
                end = len(head)
            self._held_length = end + 4 + length
            self._body_chunk(now, None, 0)
            self._body_chunk(now, h11.SEND_BODY, len(held) - end - 4)
        return self._release() if len(held) >= self._held_length else b""

    def _release(self) -> bytes:
        data = bytes(self._held or b"")
        self._held, self._held_length = None, 0
        return data

    def _body_chunk(self, now: float, waiting: Any, size: int) -> None:
        if waiting is not h11.SEND_BODY or self._body_began is None:
            self._body_began, self._body_bytes = now, 0
            self._grace = self.limits.body_grace_s * (1.0 + GRACE_SPREAD * _SPREAD.random())
            if self._counted:  # the slowest body goes when the server is full (after any without headers)
                self._connections.budget.open_to_eviction(self, self._abort, pace=self._pace, key=self._key)
        else:
            self._body_bytes += size
        limits = self.limits
        behind = self._body_began + self._grace + self._body_bytes / limits.body_rate
        ends = min(now + limits.body_idle_s, (self._began or now) + limits.request_s, behind)
        self._arm(ends - now)

    def _pace(self) -> float:
        """The body's bytes a second so far (a first second's kilobyte counted in, so that one just begun is
        not taken for the slowest)."""
        elapsed = self.loop.time() - (self._body_began if self._body_began is not None else self.loop.time())
        return (self._body_bytes + 1024) / (elapsed + 1.0)

    def _look_at_request(self) -> None:
        """A new request from a trusted proxy counts as the client it names (its scope's client, too): over that
        client's caps it is answered 429 (see RequestLimits)."""
        scope = cast("dict[str, Any] | None", self.scope)
        if scope is None or scope is self._seen:
            return
        self._seen = scope
        if not self._proxied:
            return
        client = self._connections.forwarded(scope["headers"])
        if client is not None:
            scope["client"] = (client, 0)
            proto = dict(scope["headers"]).get(b"x-forwarded-proto", b"").decode("latin-1").strip().lower()
            scope["scheme"] = proto if proto in ("http", "https") else scope["scheme"]
        self._uncount()
        self._key = ClientKey.of(client or (self.client[0] if self.client else "unknown"))
        if not self._count():
            scope[OVER_CAP] = "too many connections from your address now: try again shortly"

    def _count(self) -> bool:
        self._counted = self._connections.admit(self._key)
        return self._counted

    def _uncount(self) -> None:
        self._connections.budget.spare(self)
        if self._counted:
            self._counted = False
            self._connections.budget.leave(self._key)

    def _abort(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()

    def _arm(self, seconds: float) -> None:
        """The connection is closed in `seconds` (unless armed again or disarmed). A later deadline than the one
        armed leaves its timer be: it looks again when it fires (a chunk of a body costs no new timer)."""
        self._ends = self.loop.time() + max(0.0, seconds)
        if self._deadline is not None:
            if self._deadline.when() <= self._ends:
                return
            self._deadline.cancel()
        self._deadline = self.loop.call_at(self._ends, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._ends > self.loop.time():  # moved later since: look again then
            self._deadline = self.loop.call_at(self._ends, self._too_slow)
            return
        self._connections.timed_out += 1
        self._abort()


def _has_unread(transport: asyncio.Transport) -> bool:
    """Whether bytes have come on `transport`'s socket that the server has not read yet."""
    try:
        waiting = fcntl.ioctl(transport.get_extra_info("socket").fileno(), termios.FIONREAD, b"\0\0\0\0")
    except (OSError, AttributeError):
        return False
    return struct.unpack("i", waiting)[0] > 0


def _small_body(head: bytes, cap: int) -> tuple[int, bytes] | None:
    """The length a request's headers (`head`, without the blank line) declare for its body, when it is one to
    hold whole (1 to `cap` bytes, one Content-Length, no Transfer-Encoding), and the headers to parse (without an
    `Expect: 100-continue`: the guard answers it); else None (h11 judges the rest as they come)."""
    lines = head.split(b"\r\n")
    kept, lengths = lines[:1], []
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip()
        if name == b"transfer-encoding":
            return None
        if name == b"content-length":
            lengths.append(value)
        if name != b"expect" or value.lower() != b"100-continue":
            kept.append(line)
    if len(lengths) != 1 or not lengths[0].isdigit() or not 0 < int(lengths[0]) <= cap:
        return None
    return int(lengths[0]), b"\r\n".join(kept)


def guarded(limits: WebLimits) -> type[GuardedProtocol]:
    """What uvicorn's `http` setting takes for one server with these limits: GuardedProtocol, with that
    server's own `Connections`."""
    protocol = functools.partial(GuardedProtocol, connections=Connections(limits))
    # uvicorn only calls its `http` (with config=, server_state=, app_state=, _loop=), though its annotation
    # names a class: a factory of protocols serves, and carries the server's counts without a class per server
    return cast("type[GuardedProtocol]", protocol)


class RequestLimits:
    """ASGI middleware: a path or query with a NUL or another control character is refused (404, 422) before any
    route sees it (a database may not store one); a request body over its route's limit is refused before it is
    read (see above)."""

    def __init__(self, app: App, json_bytes: int, routes: dict[tuple[str, str], int | None]) -> None:
        self.app = app
        self.json_bytes = json_bytes
        self.routes = routes  # (method, path) -> its own limit; None: the route holds its own as it reads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = _refusal_before_route(scope)
        if refusal is not None:
            await _refuse(send, *refusal)
            return
        limit = self.routes.get((scope["method"], scope["path"]), self.json_bytes)
        if limit is None:
            await self.app(scope, receive, send)
            return
        refusal = _declared_length_refusal(scope, limit)
        if refusal is not None:
            await _refuse(send, *refusal)
            return
        await self._counted_app(scope, receive, send, limit)

    async def _counted_app(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        """Run the application on a body counted as it comes: past `limit` it is answered 413 here, and to the
        application the client is gone."""
        seen = 0
        refused = False

        async def counted() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # answered here; to the application the client is gone
                    refused = True
                    await _refuse(send, 413, _body_over(limit))
                    return {"type": "http.disconnect"}
            return message

        async def answered(message: Message) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, counted, answered)
        except Exception:  # noqa: BLE001 - the application failing to read what was refused: already answered
            if not refused:
                raise


def _refusal_before_route(scope: Scope) -> tuple[int, str] | None:
    """The status and detail refusing a request over a client's cap, or whose path or query holds a control
    character; None when none of these holds."""
    if scope.get(OVER_CAP):
        return 429, scope[OVER_CAP]
    if _has_controls(scope.get("path", "")):
        return 404, "no such page: its address holds a control character"
    query = scope.get("query_string", b"")
    if _has_controls(unquote_to_bytes(query).decode("utf-8", "replace")) or b"\x00" in query:
        return 422, "a query parameter holds a control character"
    return None


def _declared_length_refusal(scope: Scope, limit: int) -> tuple[int, str] | None:
    """The status and detail refusing a request whose Content-Length is not a number (400) or is over `limit`
    (413); None when it declares none or one within the limit."""
    declared = dict(scope.get("headers") or []).get(b"content-length")
    if declared is None:
        return None
    if not declared.isdigit():
        return 400, "a Content-Length that is not a number"
    if int(declared) > limit:
        return 413, _body_over(limit)
    return None


def _body_over(limit: int) -> str:
    """The detail of a 413: a body over its route's limit."""
    return f"a request body here may be at most {limit} bytes"


def _has_controls(text: str) -> bool:
    return any(ord(character) < 32 or ord(character) == 127 for character in text)


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    try:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
    except Exception:  # noqa: BLE001 - the response had begun: the connection is closed with it
        pass


class QuietErrors:
    """The outermost ASGI layer: an error that escaped the application (it has answered 500 already) is logged
    as one line, its type and route, and not raised on to the server, whose log would carry its message and
    traceback: a request's data (a body, a token) can be in them."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except Exception as error:  # noqa: BLE001 - see above
            route = getattr(scope.get("route"), "path", "?")
            logging.getLogger("arena.web").error("request failed: %s %s: %s", scope.get("method", ""), route,
                                                 type(error).__name__)
