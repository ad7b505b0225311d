"""Issue 46: guessing a remote bot's token (or the referee's admin token) (192 bits: hopeless anyway) is slowed per address, and a storm of new
streams or connections from one address is refused as it opens, at the cost of a look-up; another address gets
in all the while."""

from __future__ import annotations

import asyncio
from collections import Counter

import grpc

from arena.admission import ClientKey, Rates, Storms, Strikes
from arena.rpc.background import BackgroundReferee
from arena.rpc.bot_service import HELLO_BURST, HELLOS_PER_S
from arena.rpc.admin import admin_metadata
from arena.rpc.generated import admin_pb2, admin_pb2_grpc, bot_pb2
from arena.rpc.server import ServerConfig
from bench.network import SourceAddresses

ATTACKER, NEIGHBOUR = "127.0.0.2", "127.0.0.3"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_wrong_tokens_past_the_free_ones_shut_the_address_out_for_a_pause_that_doubles() -> None:
    clock = Clock()
    strikes = Strikes(free=3, first_pause_s=1.0, max_pause_s=8.0, forget_s=600.0, network_factor=2, clock=clock)
    one, other = ClientKey.of("10.0.0.1"), ClientKey.of("10.0.0.2")
    assert [strikes.failed(one) for _ in range(3)] == [0.0, 0.0, 0.0]  # free
    assert strikes.failed(one) == 1.0 and strikes.shut_for(one) == 1.0
    assert strikes.shut_for(other) == 0.0  # another address is not affected
    pauses = []
    for _ in range(5):
        clock.now += strikes.shut_for(one)  # a patient guesser waits out each pause
        pauses.append(strikes.failed(one))
    assert pauses == [2.0, 4.0, 8.0, 8.0, 8.0]  # doubling, up to the longest
    clock.now += 8.0
    assert strikes.shut_for(one) == 0.0
    spread = [ClientKey.of(f"10.0.1.{host}") for host in range(1, 8)]  # one guess each from many addresses
    assert [strikes.failed(key) for key in spread[:6]] == [0.0] * 6  # the /24 has 2 x 3 free ones
    assert strikes.failed(spread[6]) == 1.0 and strikes.shut_for(ClientKey.of("10.0.1.99")) == 1.0  # then it is shut
    assert strikes.shut_for(ClientKey.of("10.0.2.1")) == 0.0
    clock.now += 601.0
    assert strikes.failed(spread[0]) == 0.0  # forgotten after forget_s without a failure


def test_a_rate_per_address_refuses_past_its_burst_and_refills() -> None:
    clock = Clock()
    rates = Rates(per_s=2.0, burst=5, clock=clock)
    assert [rates.take("a") for _ in range(6)] == [True] * 5 + [False]
    assert rates.take("b")  # its own bucket
    clock.now += 1.0
    assert [rates.take("a") for _ in range(3)] == [True, True, False]


async def _hello(channel: grpc.aio.Channel, name: str, token: str) -> tuple[grpc.StatusCode, str]:
    """Say Hello on a new stream; the status it ends with (OK: admitted, waiting for a match) and its details."""
    call = channel.stream_stream("/arena.v1.Bot/Play")()
    try:
        await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, token=token))
                         .SerializeToString())
        async with asyncio.timeout(1.0):
            await call.read()
    except TimeoutError:  # admitted: its stream waits for a match
        call.cancel()
        return grpc.StatusCode.OK, ""
    except grpc.aio.AioRpcError:
        pass
    return await call.code(), await call.details() or ""


