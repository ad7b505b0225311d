"""The referee server with SDK bots: records that replay, warm processes, the admin service,
health checking and reflection, and refusals with clear reasons."""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from arena.agents import RandomAgent
from arena.referee import play_match
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.rpc import session as session_module
from arena.rpc.background import BackgroundReferee
from arena.rpc.generated import admin_pb2, admin_pb2_grpc
from arena.rpc.server import MatchRequestError


def steps_of(record: MatchRecord) -> list[tuple[int, int, int, str]]:
    return [(step.n, step.seat, step.action, step.label) for step in record.steps]


def test_a_remote_match_equals_the_local_one_on_the_same_seed(referee: BackgroundReferee) -> None:
    for seed in (5, 6):
        remote = referee.run_match("major-general", ["random", "random"], seed=seed)
        local = play_match("major-general", [RandomAgent(), RandomAgent()], seed)
        assert steps_of(remote) == steps_of(local)
        assert remote.result == local.result
        assert [p.kind for p in remote.players] == [PlayerKind.BOT, PlayerKind.BOT]
        replay(remote)


def test_records_carry_think_and_transport_time_and_are_stored(referee: BackgroundReferee) -> None:
    future = referee.submit("major-general/hold-the-centre", ["random", "trivial"], seed=8)
    record = future.result()
    for step in record.decisions:
        assert set(step.timing) == {"think_ms", "transport_ms"}
        assert step.timing["think_ms"] >= 0 and step.timing["transport_ms"] >= 0
    live = referee.server.matches[record.match_id]
    assert live.path is not None and live.path.exists()
    assert MatchRecord.read(live.path).to_jsonl() == record.to_jsonl()
    assert record.extra["referee"]["clock"] == {"move_time_s": 5.0, "bank_s": 30.0, "grace_s": 1.0}


