"""The referee's network port: a gate in front of the gRPC server that no address, and no crowd of addresses,
can exhaust for those who matter.

gRPC lets a server cap its connections in all, but not per address, and a connection that opens no
stream costs a file descriptor until it is dropped. So the network port is this gate: it accepts
connections, refuses at once those beyond `per_address` from one address (one IPv4 address, or one
IPv6 /64) and beyond `per_network` from one network (an IPv4 /24, an IPv6 /48), and passes the bytes
of the others, untouched (TLS included), to the gRPC server listening on a private Unix socket.

A connection is anonymous until the server vouches for it (`vouch`: a call with the admin token, a
bot's accepted Hello). Anonymous connections (watchers, health checks, anyone) may fill only the
total less a reserve; when that share is full, a new connection still gets in and the oldest
anonymous one is closed to make room, so the operator's admin calls and remote bots always reach the
referee however many addresses crowd it. An anonymous connection is closed after
`anonymous_age_s`, whatever it streams: it never holds its place forever. Each connection reaches gRPC from a socket bound
at a path of its own, so the server can still tell, per stream, which address it came from
(`peer_of`): the per-address budgets of streams waiting to say Hello rest on it. Connections with
no stream are closed by gRPC after `grpc.max_connection_idle_ms` (set by the server).

The descriptor budget: the process's open-file limit is raised to its hard limit at start
(`raise_open_file_limit`), and the gate keeps `reserve` descriptors free for the referee's own
work (bot processes, their sockets and pipes, records, the database): each gated connection costs
three (its socket, the socket to gRPC, and gRPC's end of that).
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import os
import resource
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Optional

RESERVED_DESCRIPTORS = 512  # kept free for the referee's own work
DESCRIPTORS_PER_CONNECTION = 3
CHUNK = 1 << 16
ANONYMOUS_AGE_S = 900.0  # an anonymous connection is closed after this, whatever it streams


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit to its hard limit; returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def open_descriptors() -> int:
    """How many file descriptors this process has open."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def descriptor_headroom() -> int:
    """Descriptors this process may still open before its limit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = int(soft) if soft != resource.RLIM_INFINITY else 1 << 20
    return limit - open_descriptors()


def network_key(host: str) -> str:
    """The network an address counts against: 'ipv4:1.2.3.0/24', or 'ipv6:2001:db8:1::/48'."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 48 if isinstance(address, ipaddress.IPv6Address) else 24
    return f"ipv{address.version}:{ipaddress.ip_network((address, prefix), strict=False)}"


