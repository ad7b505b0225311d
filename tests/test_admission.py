"""arena.admission: the keys clients count against, the budget that counts them, calls at a rate, the open-file
limit."""

from __future__ import annotations

import resource

import pytest

from arena.admission import (
    UNLIMITED_FILES,
    Budget,
    Caps,
    ClientKey,
    Refusal,
    Storms,
    descriptor_headroom,
    raise_open_file_limit,
)


@pytest.mark.parametrize(("host", "address", "network"), [
    ("1.2.3.4", "ipv4:1.2.3.4", "ipv4:1.2.3.0/24"),
    ("2001:db8:1:2:3:4:5:6", "ipv6:2001:db8:1:2::/64", "ipv6:2001:db8:1::/48"),
    ("fe80::1%eth0", "ipv6:fe80::/64", "ipv6:fe80::/48"),  # the zone is no part of the address
    ("::ffff:1.2.3.4", "ipv4:1.2.3.4", "ipv4:1.2.3.0/24"),  # an IPv4-mapped IPv6 address is the IPv4 one
    ("::1", "ipv6:::/64", "ipv6:::/48"),
    ("unknown", "unknown", "unknown"),
    ("unix:/run/arena/x", "unix:/run/arena/x", "unix:/run/arena/x"),
])
def test_a_host_counts_against_its_address_and_its_network(host: str, address: str, network: str) -> None:
    assert ClientKey.of(host) == ClientKey(address, network)


def test_neighbours_share_a_network_and_not_an_address() -> None:
    assert ClientKey.of("1.2.3.4").network == ClientKey.of("1.2.3.200").network
    assert ClientKey.of("1.2.3.4").address != ClientKey.of("1.2.3.200").address
    assert ClientKey.of("2001:db8:1:2::1").address == ClientKey.of("2001:db8:1:2::ffff").address  # one /64
    assert ClientKey.of("2001:db8:1:2::1").network == ClientKey.of("2001:db8:1:ff::1").network  # one /48
    assert ClientKey.of("2001:db8:1:2::1").address != ClientKey.of("2001:db8:1:ff::1").address


@pytest.mark.parametrize(("peer", "address", "network"), [
    ("ipv4:1.2.3.4:5678", "ipv4:1.2.3.4", "ipv4:1.2.3.0/24"),
    ("ipv6:[2001:db8:1:2::9]:5678", "ipv6:2001:db8:1:2::/64", "ipv6:2001:db8:1::/48"),
    ("ipv6:[::ffff:1.2.3.4]:5678", "ipv4:1.2.3.4", "ipv4:1.2.3.0/24"),
    ("ipv4:1.2.3.4", "ipv4:1.2.3.4", "ipv4:1.2.3.0/24"),  # as the gate names its connections
    ("ipv6:2001:db8:1:2::/64", "ipv6:2001:db8:1:2::/64", "ipv6:2001:db8:1::/48"),
    ("unix:/run/arena/bot.sock", "unix:/run/arena/bot.sock", "unix:/run/arena/bot.sock"),
])
def test_a_grpc_peer_counts_as_its_host(peer: str, address: str, network: str) -> None:
    assert ClientKey.of_peer(peer) == ClientKey(address, network)


def test_a_key_as_given_is_its_own_network() -> None:
    assert ClientKey.as_given("2001:db8::1") == ClientKey("2001:db8::1", "2001:db8::1")


def test_the_address_cap_then_the_network_cap() -> None:
    budget = Budget(Caps(per_address=2, per_network=3))
    first, neighbour = ClientKey.of("10.0.0.1"), ClientKey.of("10.0.0.2")
    assert budget.admit(first) is None and budget.admit(first) is None
    assert budget.admit(first) is Refusal.ADDRESS
    assert budget.admit(neighbour) is None
    assert budget.admit(neighbour) is Refusal.NETWORK
    assert budget.admit(ClientKey.of("10.0.1.1")) is None  # another network
    assert budget.count == 4 and budget.by_address == {first.address: 2, neighbour.address: 1,
                                                       ClientKey.of("10.0.1.1").address: 1}


