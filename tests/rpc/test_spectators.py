"""Spectators cost no bot its clock: a match under a flood of anonymous watchers plays to its end with no clock
fault; the watchers admitted (within the caps per address, per network and in all) see every step and the
result; the others are refused at once with the reason; the admin token is not counted; a watcher whose client
reads nothing is dropped; nothing is left counted once they are gone; an address calling in a loop is shut out,
its reconnections refused at the gate."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest

from arena.bots import BUILTIN_BOTS
from arena.referee.clock import ClockSettings
from arena.rpc import admin as admin_module
from arena.rpc.background import BackgroundReferee
from arena.rpc.generated import admin_pb2, admin_pb2_grpc
from arena.rpc.server import ServerConfig
from arena.rpc.config import SpectatorLimits
from arena.admission import ClientKey, Storms
from arena.rpc.spectators import WATCH_BURST, WATCHES_PER_S, network_key
from bench.network import SourceAddresses

SLOW_BOTS = Path(__file__).resolve().parents[1] / "web" / "bots"  # random moves after 0.1 s each
LIMITS = SpectatorLimits(total=64, per_address=4, per_network=12, unbatched=8)
# tight: a decision of 0.1 s has 0.3 s + 0.25 s of grace; a watcher that delays it 0.45 s costs the match
CLOCK = ClockSettings(move_time_s=0.3, bank_s=0.0, grace_s=0.25)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[BackgroundReferee]:
    bots = tmp_path / "bots"
    shutil.copytree(SLOW_BOTS, bots)
    config = ServerConfig(port=0, bot_dirs=(bots, BUILTIN_BOTS), results_dir=None, clock=CLOCK,
                          startup_timeout_s=60.0, spectators=LIMITS)
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server


def test_network_keys() -> None:
    assert network_key("ipv4:127.0.3.9") == "ipv4:127.0.3.0/24"
    assert network_key("ipv6:2001:db8:1:2::/64") == "ipv6:2001:db8:1::/48"
    assert network_key("unix:/run/x") == "unix:/run/x"


async def _watch(target: str, match_id: str, token: str | None = None, batched: bool = True) -> tuple[str, int, bool]:
    """(status, steps seen, saw the result) of one watcher through `target`."""
    steps, finished = 0, False
    metadata = (("authorization", f"Bearer {token}"),) if token else None
    request = admin_pb2.WatchMatchRequest(match_id=match_id, batched=batched)
    async with grpc.aio.insecure_channel(target) as channel:
        stub = admin_pb2_grpc.RefereeAdminStub(channel)
        try:
            numbers: list[int] = []
            async for event in stub.WatchMatch(request, metadata=metadata):
                kind = event.WhichOneof("kind")
                numbers += [step.n for step in event.steps.steps] if kind == "steps" else [event.step.n] if kind == "step" else []
                finished = finished or kind == "finished"
            assert numbers == list(range(len(numbers)))  # every step once, in order
            steps = len(numbers)
        except grpc.aio.AioRpcError as error:
            return f"{error.code().name}: {error.details()}", steps, finished
    return "OK", steps, finished


def test_a_flood_of_anonymous_watchers_costs_no_seat_its_clock(referee: BackgroundReferee) -> None:
    host, port = referee.address.rsplit(":", 1)
    # 8 networks (/24s) of 3 addresses, each address trying 8 watchers: 192 tries, past every cap
    addresses = [f"127.0.{network}.{host_part}" for network in range(1, 9) for host_part in (2, 3, 4)]

    async def start() -> Any:
        return referee.server.start_match("major-general", ["slow", "slow"], seed=5)

    live = referee.call(start())

    async def flood() -> list[tuple[str, int, bool]]:
        async with SourceAddresses(host, int(port), addresses) as entrances:
            watchers = [_watch(entrances[address], live.match_id, batched=index % 4 != 0)
                        for address in addresses for index in range(8)]
            return list(await asyncio.gather(*watchers,
                                             _watch(referee.address, live.match_id, referee.admin_token, False)))

    results = asyncio.run(flood())
    record = live.task.result() if live.task is not None and live.task.done() else None
    assert record is not None and record.result is not None
    assert record.result.reason == "score", record.result  # no clock fault, however many watch
    steps = len(record.steps)
    admitted = [result for result in results if result[0] == "OK"]
    refused = [result for result in results if result[0] != "OK"]
    # the caps: 4 per address, 12 per network (3 addresses: 12), 64 in all; the admin's own watcher on top
    assert len(admitted) == LIMITS.total + 1, (len(admitted), len(refused))
    assert all(seen == steps and finished for _status, seen, finished in admitted)
    assert all(status.startswith("RESOURCE_EXHAUSTED") and "anonymous watchers" in status
               for status, _seen, _finished in refused)
    assert any("from one address" in status for status, _s, _f in refused)
    assert any("has its 64 anonymous watchers" in status for status, _s, _f in refused)
    assert any("that take a message per step" in status for status, _s, _f in refused)
    assert referee.server.spectators.watching == 0  # every one counted out again


def test_the_caps_per_network_hold_across_its_addresses(referee: BackgroundReferee) -> None:
    host, port = referee.address.rsplit(":", 1)
    addresses = [f"127.0.9.{host_part}" for host_part in range(2, 8)]  # 6 addresses of one /24

    async def start() -> Any:
        return referee.server.start_match("major-general", ["slow", "slow"], seed=6)

    live = referee.call(start())

    async def watch_all() -> list[tuple[str, int, bool]]:
        async with SourceAddresses(host, int(port), addresses) as entrances:
            return list(await asyncio.gather(*(_watch(entrances[address], live.match_id)
                                               for address in addresses for _ in range(3))))

    results = asyncio.run(watch_all())
    admitted = [result for result in results if result[0] == "OK"]
    assert len(admitted) == LIMITS.per_network  # 18 tries of 3 each from 6 addresses: 12 let in
    assert all("from one network" in status for status, _s, _f in results if status != "OK")


class StalledClient:
    """A watcher's call whose client reads nothing: every write waits forever."""

    def __init__(self) -> None:
        self.written = 0
        self.aborted: tuple[Any, str] | None = None

    def invocation_metadata(self) -> tuple[()]:
        return ()

    def peer(self) -> str:
        return "ipv4:127.0.0.7:40000"

    async def write(self, message: Any) -> None:
        if self.written >= 3:
            await asyncio.Event().wait()
        self.written += 1

    async def abort(self, code: Any, details: str) -> None:
        self.aborted = (code, details)
        raise asyncio.CancelledError


