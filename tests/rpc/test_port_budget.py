"""The referee's network port keeps room for those who matter: with more than a hundred addresses each holding
its cap of connections (each with a health-watch stream open, as a crowd of anonymous clients would), the
operator's admin call and a remote bot's Hello still get through, and stay through; anonymous connections over
their share are closed oldest first; and a launched bot that opens streams in a loop on its own socket is
refused past its rate, at once."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.bots import BUILTIN_BOTS
from arena.rpc import bot_service
from arena.rpc.background import BackgroundReferee
from arena.rpc.bot_service import StreamRate
from arena.rpc.client import AdminClient
from arena.rpc.generated import bot_pb2
from arena.rpc.server import RefereeServer, ServerConfig
from arena.sandbox import SandboxSettings
from bench.network import SourceAddresses

ADDRESSES = [f"127.0.0.{host}" for host in range(2, 114)]  # 112 addresses
PER_ADDRESS = 4
TOTAL = 300
RESERVE = 30


async def hold(target: str) -> grpc.aio.Channel:
    """A connection with a health-watch stream open on it (kept until the channel closes)."""
    channel = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])  # its own connection
    stub = health_pb2_grpc.HealthStub(channel)
    call = stub.Watch(health_pb2.HealthCheckRequest(service=""))
    try:
        await asyncio.wait_for(call.read(), 10)
    except (grpc.aio.AioRpcError, TimeoutError):
        pass
    channel._arena_call = call  # type: ignore[attr-defined]  (kept alive with its channel)
    return channel


def test_a_crowd_of_addresses_at_their_caps_leaves_room_for_the_operator_and_a_remote_bot() -> None:
    config = ServerConfig(port=0, bot_dirs=(), results_dir=None, max_connections_per_peer=PER_ADDRESS,
                          max_connections_per_network=10_000, max_connections=TOTAL, reserved_connections=RESERVE)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        token = referee.register_remote("far-bot")
        host, port = referee.address.rsplit(":", 1)
        gate = referee.server.gate
        assert gate is not None

        async def crowd_then_operator() -> dict[str, Any]:
            async with SourceAddresses(host, int(port), ADDRESSES) as entrances:
                channels = await asyncio.gather(*(hold(entrances[address]) for address in ADDRESSES
                                                  for _ in range(PER_ADDRESS)))
                crowded = {"connections": gate.connections, "anonymous": gate.anonymous}
                async with AdminClient(referee.address, referee.admin_token) as admin:  # the operator
                    bots = await admin.bots()
                async with grpc.aio.insecure_channel(referee.address) as channel:  # a remote bot says Hello
                    call = channel.stream_stream("/arena.v1.Bot/Play")()
                    await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(
                        protocol_version=1, name="far-bot", token=token)).SerializeToString())
                    deadline = time.monotonic() + 30
                    while not referee.server.pool.remotes["far-bot"].idle:  # admitted: its stream waits for a match
                        assert time.monotonic() < deadline and not call.done(), "the remote bot was not admitted"
                        await asyncio.sleep(0.05)
                    seated = bool(referee.server.pool.remotes["far-bot"].idle)
                    call.cancel()
                for channel in channels:
                    await channel.close()
                return {**crowded, "bots": len(bots), "seated": seated}

        seen = asyncio.run(crowd_then_operator())
        assert seen["anonymous"] <= TOTAL - RESERVE and seen["connections"] <= TOTAL, seen
        assert seen["seated"], seen  # the operator's call answered (above) and the remote bot got its seat
        assert gate.evicted > 0 or gate.refused > 0  # the crowd asked for more than its share


def test_a_launched_bot_opening_streams_in_a_loop_is_refused_past_its_rate() -> None:
    rate = StreamRate(per_s=20, burst=100)
    assert all(rate.take() for _ in range(100))
    assert not rate.take()  # the burst is spent: refused at once, before any work
    rate.at -= 1.0  # a second later: 20 more
    assert sum(rate.take() for _ in range(40)) == 20


def test_a_stream_that_played_a_match_gives_its_place_back() -> None:
    # a bot playing short matches back to back (16 at once) opens a stream per match and seat, far past 20 a
    # second: each stream the referee seated gives its place back when it ends, so such a bot is never refused
    rate = StreamRate(per_s=20, burst=100)
    assert all(rate.take() for _ in range(100))
    for _ in range(1000):
        rate.give_back()  # the match on it ended
        assert rate.take()  # the bot's stream for its next match
    assert not rate.take()
    for _ in range(500):
        rate.give_back()
    assert sum(rate.take() for _ in range(200)) == 100  # never more than the burst


def test_a_bot_playing_matches_back_to_back_on_its_socket_is_never_refused(monkeypatch: Any) -> None:
    # the trivial bot plays 16 matches at once on one socket: 8 matches at a time, back to back, open 96 streams,
    # far past a burst of 40 and 1 a second; every one of them was asked for, so no match ends in a fault
    monkeypatch.setattr(bot_service, "STREAMS_PER_S", 1)
    monkeypatch.setattr(bot_service, "STREAM_BURST", 40)

    async def play() -> list[Any]:
        server = RefereeServer(ServerConfig(port=None, bot_dirs=[BUILTIN_BOTS], results_dir=None,
                                            sandbox=SandboxSettings(mode="none")))
        await server.start()
        try:
            async def lane(first_seed: int) -> list[Any]:
                return [(await server.run_match("major-general", ["trivial", "trivial"], seed=first_seed + n)).result
                        for n in range(6)]

            lanes = await asyncio.gather(*(lane(100 * n) for n in range(8)))
            return [result for results in lanes for result in results]
        finally:
            await server.stop(drain_s=0.0)

    results = asyncio.run(play())
    assert len(results) == 48
    assert [result for result in results if result.offender is not None] == []