def test_leaving_gives_the_place_back_and_forgets_empty_buckets() -> None:
    budget = Budget(Caps(per_address=1, per_network=1, total=1))
    client = ClientKey.of("10.0.0.1")
    assert budget.admit(client) is None
    assert budget.full and budget.admit(ClientKey.of("10.9.9.9")) is Refusal.TOTAL
    budget.leave(client)
    assert budget.count == 0 and not budget.by_address and not budget.by_network and not budget.full
    assert budget.admit(client) is None


def test_no_network_cap_and_no_total_when_none_is_set() -> None:
    budget = Budget(Caps(per_address=1))
    for n in range(300):
        assert budget.admit(ClientKey.of(f"10.0.{n // 250}.{n % 250}")) is None
    assert not budget.full


def test_a_full_budget_evicts_its_oldest_open_client_for_a_newcomer() -> None:
    closed: list[str] = []
    budget = Budget(Caps(per_address=10, total=2))
    for name in ("a", "b"):
        assert budget.admit(ClientKey.of(name)) is None
        budget.open_to_eviction(name, lambda name=name: closed.append(name))
    assert budget.admit(ClientKey.of("c")) is None  # "a" is closed to make room
    assert closed == ["a"] and budget.evicted == 1 and budget.evictable == 1
    budget.spare("b")  # "b" showed who it is
    budget.leave(ClientKey.of("a"))  # (the closed one leaves in its own time)
    assert budget.admit(ClientKey.of("d")) is Refusal.TOTAL  # full, and none open to eviction
    assert closed == ["a"]


def test_a_full_budget_evicts_those_without_headers_first_then_the_slowest_sender() -> None:
    closed: list[str] = []
    budget = Budget(Caps(per_address=10, total=3))
    paces = {"fast": 50_000.0, "slow": 3.0}
    for name in ("fast", "slow", "waiting"):
        assert budget.admit(ClientKey.of(name)) is None
    for name, pace in paces.items():  # (sending a body: closed only after any still to send headers)
        budget.open_to_eviction(name, lambda name=name: closed.append(name), pace=lambda pace=pace: pace)
    budget.open_to_eviction("waiting", lambda: closed.append("waiting"))
    assert budget.evictable == 3
    assert budget.admit(ClientKey.of("new")) is None and closed == ["waiting"]
    budget.leave(ClientKey.of("waiting"))
    assert budget.admit(ClientKey.of("newer")) is None and closed == ["waiting", "slow"]
    budget.spare("fast")  # its body is in
    budget.leave(ClientKey.of("slow"))
    assert budget.admit(ClientKey.of("newest")) is Refusal.TOTAL and budget.evictable == 0


def test_a_client_without_headers_goes_before_a_slow_sender_only_once_it_has_waited() -> None:
    import time

    closed: list[str] = []
    budget = Budget(Caps(per_address=10, total=2), waiting_grace_s=3600.0)
    for name in ("sending", "fresh"):
        assert budget.admit(ClientKey.of(name)) is None
    budget.open_to_eviction("sending", lambda: closed.append("sending"), pace=lambda: 1.0)
    budget.open_to_eviction("fresh", lambda: closed.append("fresh"), since=time.monotonic())
    assert budget.admit(ClientKey.of("new")) is None and closed == ["sending"]  # the fresh one is spared
    budget.leave(ClientKey.of("sending"))
    assert budget.admit(ClientKey.of("newer")) is None and closed == ["sending", "fresh"]  # (none else left)


def test_a_client_whose_bytes_wait_unread_is_passed_over() -> None:
    """A busy server is only late to read a visitor's request: a client that has sent bytes not yet read is not
    taken for one that sends nothing; the next oldest silent one goes, or a slow sender."""
    closed: list[str] = []
    budget = Budget(Caps(per_address=10, total=3))
    for name in ("visitor", "silent", "sending"):
        assert budget.admit(ClientKey.of(name)) is None
    budget.open_to_eviction("visitor", lambda: closed.append("visitor"), spoke=lambda: True)
    budget.open_to_eviction("silent", lambda: closed.append("silent"), spoke=lambda: False)
    budget.open_to_eviction("sending", lambda: closed.append("sending"), pace=lambda: 1.0)
    assert budget.admit(ClientKey.of("new")) is None and closed == ["silent"]
    budget.leave(ClientKey.of("silent"))
    assert budget.admit(ClientKey.of("newer")) is None and closed == ["silent", "sending"]


