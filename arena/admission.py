"""Admission at the edge: who a client counts as, a budget of clients under caps, and the open-file limit.

Four places admit clients under caps: the web's connections (arena.web.guard), the referee's network port
(arena.rpc.gate), the referee's anonymous watchers (arena.rpc.spectators) and the browsers following live
matches (arena.web.live). Each names a client by a `ClientKey` (its address: an IPv4 address or an IPv6 /64;
its network: an IPv4 /24 or an IPv6 /48) and counts it in a `Budget` (per address, per network, in all).
Where a server holds connections that may be closed to make room (those that have not shown who they are
yet), the budget keeps them oldest first and closes the oldest when a newcomer needs its place; when none is
left, it closes the slowest of those still sending (a request body, at a pace they report).

Two more budgets count what clients do rather than what they hold: `Strikes`, failures (wrong tokens) per
address and per network, each failure past a free few shutting the address (or network) out for a pause
that doubles; and `Rates`, a token bucket per address (new connections, new streams). Both answer in a
dictionary look-up, so a refusal costs next to nothing, and both keep a bounded number of addresses. `Storms`
joins them: an address making calls past its rate is shut out for a pause that doubles (Hellos, watches).

The open-file limit bounds the connections a process can hold: `raise_open_file_limit` raises it to the
hard limit at start, and `descriptor_headroom` says what is left of it. Both edges import this module: it
imports neither gRPC nor the web framework.
"""

from __future__ import annotations

import enum
import functools
import ipaddress
import itertools
import os
import resource
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Optional

UNLIMITED_FILES = 1 << 20  # what an unlimited open-file limit counts as
SILENT_SCAN = 16  # the oldest clients open to eviction looked at for one that has sent nothing unread


@dataclass(frozen=True)
class ClientKey:
    """What a client counts against: its address ('ipv4:1.2.3.4', or its IPv6 /64 'ipv6:2001:db8:1:2::/64') and
    its network ('ipv4:1.2.3.0/24', 'ipv6:2001:db8:1::/48'). A client that is no IP address (a Unix socket,
    'unknown') is its own address and its own network."""

    address: str
    network: str

    @classmethod
    def of(cls, host: str) -> ClientKey:
        """The key of a host: an IP address (its IPv6 zone dropped, an IPv4-mapped IPv6 address as the IPv4
        address it maps), or anything else as itself."""
        try:
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return cls(host, host)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if isinstance(ip, ipaddress.IPv6Address):
            return cls(_labelled(ip, 64), _labelled(ip, 48))
        return cls(f"ipv4:{ip}", _labelled(ip, 24))

    @classmethod
    def as_given(cls, host: str) -> ClientKey:
        """A client counted by its address exactly as written (no network of its own beyond it)."""
        return cls(host, host)

    @classmethod
    def of_peer(cls, peer: str) -> ClientKey:
        """The key of a gRPC peer ('ipv4:1.2.3.4:5678', 'ipv6:[::1]:5678'), or of a key's own address as the
        gate names its connections ('ipv4:1.2.3.4', 'ipv6:2001:db8:1:2::/64'); anything else (a Unix socket)
        is itself. Remembered for the last `KEYS_CACHED` peers (a call in a loop costs a look-up, not a parse)."""
        return _key_of_peer(peer)


KEYS_CACHED = 4096  # gRPC peers whose ClientKey is remembered