def address_key(host: str) -> str:
    """The budget an address counts against: 'ipv4:1.2.3.4', or 'ipv6:2001:db8:1:2::/64'."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv6Address):
        return f"ipv6:{ipaddress.ip_network((address, 64), strict=False)}"
    return f"ipv4:{address}"


class ConnectionGate:
    """Accepts connections on the network port and forwards them to gRPC's private socket (see above)."""

    def __init__(self, inner_socket: Path, client_dir: Path, *, per_address: int, per_network: Optional[int] = None,
                 total: Optional[int] = None, reserve: Optional[int] = None,
                 anonymous_age_s: float = ANONYMOUS_AGE_S) -> None:
        self.inner_socket = inner_socket
        self.client_dir = client_dir
        self.per_address = per_address
        self.per_network = per_network if per_network is not None else 4 * per_address
        limit = raise_open_file_limit()
        room = max(16, (limit - RESERVED_DESCRIPTORS) // DESCRIPTORS_PER_CONNECTION)
        self.total = min(total, room) if total is not None else room
        self.reserve = reserve if reserve is not None else max(8, self.total // 10)  # kept for vouched connections
        self.anonymous_age_s = anonymous_age_s
        self.refused = 0  # connections refused at once, over a budget
        self.accepted = 0  # connections forwarded
        self.evicted = 0  # anonymous connections closed to make room, or for their age
        self._by_address: Counter[str] = Counter()
        self._by_network: Counter[str] = Counter()
        self._peers: dict[str, str] = {}  # gRPC's peer name of a forwarded connection -> its address key
        self._anonymous: dict[str, tuple[float, asyncio.StreamWriter]] = {}  # gRPC peer -> (opened at, writer)
        self._numbers = itertools.count(1)
        self._server: Optional[asyncio.AbstractServer] = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: Optional[asyncio.Task[None]] = None

    async def start(self, host: str, port: int) -> int:
        """Listen on host:port; returns the port."""
        self.client_dir.mkdir(mode=0o700, exist_ok=True)
        self._server = await asyncio.start_server(self._accept, host, port, reuse_address=True)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        return int(self._server.sockets[0].getsockname()[1])

    def peer_of(self, grpc_peer: str) -> str:
        """The address a stream came from (for a stream that did not come through the gate: itself)."""
        return self._peers.get(grpc_peer, grpc_peer)

    def vouch(self, grpc_peer: str) -> None:
        """The server knows who is on this connection (the admin, a bot it admitted): it is no longer anonymous."""
        self._anonymous.pop(grpc_peer, None)

    @property
    def connections(self) -> int:
        """Connections being forwarded now."""
        return sum(self._by_address.values())

    @property
    def anonymous(self) -> int:
        """Of them, those nobody has vouched for."""
        return len(self._anonymous)

    def _evict_oldest_anonymous(self) -> bool:
        if not self._anonymous:
            return False
        peer = min(self._anonymous, key=lambda key: self._anonymous[key][0])
        _opened, writer = self._anonymous.pop(peer)
        self.evicted += 1
        writer.transport.abort()
        return True

    async def _sweep(self) -> None:
        """Close anonymous connections past their age, now and then."""
        while True:
            await asyncio.sleep(min(30.0, self.anonymous_age_s / 2))
            cutoff = time.monotonic() - self.anonymous_age_s
            for peer, (opened, writer) in list(self._anonymous.items()):
                if opened < cutoff:
                    self._anonymous.pop(peer, None)
                    self.evicted += 1
                    writer.transport.abort()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "unknown"
        network = network_key(str(peer[0])) if peer else "unknown"
        if self._by_address[key] >= self.per_address or self._by_network[network] >= self.per_network:
            self.refused += 1
            writer.transport.abort()
            return
        if self.connections >= self.total or self.anonymous >= self.total - self.reserve:
            # full, or the anonymous share is: the oldest anonymous connection makes room (whoever this one is,
            # it may be the operator's); with none to close (all vouched for), it is refused
            if not self._evict_oldest_anonymous() and self.connections >= self.total:
                self.refused += 1
                writer.transport.abort()
                return
        self._by_address[key] += 1
        self._by_network[network] += 1
        self.accepted += 1
        path = self.client_dir / str(next(self._numbers))
        grpc_peer = f"unix:{path}"
        # counted before the first await: connections arriving together see each other
        self._peers[grpc_peer] = key
        self._anonymous[grpc_peer] = (time.monotonic(), writer)
        inner: Optional[socket.socket] = None
        try:
            inner = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            inner.bind(str(path))
            inner.setblocking(False)
            await asyncio.get_running_loop().sock_connect(inner, str(self.inner_socket))
            inner_reader, inner_writer = await asyncio.open_unix_connection(sock=inner)
            inner = None
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                await asyncio.gather(_pipe(reader, inner_writer), _pipe(inner_reader, writer))
            finally:
                if task is not None:
                    self._tasks.discard(task)
        except (OSError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            if inner is not None:
                inner.close()
            self._peers.pop(grpc_peer, None)
            self._anonymous.pop(grpc_peer, None)
            path.unlink(missing_ok=True)
            for counter, bucket in ((self._by_address, key), (self._by_network, network)):
                counter[bucket] -= 1
                if counter[bucket] <= 0:
                    del counter[bucket]

    async def close(self) -> None:
        """Stop accepting and drop every forwarded connection."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    """Copy bytes until the source ends, then end the target."""
    try:
        while chunk := await source.read(CHUNK):
            target.write(chunk)
            await target.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        try:
            target.close()
        except OSError:
            pass