def test_a_sender_makes_room_only_for_a_newcomer_whose_address_holds_two_fewer() -> None:
    closed: list[str] = []
    budget = Budget(Caps(per_address=10, total=4))
    crowd = [ClientKey.of("10.0.0.1")] * 2 + [ClientKey.of("10.0.0.2")] * 2
    for n, key in enumerate(crowd):
        assert budget.admit(key) is None
        budget.open_to_eviction(n, lambda n=n: closed.append(f"{n}"), pace=lambda n=n: float(n), key=key)
    assert budget.admit(ClientKey.of("10.0.0.2")) is Refusal.TOTAL  # 2 against 2: no endless round of a crowd
    assert budget.admit(ClientKey.of("10.0.0.9")) is None and closed == ["0"]  # a visitor: the slowest goes


def test_the_address_cap_refuses_before_anyone_is_evicted() -> None:
    closed: list[str] = []
    budget = Budget(Caps(per_address=1, total=1))
    assert budget.admit(ClientKey.of("a")) is None
    budget.open_to_eviction("a", lambda: closed.append("a"))
    assert budget.admit(ClientKey.of("a")) is Refusal.ADDRESS
    assert closed == [] and budget.evicted == 0


def test_a_reserve_keeps_part_of_the_total_from_clients_open_to_eviction() -> None:
    closed: list[int] = []
    budget = Budget(Caps(per_address=100, total=10, reserve=4))
    for n in range(6):  # the evictable share: 10 less 4
        assert budget.admit(ClientKey.of(f"10.0.0.{n}")) is None
        budget.open_to_eviction(n, lambda n=n: closed.append(n))
    assert budget.admit(ClientKey.of("10.0.0.99")) is None  # room made in the share, though the total is not reached
    assert closed == [0] and budget.count == 7


def test_clients_open_to_eviction_past_their_age_are_closed() -> None:
    closed: list[str] = []
    budget = Budget(Caps(per_address=10))
    for name, since in (("old", 1.0), ("new", 5.0)):
        budget.admit(ClientKey.of(name))
        budget.open_to_eviction(name, lambda name=name: closed.append(name), since=since)
    budget.evict_older_than(3.0)
    assert closed == ["old"] and budget.evicted == 1 and budget.evictable == 1
    assert budget.evict_oldest() and closed == ["old", "new"]


def test_evicting_with_none_open_to_eviction_does_nothing() -> None:
    budget = Budget(Caps(per_address=1))
    assert not budget.evict_oldest() and budget.evicted == 0


def test_the_open_file_limit_is_raised_to_the_hard_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no hard open-file limit here to raise the soft one to")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 256), hard))
        assert raise_open_file_limit() == resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard
        assert 0 < descriptor_headroom() < hard
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_an_unlimited_open_file_limit_counts_as_a_number(monkeypatch: pytest.MonkeyPatch) -> None:
    unlimited = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
    monkeypatch.setattr(resource, "getrlimit", lambda _which: unlimited)
    assert raise_open_file_limit() == UNLIMITED_FILES


def test_calls_past_their_rate_shut_the_address_out_for_a_pause_that_doubles() -> None:
    now = [0.0]
    storms = Storms(per_s=1.0, burst=3, clock=lambda: now[0])
    caller, neighbour = ClientKey.of("10.0.0.1"), ClientKey.of("10.0.0.2")
    assert [storms.take(caller) for _ in range(3)] == [0.0, 0.0, 0.0]  # the burst
    assert storms.take(caller) == 1.0 and storms.shut_for(caller) == 1.0  # past it: shut for a second
    assert storms.take(caller) == 1.0  # a call while shut is refused and costs no more
    assert storms.take(neighbour) == 0.0  # another address of its network calls as before
    now[0] = 1.5  # the pause is over; 1.5 s refilled one call and a half
    assert storms.take(caller) == 0.0
    assert storms.take(caller) == 2.0  # the next pause doubles
    assert storms.shut_for(ClientKey.of("10.0.0.3")) == 0.0