@functools.lru_cache(maxsize=KEYS_CACHED)
def _key_of_peer(peer: str) -> ClientKey:
    """ClientKey.of_peer, parsed."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return ClientKey(peer, peer)
    if ":" in rest and not peer.endswith("/64"):  # a peer with its port
        host = rest.rsplit(":", 1)[0].strip("[]") if kind == "ipv6" or rest.count(":") == 1 else rest
        return ClientKey.of(host)
    return ClientKey(peer, ClientKey.of(rest.rsplit("/", 1)[0]).network)


def _labelled(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, prefix: int) -> str:
    """'ipv4:1.2.3.0/24': the network of `prefix` bits around an address, with its version."""
    return f"ipv{ip.version}:{ipaddress.ip_network((ip, prefix), strict=False)}"


class Refusal(enum.Enum):
    """The cap a client would go over."""

    ADDRESS = "address"
    NETWORK = "network"
    TOTAL = "total"


@dataclass(frozen=True)
class Caps:
    """A budget's caps: clients per address, per network (None: no cap) and in all (None: no cap); of the
    total, `reserve` places that clients open to eviction may not take."""

    per_address: int
    per_network: Optional[int] = None
    total: Optional[int] = None
    reserve: int = 0


@dataclass(frozen=True)
class _Evictable:
    """A client that may be closed to make room: since when, and how to close it."""

    since: float
    close: Callable[[], None]
    pace: Optional[Callable[[], float]] = None  # how fast it sends now (bytes a second); None: not sending
    key: Optional[ClientKey] = None  # whom it counts against (a sender is evicted only for a smaller holder)
    spoke: Optional[Callable[[], bool]] = None  # whether it has sent what is not read yet (then it is passed over)



class Budget:
    """Clients counted per address, per network and in all, under `Caps`. Clients open to eviction are kept
    oldest first: when the total is reached, or their share of it (the total less the reserve), the oldest of
    them is closed to make room for a newcomer."""

    def __init__(self, caps: Caps, waiting_grace_s: float = 0.0) -> None:
        self.caps = caps
        # a client that has not shown who it is yet goes before those sending only once it has waited this long
        # (since its `since`, on time.monotonic's clock): a visitor's request comes at once, and is not taken
        # for a slow one in the moment before it does
        self.waiting_grace_s = waiting_grace_s
        self.by_address: Counter[str] = Counter()
        self.by_network: Counter[str] = Counter()
        self.count = 0  # clients counted now
        self.evicted = 0  # clients closed to make room, or for their age
        self._evictable: dict[Hashable, _Evictable] = {}  # a client's handle -> how to close it, oldest first
        self._sending: dict[Hashable, _Evictable] = {}  # ... of those sending at a pace (the slowest goes first)

    @property
    def full(self) -> bool:
        """Whether the total is reached."""
        return self.caps.total is not None and self.count >= self.caps.total

    @property
    def evictable(self) -> int:
        """Clients now open to eviction."""
        return len(self._evictable) + len(self._sending)

    def over_cap(self, key: ClientKey) -> Optional[Refusal]:
        """The cap a client from `key` would go over now: its address's, then its network's (None: neither)."""
        if self.by_address[key.address] >= self.caps.per_address:
            return Refusal.ADDRESS
        if self.caps.per_network is not None and self.by_network[key.network] >= self.caps.per_network:
            return Refusal.NETWORK
        return None

    def admit(self, key: ClientKey) -> Optional[Refusal]:
        """Count a client from `key`; or the cap it is over (its address's, its network's, the total), and it is
        not counted. The total refuses only when the oldest client open to eviction cannot make room."""
        refusal = self.over_cap(key)
        if refusal is None and not self._make_room(key):
            refusal = Refusal.TOTAL
        if refusal is None:
            self.count += 1
            self.by_address[key.address] += 1
            self.by_network[key.network] += 1
        return refusal

    def leave(self, key: ClientKey) -> None:
        """A client from `key` is gone: counted out."""
        self.count -= 1
        for counter, bucket in ((self.by_address, key.address), (self.by_network, key.network)):
            counter[bucket] -= 1
            if counter[bucket] <= 0:
                del counter[bucket]

    def open_to_eviction(self, client: Hashable, close: Callable[[], None], since: float = 0.0,
                         pace: Optional[Callable[[], float]] = None, key: Optional[ClientKey] = None,
                         spoke: Optional[Callable[[], bool]] = None) -> None:
        """A counted client (`client`: its handle) may be closed to make room, after those before it; `close`
        closes it (it is counted out when it leaves). With `pace` (what it sends a second now) it is one of those
        sending: closed only when none is left that has not shown who it is, the slowest first, and only for a
        newcomer whose address holds at least two fewer than its own (`key`'s), so that a crowd's clients,
        closed, cannot take each other's places in an endless round while a visitor always finds one. With `spoke`
        (whether it has sent bytes its server has not read yet), one that has is passed over: its server is only
        late to read it (a busy server's visitor is not taken for a slow one)."""
        self.spare(client)
        (self._evictable if pace is None else self._sending)[client] = _Evictable(since, close, pace, key, spoke)

    def spare(self, client: Hashable) -> None:
        """`client` is no longer open to eviction (it has shown who it is, sent what it had to, or it is gone)."""
        self._evictable.pop(client, None)
        self._sending.pop(client, None)

    def evict_oldest(self, newcomer: Optional[ClientKey] = None) -> bool:
        """Close the oldest client open to eviction that is not sending (once it has waited `waiting_grace_s`),
        else the slowest sending (one `newcomer` may take the place of), else the oldest not sending; False when
        there is none."""
        oldest = self._oldest_silent()
        waited = oldest is not None and self._evictable[oldest].since <= time.monotonic() - self.waiting_grace_s
        slowest = None if waited else self._slowest_for(newcomer)
        victim = slowest if slowest is not None else oldest
        if victim is None:
            return False
        self._evict(victim)
        return True

    def _oldest_silent(self) -> Optional[Hashable]:
        """The oldest client not sending that has sent nothing unread (among the `SILENT_SCAN` oldest)."""
        for client, held in itertools.islice(self._evictable.items(), SILENT_SCAN):
            if held.spoke is None or not held.spoke():
                return client
        return None

    def _slowest_for(self, newcomer: Optional[ClientKey]) -> Optional[Hashable]:
        """The slowest client sending whose address holds at least two more than `newcomer`'s (any, without)."""
        held = self.by_address[newcomer.address] if newcomer is not None else -2
        candidates = [client for client, sending in self._sending.items()
                      if sending.key is None or self.by_address[sending.key.address] > held + 1]
        return min(candidates, key=self._pace_of) if candidates else None

    def evict_older_than(self, cutoff: float) -> None:
        """Close every client open to eviction since before `cutoff`."""
        for client, held in list(self._evictable.items()):
            if held.since < cutoff:
                self._evict(client)

    def _pace_of(self, client: Hashable) -> float:
        pace = self._sending[client].pace
        return pace() if pace is not None else 0.0

    def _evict(self, client: Hashable) -> None:
        held = self._evictable.pop(client, None) or self._sending.pop(client)
        self.evicted += 1
        held.close()

    def _make_room(self, newcomer: Optional[ClientKey] = None) -> bool:
        """When the total is reached, or the evictable share of it, close the oldest client open to eviction;
        False when the total is reached and none could be closed."""
        total = self.caps.total
        if total is None or (self.count < total and self.evictable < total - self.caps.reserve):
            return True
        return self.evict_oldest(newcomer) or self.count < total


MAX_TRACKED = 65_536  # addresses (and networks) a Strikes or Rates keeps at most; past it, the oldest quarter goes


def _trim(table: dict[str, Any]) -> None:
    """Keep a per-address table bounded: past MAX_TRACKED entries, drop the oldest quarter (insertion order)."""
    if len(table) >= MAX_TRACKED:
        for stale in list(itertools.islice(table, MAX_TRACKED // 4)):
            del table[stale]


@dataclass
class _Record:
    failures: int = 0
    last: float = 0.0
    until: float = 0.0  # shut until then


class Strikes:
    """Failures (wrong tokens) per address and per network. An address's first `free` failures cost it nothing;
    each one after shuts it out for a pause that doubles from `first_pause_s` up to `max_pause_s`; a network
    (an IPv4 /24, an IPv6 /48: many addresses of one owner) has `network_factor` times the free failures (or
    `network_free`).
    Failures are forgotten after `forget_s` without one. A success forgets nothing (one good token does not
    buy more guesses at another)."""

    def __init__(self, free: int = 8, first_pause_s: float = 1.0, max_pause_s: float = 300.0,
                 forget_s: float = 600.0, network_factor: int = 4, network_free: Optional[int] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free, self.first_pause_s, self.max_pause_s = free, first_pause_s, max_pause_s
        self.network_free = network_free if network_free is not None else free * network_factor
        self.forget_s, self.clock = forget_s, clock
        self._records: dict[str, _Record] = {}

    def shut_for(self, key: ClientKey) -> float:
        """Seconds `key`'s address (or its network) is still shut out; 0.0 when it may try."""
        now = self.clock()
        left = 0.0
        for bucket in (key.address, key.network):
            record = self._records.get(bucket)
            if record is not None:
                left = max(left, record.until - now)
        return left

    def failed(self, key: ClientKey) -> float:
        """Count a failure from `key`; the seconds it is now shut out for (0.0 while it had free ones left)."""
        now = self.clock()
        self._fail(key.address, self.free, now)
        if key.network != key.address:
            self._fail(key.network, self.network_free, now)
        return self.shut_for(key)

    def _fail(self, bucket: str, free: int, now: float) -> None:
        record = self._records.pop(bucket, None)  # (put back last: the table stays oldest first)
        if record is None or now - record.last > self.forget_s:
            _trim(self._records)
            record = _Record()
        record.failures += 1
        record.last = now
        over = record.failures - free
        if over > 0:
            record.until = now + min(self.first_pause_s * 2.0 ** min(over - 1, 30), self.max_pause_s)
        self._records[bucket] = record


class Rates:
    """A token bucket per address: `burst` at once, then `per_s` a second (new connections, new streams)."""

    def __init__(self, per_s: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_s, self.burst, self.clock = per_s, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when counted)

    def take(self, address: str) -> bool:
        """One for `address`, if its bucket has one."""
        now = self.clock()
        found = self._buckets.pop(address, None)
        if found is None:
            _trim(self._buckets)
            tokens = float(self.burst)
        else:
            tokens = min(float(self.burst), found[0] + (now - found[1]) * self.per_s)
        taken = tokens >= 1.0
        self._buckets[address] = (tokens - 1.0 if taken else tokens, now)
        return taken


class Storms:
    """New calls (streams, watches) per address at a rate (`Rates`: `burst` at once, then `per_s` a second); an
    address past it is shut out for a pause that doubles from `first_pause_s` up to a minute, and its network
    (an IPv4 /24, an IPv6 /48) too once 8 of its addresses were (`Strikes`). A refusal is two look-ups."""

    def __init__(self, per_s: float, burst: int, first_pause_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rates = Rates(per_s, burst, clock)
        self.strikes = Strikes(free=0, first_pause_s=first_pause_s, max_pause_s=60.0, forget_s=120.0,
                               network_free=8, clock=clock)

    def shut_for(self, key: ClientKey) -> float:
        """Seconds `key`'s address (or its network) is still shut out; 0.0 when it may call."""
        return self.strikes.shut_for(key)

    def take(self, key: ClientKey) -> float:
        """One new call from `key`: 0.0 when it may go on; else the seconds it is shut out for (a call past its
        rate shuts it out)."""
        shut = self.strikes.shut_for(key)
        if shut > 0:
            return shut
        if self.rates.take(key.address):
            return 0.0
        return self.strikes.failed(key)


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit to its hard limit (to `UNLIMITED_FILES` when that is
    unlimited); returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, UNLIMITED_FILES)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return _in_force(soft)


def open_descriptors() -> int:
    """How many file descriptors this process has open."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def descriptor_headroom() -> int:
    """Descriptors this process may still open before its limit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return _in_force(soft) - open_descriptors()


def _in_force(soft: int) -> int:
    """A soft open-file limit as a number (an unlimited one as `UNLIMITED_FILES`)."""
    return int(soft) if soft != resource.RLIM_INFINITY else UNLIMITED_FILES
