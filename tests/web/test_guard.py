"""The web's guard in process: each server's protocols share that server's counts, a connection over a cap is
closed at once, and when the server is full the oldest connection still sending its headers makes room."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from arena.web.guard import GuardedProtocol, WebLimits, guarded


async def _app(scope: Any, receive: Any, send: Any) -> None:  # (never called: no request is sent)
    raise AssertionError("no request was sent")


class _Transport(asyncio.Transport):
    """A connection from `host`, that notes whether it was closed."""

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": (self.host, 40000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:  # (uvicorn closes a transport whose connection was lost)
        self.aborted = True

    def is_closing(self) -> bool:
        return self.aborted


def _connect(factory: type[GuardedProtocol], host: str) -> tuple[GuardedProtocol, _Transport]:
    config = uvicorn.Config(_app, log_level="warning")
    protocol = factory(config=config, server_state=ServerState(), app_state={})  # as uvicorn makes them
    transport = _Transport(host)
    protocol.connection_made(transport)
    return protocol, transport


def test_each_server_counts_its_own_connections_and_over_a_cap_closes_at_once() -> None:
    async def scenario() -> None:
        limits = WebLimits(connections=10, per_address=2, per_network=3)
        one, other = guarded(limits), guarded(limits)
        first = [_connect(one, "10.0.0.1") for _ in range(2)]
        assert not any(transport.aborted for _, transport in first)
        _, over = _connect(one, "10.0.0.1")
        assert over.aborted  # the address's cap
        _, elsewhere = _connect(other, "10.0.0.1")
        assert not elsewhere.aborted  # another server: counts of its own
        _, neighbour = _connect(one, "10.0.0.2")
        _, crowded = _connect(one, "10.0.0.3")
        assert not neighbour.aborted and crowded.aborted  # the network's cap
        protocol, _ = first[0]
        protocol.connection_lost(None)
        _, again = _connect(one, "10.0.0.1")
        assert not again.aborted  # the place it left is free again

    asyncio.run(scenario())


def test_a_full_server_closes_the_oldest_connection_still_sending_its_headers() -> None:
    async def scenario() -> None:
        factory = guarded(WebLimits(connections=2, per_address=10, per_network=10))
        (_, oldest), (_, newer) = _connect(factory, "10.0.0.1"), _connect(factory, "10.0.0.2")
        _, newest = _connect(factory, "10.0.0.3")
        assert oldest.aborted and not newer.aborted and not newest.aborted

    asyncio.run(scenario())