def test_repeated_wrong_tokens_from_one_address_are_refused_while_another_address_gets_in() -> None:
    config = ServerConfig(port=0, bot_dirs=(), results_dir=None)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        token = referee.register_remote("far-bot")
        host, port = referee.address.rsplit(":", 1)
        # (a first pause a busy machine cannot outlast; and the attacker's connection kept open, so that its next
        # streams show the refusal's reason: by default it is closed 0.1 s after the pause begins)
        strikes = referee.server.bots.strikes = Strikes(first_pause_s=60.0)
        referee.server.bots.drop = lambda peer: None
        gate = referee.server.gate
        assert gate is not None

        async def guess_then_neighbour() -> dict[str, object]:
            async with SourceAddresses(host, int(port), [ATTACKER, NEIGHBOUR]) as entrances:
                async with grpc.aio.insecure_channel(entrances[ATTACKER]) as attacker:
                    codes = [(await _hello(attacker, "far-bot", f"{n:048x}"))[0] for n in range(strikes.free + 1)]
                    refused, details = await _hello(attacker, "far-bot", "0" * 48)
                    right_token_too, _ = await _hello(attacker, "far-bot", token)  # shut is shut
                refused_before = gate.refused
                async with grpc.aio.insecure_channel(entrances[ATTACKER], options=[
                        ("grpc.use_local_subchannel_pool", 1)]) as again:  # a new connection: refused
                    reconnected, _ = await _hello(again, "far-bot", token)
                async with grpc.aio.insecure_channel(entrances[NEIGHBOUR]) as neighbour:
                    neighbour_codes = [(await _hello(neighbour, "far-bot", token))[0],
                                       (await _hello(neighbour, "far-bot", "f" * 48))[0]]
                return {"codes": codes, "refused": refused, "details": details, "right": right_token_too,
                        "reconnected": reconnected, "gate": gate.refused - refused_before,
                        "neighbour": neighbour_codes}

        seen = asyncio.run(guess_then_neighbour())
        assert seen["codes"] == [grpc.StatusCode.UNAUTHENTICATED] * (strikes.free + 1), seen
        assert seen["refused"] == grpc.StatusCode.RESOURCE_EXHAUSTED and "too many wrong tokens" in str(
            seen["details"]), seen
        assert seen["right"] == grpc.StatusCode.RESOURCE_EXHAUSTED, seen
        assert seen["reconnected"] == grpc.StatusCode.UNAVAILABLE and seen["gate"] >= 1, seen  # at the gate
        assert seen["neighbour"] == [grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED], seen


def test_a_storm_of_hellos_from_one_address_is_refused_as_it_opens() -> None:
    """A bot reconnecting in a loop with the right token (the finding: 597 Hellos a second): past its burst its
    streams are refused as they open (their Hello never parsed), and a bot at another address still gets in."""
    config = ServerConfig(port=0, bot_dirs=(), results_dir=None)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        token = referee.register_remote("far-bot")
        host, port = referee.address.rsplit(":", 1)
        # (a pause a busy machine cannot outlast between the storm and the checks: the default's first is 1 s)
        referee.server.bots.storms = Storms(HELLOS_PER_S, HELLO_BURST, first_pause_s=60.0)

        async def storm() -> tuple[dict[grpc.StatusCode, int], grpc.StatusCode, grpc.StatusCode]:
            async with SourceAddresses(host, int(port), [ATTACKER, NEIGHBOUR]) as entrances:
                async with grpc.aio.insecure_channel(entrances[ATTACKER]) as channel:
                    async def hello_and_leave() -> grpc.StatusCode:
                        call = channel.stream_stream("/arena.v1.Bot/Play")()
                        try:
                            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(
                                protocol_version=1, name="far-bot", token=token)).SerializeToString())
                            async with asyncio.timeout(0.5):
                                await call.read()
                        except (TimeoutError, grpc.aio.AioRpcError):
                            pass
                        call.cancel()
                        return await call.code()

                    codes: dict[grpc.StatusCode, int] = {}
                    for code in await asyncio.gather(*(hello_and_leave() for _ in range(3 * HELLO_BURST))):
                        codes[code] = codes.get(code, 0) + 1
                async with grpc.aio.insecure_channel(entrances[ATTACKER], options=[
                        ("grpc.use_local_subchannel_pool", 1)]) as again:  # its reconnection: refused at the gate
                    reconnected = (await _hello(again, "far-bot", token))[0]
                async with grpc.aio.insecure_channel(entrances[NEIGHBOUR]) as neighbour:
                    other = (await _hello(neighbour, "far-bot", token))[0]
                return codes, reconnected, other

        gate = referee.server.gate
        assert gate is not None
        codes, reconnected, other = asyncio.run(storm())
        assert codes.get(grpc.StatusCode.RESOURCE_EXHAUSTED, 0) > 0, codes  # past its burst, with the reason
        admitted = codes.get(grpc.StatusCode.OK, 0) + codes.get(grpc.StatusCode.CANCELLED, 0)
        assert admitted <= HELLO_BURST + 20, codes  # (the burst, and what the rate refilled meanwhile, at most)
        assert reconnected == grpc.StatusCode.UNAVAILABLE and gate.refused > 0  # its reconnection: at the gate
        assert referee.server.bots.shut_for(ClientKey.of(ATTACKER)) > 0  # shut for a while
        assert other == grpc.StatusCode.OK