def test_a_watcher_whose_client_reads_nothing_is_dropped_and_counted_out(
        referee: BackgroundReferee, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admin_module, "WATCHER_WRITE_TIMEOUT_S", 0.3)

    async def watch_stalled() -> StalledClient:
        live = referee.server.start_match("major-general", ["slow", "slow"], seed=7)
        client = StalledClient()
        service = admin_module.AdminService(referee.server)
        try:
            await service.WatchMatch(admin_pb2.WatchMatchRequest(match_id=live.match_id), client)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            pass
        assert referee.server.spectators.watching == 0
        assert live.task is not None
        record = await live.task  # the match went on, unaffected
        assert record.result is not None and record.result.reason == "score"
        return client

    client = referee.call(watch_stalled())
    assert client.written == 3 and client.aborted is not None
    code, details = client.aborted
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "read nothing for 0.3s" in details


class CountedMessages:
    """arena.rpc.generated.admin_pb2 as the feed sees it, counting the MatchEvents it builds (each is serialized)."""

    def __init__(self) -> None:
        self.built = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(admin_pb2, name)

    def MatchEvent(self, **fields: Any) -> Any:  # noqa: N802 - the message's own name
        if "header" not in fields:  # (the header is each watcher's own)
            self.built += 1
        return admin_pb2.MatchEvent(**fields)