def test_a_bots_clock_runs_from_its_request_leaving_not_while_the_referee_builds_it(
        referee: BackgroundReferee, monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a DecisionRequest (the observation encoded) is the referee's time: a referee slow to build one
    charges the bot nothing for it (docs/protocol.md, Clocks: "from sending the request")."""
    building_s = 0.05
    build = session_module.encode_decision_request

    def slow_build(*args: Any, **kwargs: Any) -> bytes:
        time.sleep(building_s)
        return build(*args, **kwargs)

    monkeypatch.setattr(session_module, "encode_decision_request", slow_build)
    record = referee.run_match("major-general", ["trivial", "trivial"], seed=3)
    elapsed_ms = [step.timing["think_ms"] + step.timing["transport_ms"] for step in record.decisions]
    assert len(elapsed_ms) > 5 and statistics.median(elapsed_ms) < building_s * 1000, elapsed_ms  # was >= 50 each


@pytest.mark.parametrize("bot", ["random", "trivial"])
def test_bot_processes_stay_warm_between_matches(referee: BackgroundReferee, bot: str) -> None:
    referee.run_match("major-general", [bot, bot], seed=1)
    pids = sorted(lp.process.pid for lp in referee.server.pool._processes[bot])
    for seed in (2, 3):
        referee.run_match("major-general", [bot, bot], seed=seed)
    assert sorted(lp.process.pid for lp in referee.server.pool._processes[bot]) == pids
    if bot == "trivial":  # concurrency = 16 in its bot.toml: one process plays both seats
        assert len(pids) == 1
    else:  # one match at a time per process (earlier tests may have left more warm)
        assert len(pids) >= 2


def test_concurrent_matches(referee: BackgroundReferee) -> None:
    futures = [referee.submit("major-general", ["random", "trivial"], seed=seed) for seed in range(20, 24)]
    records = [future.result() for future in futures]
    assert all(record.result is not None and record.result.reason == "score" for record in records)
    for record in records:
        replay(record)


def test_refused_requests_say_why(referee: BackgroundReferee) -> None:
    with pytest.raises(MatchRequestError, match="unknown bot 'nobody'"):
        referee.submit("major-general", ["random", "nobody"])
    with pytest.raises(MatchRequestError, match="has 2 seats"):
        referee.submit("major-general", ["random"])
    with pytest.raises(MatchRequestError, match="unknown game"):
        referee.submit("no-such-game", ["random", "random"])


def test_admin_service_health_and_reflection(referee: BackgroundReferee) -> None:
    auth = (("authorization", f"Bearer {referee.admin_token}"),)

    async def talk() -> None:
        async with grpc.aio.insecure_channel(referee.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for service in ("", "arena.v1.Bot", "arena.v1.RefereeAdmin"):
                reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING

            for path in ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                         "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"):  # v1: the same messages
                call = channel.stream_stream(path, request_serializer=reflection_pb2.ServerReflectionRequest.
                                             SerializeToString,
                                             response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)()
                await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                answer = await call.read()
                await call.write(reflection_pb2.ServerReflectionRequest(file_containing_symbol="arena.v1.Bot"))
                described = await call.read()
                await call.done_writing()
                names = {service.name for service in answer.list_services_response.service}
                assert {"arena.v1.Bot", "arena.v1.RefereeAdmin", "grpc.health.v1.Health",
                        "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= names
                assert described.file_descriptor_response.file_descriptor_proto

            admin = admin_pb2_grpc.RefereeAdminStub(channel)
            request = admin_pb2.StartMatchRequest(game="major-general", bots=["trivial", "random"], seed=4)
            for call_without_token in (admin.StartMatch(request), admin.ListBots(admin_pb2.ListBotsRequest()),
                                       admin.ListMatches(admin_pb2.ListMatchesRequest())):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call_without_token
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await admin.ListMatches(admin_pb2.ListMatchesRequest(), metadata=(("authorization", "Bearer x"),))
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            started = await admin.StartMatch(request, metadata=auth)
            kinds, public = [], []
            async for event in admin.WatchMatch(admin_pb2.WatchMatchRequest(match_id=started.match_id)):  # anyone
                kinds.append(event.WhichOneof("kind"))
                if event.HasField("step"):
                    public.append(event.step)
                if event.HasField("header"):
                    assert event.header.seed == 0
                if event.HasField("finished"):
                    assert not event.finished.HasField("seed") and not event.finished.record_path
            assert kinds[0] == "header" and kinds[-1] == "finished" and set(kinds[1:-1]) == {"step"}
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async for _ in admin.WatchMatchFull(admin_pb2.WatchMatchRequest(match_id=started.match_id)):
                    pass
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            full, seed = [], None
            async for event in admin.WatchMatchFull(admin_pb2.WatchMatchRequest(match_id=started.match_id),
                                                    metadata=auth):
                if event.HasField("step"):
                    full.append(event.step)
                if event.HasField("finished"):
                    seed = event.finished.seed
            assert seed == 4
            status = await admin.GetMatch(admin_pb2.GetMatchRequest(match_id=started.match_id, include_record=True),
                                          metadata=auth)
            assert status.state == "finished" and status.seed == 4
            record = MatchRecord.from_jsonl(status.record_jsonl)
            assert [(s.n, s.seat, s.action, s.label) for s in full] == steps_of(record)
            hidden = [(p, f) for p, f in zip(public, full) if p.hidden]
            assert hidden and all(p.action == -1 and "draws a card" in p.label and "draws a card" not in f.label
                                  for p, f in hidden)
            assert [(p.n, p.action, p.label) for p in public if not p.hidden] == \
                [(f.n, f.action, f.label) for p, f in zip(public, full) if not p.hidden]
            replay(record)
            bots = {bot.name: bot for bot in (await admin.ListBots(admin_pb2.ListBotsRequest(), metadata=auth)).bots}
            assert bots["random"].kind == "local" and bots["random"].processes >= 1
            listed = await admin.ListMatches(admin_pb2.ListMatchesRequest(), metadata=auth)
            assert started.match_id in {match.match_id for match in listed.matches}
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await admin.StartMatch(admin_pb2.StartMatchRequest(game="major-general", bots=["random", "nobody"]),
                                       metadata=auth)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "unknown bot 'nobody'" in (refused.value.details() or "")

    asyncio.run(talk())


def test_a_stream_without_hello_or_with_a_bad_token_is_refused(referee: BackgroundReferee) -> None:
    from arena.rpc.generated import bot_pb2

    async def attempt(first: bytes) -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(referee.address) as channel:
            call = channel.stream_stream("/arena.v1.Bot/Play")()
            await call.write(first)
            with pytest.raises(grpc.aio.AioRpcError):
                await call.read()
            return await call.code()

    def hello(**fields: object) -> bytes:
        values = {"protocol_version": 1, "name": "random", "token": "forged"}
        values.update(fields)
        return bot_pb2.BotMessage(hello=bot_pb2.Hello(**values)).SerializeToString()  # type: ignore[arg-type]

    assert asyncio.run(attempt(hello())) == grpc.StatusCode.UNAUTHENTICATED
    assert asyncio.run(attempt(hello(protocol_version=2))) == grpc.StatusCode.FAILED_PRECONDITION
    assert asyncio.run(attempt(b"\xff not a hello")) == grpc.StatusCode.INVALID_ARGUMENT
    assert asyncio.run(attempt(hello(version="v" * 65))) == grpc.StatusCode.INVALID_ARGUMENT
    assert asyncio.run(attempt(hello(version="1\x1b[2J"))) == grpc.StatusCode.INVALID_ARGUMENT
    assert asyncio.run(attempt(hello(games=["*"] * 65))) == grpc.StatusCode.INVALID_ARGUMENT