def test_admin_token_guesses_pause_the_guessing_address_alone_and_never_for_good() -> None:
    """Guessing the referee's admin token (or its viewer token) is slowed as a bot's token is: past the free
    wrong tokens, the guessing address waits a pause (even with the right token), while another address of its
    network, the operator's say, calls as before; and the pause ends."""
    config = ServerConfig(port=0, bot_dirs=(), results_dir=None)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        host, port = referee.address.rsplit(":", 1)
        clock = Clock()
        strikes = referee.server.admin_service.strikes = Strikes(first_pause_s=60.0, clock=clock)

        async def list_bots(channel: grpc.aio.Channel, token: str) -> tuple[grpc.StatusCode, str]:
            stub = admin_pb2_grpc.RefereeAdminStub(channel)
            try:
                await stub.ListBots(admin_pb2.ListBotsRequest(), metadata=admin_metadata(token), timeout=10)
            except grpc.aio.AioRpcError as error:
                return error.code(), error.details() or ""
            return grpc.StatusCode.OK, ""

        async def guess() -> dict[str, object]:
            async with SourceAddresses(host, int(port), [ATTACKER, NEIGHBOUR]) as entrances:
                async with grpc.aio.insecure_channel(entrances[ATTACKER]) as attacker, \
                        grpc.aio.insecure_channel(entrances[NEIGHBOUR]) as neighbour:
                    codes = [(await list_bots(attacker, f"{n:048x}"))[0] for n in range(strikes.free)]
                    shut = await list_bots(attacker, "f" * 48)  # the one past the free ones: a pause begins
                    right_too = await list_bots(attacker, referee.admin_token)  # shut is shut
                    operator = (await list_bots(neighbour, referee.admin_token))[0]  # same /24, its own address
                    clock.now += 61.0
                    after = (await list_bots(attacker, referee.admin_token))[0]
                    return {"codes": codes, "shut": shut, "right": right_too, "operator": operator,
                            "after": after}

        seen = asyncio.run(guess())
        assert seen["codes"] == [grpc.StatusCode.UNAUTHENTICATED] * strikes.free, seen
        assert seen["shut"][0] == grpc.StatusCode.RESOURCE_EXHAUSTED, seen  # type: ignore[index]  (says so at once)
        code, details = seen["right"]  # type: ignore[misc]
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "too many wrong tokens" in details, seen
        assert seen["operator"] == grpc.StatusCode.OK, seen
        assert seen["after"] == grpc.StatusCode.OK, seen  # the pause ended: no lockout for good


def test_every_stream_refused_as_it_opens_reads_the_reason_not_an_internal_error() -> None:
    """A stream refused as it opens is ended once its Hello has arrived: ended while the client's write is in
    flight, gRPC's client reads "Internal error from Core" instead of the status (found in CI: a shut-out bot
    was told INTERNAL, not why; bench/hello_storm.py saw 1-10 % of its refusals so). The Hello is never parsed."""
    config = ServerConfig(port=0, bot_dirs=(), results_dir=None)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        referee.register_remote("far-bot")
        host, port = referee.address.rsplit(":", 1)
        referee.server.bots.strikes = Strikes(free=0, first_pause_s=60.0)
        referee.server.bots.drop = lambda peer: None  # (the connection kept open: each stream shows its end)

        async def refused_storm() -> Counter[tuple[grpc.StatusCode, bool]]:
            async with SourceAddresses(host, int(port), [ATTACKER]) as entrances:
                async with grpc.aio.insecure_channel(entrances[ATTACKER]) as attacker:
                    await _hello(attacker, "far-bot", "0" * 48)  # its one wrong token: shut out
                    at_once = asyncio.Semaphore(32)

                    async def one() -> tuple[grpc.StatusCode, bool]:
                        async with at_once:
                            code, details = await _hello(attacker, "far-bot", "1" * 48)
                            return code, "too many wrong tokens" in details

                    return Counter(await asyncio.gather(*(one() for _ in range(1500))))

        ends = asyncio.run(refused_storm())
        assert ends == Counter({(grpc.StatusCode.RESOURCE_EXHAUSTED, True): 1500}), ends