def test_watchers_are_sent_the_one_serialized_feed(referee: BackgroundReferee, monkeypatch: pytest.MonkeyPatch) -> None:
    """48 watchers through gRPC (8 of them a message a step) see every step, and what the referee serialized for them does not grow with
    them: at most a step event, a newest step and a batch per step played (a flush), and one catch-up per
    watcher; 48 watchers of a message each per step would have needed far more."""
    from arena.rpc import spectators

    counted = CountedMessages()
    monkeypatch.setattr(spectators, "admin_pb2", counted)
    host, port = referee.address.rsplit(":", 1)
    addresses = [f"127.0.{network}.{host_part}" for network in range(1, 9) for host_part in (2, 3, 4)]
    live = referee.call(_started(referee))

    async def watch() -> list[tuple[str, int, bool]]:
        async with SourceAddresses(host, int(port), addresses) as entrances:
            targets = [entrances[address] for address in addresses for _twice in range(2)]
            return list(await asyncio.gather(*[_watch(target, live.match_id, batched=number >= LIMITS.unbatched)
                                               for number, target in enumerate(targets)]))

    results = asyncio.run(watch())
    record = live.task.result() if live.task is not None and live.task.done() else None
    assert record is not None and record.result is not None
    steps = len(record.steps)
    assert len(results) == 48 and all(result == ("OK", steps, True) for result in results), results
    assert counted.built <= 3 * (steps + 2) + 48 + 1, (counted.built, steps)
    assert counted.built < steps * 48 // 4  # (a serialization a watcher and step: steps * 48)


async def _started(referee: BackgroundReferee) -> Any:
    return referee.server.start_match("major-general", ["slow", "slow"], seed=11)


async def _watch_code(channel: grpc.aio.Channel, match_id: str) -> tuple[grpc.StatusCode, str]:
    """The status one WatchMatch call ends with, and its details."""
    stub = admin_pb2_grpc.RefereeAdminStub(channel)
    try:
        async for _event in stub.WatchMatch(admin_pb2.WatchMatchRequest(match_id=match_id), timeout=30):
            pass
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


def test_a_watcher_calling_in_a_loop_is_shut_out_at_the_gate_and_a_neighbour_still_watches() -> None:
    """A watcher retrying WatchMatch in a loop (every refused call cost the referee a few hundred microseconds):
    past its burst its calls are refused before the match is looked up, its connection is closed and its
    reconnections are refused at the gate; another address of its network still calls; nothing is counted."""
    config = ServerConfig(port=0, bot_dirs=(), results_dir=None)
    caller, neighbour = "127.0.5.2", "127.0.5.3"
    with BackgroundReferee(config, drain_s=0.0) as referee:
        host, port = referee.address.rsplit(":", 1)
        # (a pause a busy machine cannot outlast between the loop and the checks: the default's first is 1 s)
        referee.server.spectators.storms = Storms(WATCHES_PER_S, WATCH_BURST, first_pause_s=60.0)

        async def loop() -> tuple[list[tuple[grpc.StatusCode, str]], grpc.StatusCode, grpc.StatusCode]:
            async with SourceAddresses(host, int(port), [caller, neighbour]) as entrances:
                codes: list[tuple[grpc.StatusCode, str]] = []
                async with grpc.aio.insecure_channel(entrances[caller]) as channel:
                    while len(codes) < 3 * WATCH_BURST and grpc.StatusCode.RESOURCE_EXHAUSTED not in (
                            code for code, _ in codes):
                        codes.append(await _watch_code(channel, "no-such-match"))
                async with grpc.aio.insecure_channel(entrances[caller], options=[
                        ("grpc.use_local_subchannel_pool", 1)]) as again:  # its reconnection: refused at the gate
                    reconnected = (await _watch_code(again, "no-such-match"))[0]
                async with grpc.aio.insecure_channel(entrances[neighbour]) as other:
                    near = (await _watch_code(other, "no-such-match"))[0]
                return codes, reconnected, near

        gate = referee.server.gate
        assert gate is not None
        codes, reconnected, near = asyncio.run(loop())
        looked_up = [code for code, _ in codes if code == grpc.StatusCode.NOT_FOUND]
        assert WATCH_BURST <= len(looked_up) < 3 * WATCH_BURST, codes  # its burst (and what the rate refilled)
        assert codes[-1][0] == grpc.StatusCode.RESOURCE_EXHAUSTED and "watch calls a second" in codes[-1][1], codes
        assert reconnected == grpc.StatusCode.UNAVAILABLE and gate.refused > 0  # at the gate, never reaching gRPC
        assert referee.server.spectators.shut_for(ClientKey.of(caller)) > 0
        assert near == grpc.StatusCode.NOT_FOUND  # a neighbour's call goes on to the match's look-up
        assert referee.server.spectators.watching == 0
