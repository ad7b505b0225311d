"""A referee whose results folder is on a full disk loses no record without a word: the match ends as an
infrastructure fault saying why (what GetMatch and the watchers get), the server logs one line, leaves no .part
file, and its health check answers NOT_SERVING until a record can be stored again; `arena match --server` says
so in one line and stops."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.agents import RandomAgent
from arena.cli.main import main
from arena.referee.record import MatchRecord, Termination
from arena.rpc.background import BackgroundReferee
from arena.rpc.client import AdminClient
from arena.rpc.server import ServerConfig
from tests.rpc.conftest import RELAXED_CLOCK
from tests.small_disk import fill, parts, small_disk  # noqa: F401 (a fixture)

SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def referee_on_small_disk(small_disk: Path) -> Iterator[BackgroundReferee]:
    config = ServerConfig(port=0, bot_dirs=(), results_dir=small_disk, clock=RELAXED_CLOCK, startup_timeout_s=60.0)
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server


def health(address: str) -> dict[str, int]:
    async def ask() -> dict[str, int]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            return {service: (await stub.Check(health_pb2.HealthCheckRequest(service=service))).status
                    for service in ("", "arena.v1.RefereeAdmin", "arena.v1.Bot")}
    return asyncio.run(ask())


def status(referee: BackgroundReferee, match_id: str) -> tuple[str, str, MatchRecord]:
    async def ask() -> tuple[str, str, MatchRecord]:
        async with AdminClient(referee.address, referee.admin_token) as client:
            reply = await client.status(match_id)
            return reply.result.reason, reply.record_path, await client.record(match_id)
    return asyncio.run(ask())


def test_a_record_the_referee_cannot_store(referee_on_small_disk: BackgroundReferee, small_disk: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    referee = referee_on_small_disk
    assert health(referee.address) == {"": SERVING, "arena.v1.RefereeAdmin": SERVING, "arena.v1.Bot": SERVING}
    filler = fill(small_disk)
    with caplog.at_level(logging.ERROR, logger="arena.referee"):
        record = referee.run_match("major-general", [RandomAgent(), RandomAgent()], seed=5)

    result = record.result
    assert result is not None and result.termination is Termination.INFRASTRUCTURE and result.voided
    assert "the referee could not store this match's record (cannot write the record" in result.detail
    assert result.detail.endswith(": No space left on device)")
    assert record.extra["played_result"]["reason"] == "score"  # the game was played to its end
    assert parts(small_disk) == [] and not list(small_disk.rglob("*.jsonl"))
    logged = [entry.getMessage() for entry in caplog.records if entry.name == "arena.referee"]
    assert logged == [f"match {record.match_id}: its record was not stored: cannot write the record "
                      f"{result.detail.split('record ')[-1].removesuffix(')')}"]

    reason, path, told = status(referee, record.match_id)  # what a client is told
    assert (reason, path) == ("infrastructure", "")
    assert told.result == result and told.extra["storage_error"].endswith("No space left on device")
    assert health(referee.address) == {"": NOT_SERVING, "arena.v1.RefereeAdmin": NOT_SERVING, "arena.v1.Bot": SERVING}

    filler.unlink()  # room again: the health check finds it (a probe written), and records are stored again
    assert health(referee.address)[""] == SERVING
    again = referee.run_match("major-general", [RandomAgent(), RandomAgent()], seed=5)
    assert again.result is not None and again.result.reason == "score"
    assert len(list(small_disk.rglob("*.jsonl"))) == 1 and parts(small_disk) == []


def test_arena_match_through_a_referee_that_cannot_store(referee_on_small_disk: BackgroundReferee, small_disk: Path,
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    referee = referee_on_small_disk
    fill(small_disk)
    code = main(["match", "major-general", "random", "random", "--server", referee.address, "--admin-token",
                 referee.admin_token, "--games", "4", "--seed", "1", "--out", str(tmp_path / "mine")])
    captured = capsys.readouterr()
    assert code == 1, captured
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("arena: error: the record of game 1 was not stored (cannot write the record ")
    assert captured.err.rstrip().endswith("No space left on device); stopped after 1 of 4 game(s): "
                                          "0 record(s) stored, 1 not")
    assert "infrastructure" in captured.out  # the summary of what was played comes first
    assert parts(small_disk) == []
