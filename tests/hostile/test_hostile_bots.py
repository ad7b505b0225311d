"""The hostile-bot suite: bot programs that really do what a hostile bot would, on a default
(sandboxed) referee. Each case asserts the recorded reason, that the bot's whole process tree is
gone afterwards, that the next match on the same server plays normally, and that nothing stored
before (a database and records) changed or was lost."""

from __future__ import annotations

import asyncio
import os
import re

import grpc
import pytest

from arena.bots import BUILTIN_BOTS
from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.rpc.background import BackgroundReferee
from arena.rpc.generated import bot_pb2
from tests.hostile.conftest import History
from tests.processes import processes_of, wait_for_no_leftovers

CASES = [
    # (bot, reason, words the detail must contain)
    ("hostile-sleep-forever", "timeout", "within 5.000s"),
    ("hostile-spin", "timeout", "within 5.000s"),
    ("hostile-cpu", "cpu_limit", "its 2 s of CPU time"),
    ("hostile-memory", "memory_limit", "memory limit of 256 MB"),
    ("hostile-memory-tree", "memory_limit", "memory limit of 256 MB"),
    ("hostile-fork", "process_limit", "limit of 64 processes"),
    ("hostile-garbage", "malformed_message", "not an arena.v1.BotMessage"),
    ("hostile-empty", "malformed_message", "0 bytes that carry no known BotMessage field"),
    ("hostile-megabyte", "malformed_message", "a message of 1048576 bytes, over the 65536-byte limit"),
    ("hostile-hundred-mb", "disconnect", "over the 4194304-byte transport limit"),
    ("hostile-flood", "wrong_sequence", "answered sequence number"),
    ("hostile-stale", "wrong_sequence", "answered sequence number"),
    ("hostile-future", "wrong_sequence", "answered sequence number"),
    ("hostile-illegal", "illegal_action", "action"),
    ("hostile-negative", "illegal_action", "action -7"),
    ("hostile-hello", "protocol_error", "sent hello while decision"),
    ("hostile-crash", "crash", "exited with status 3"),
    ("hostile-half-close", "disconnect", "closed its stream (half-close)"),
]


CPU_CASE_CLOCK = ClockSettings(move_time_s=120.0, bank_s=0.0, grace_s=1.0)


def check_normal(referee: BackgroundReferee, seed: int) -> None:
    record = referee.run_match("major-general", ["random", "random"], seed=seed)
    assert record.result is not None and record.result.reason == "score", record.result
    replay(record)


def stored(referee: BackgroundReferee, record: MatchRecord) -> MatchRecord:
    path = referee.server.matches[record.match_id].path
    assert path is not None and path.exists()
    return MatchRecord.read(path)


@pytest.mark.parametrize("bot, reason, words", CASES, ids=[case[0].removeprefix("hostile-") for case in CASES])
def test_a_hostile_bot_loses_with_its_reason_and_harms_nothing(referee: BackgroundReferee, history: History,
                                                                bot: str, reason: str, words: str) -> None:
    # The CPU limit (2 s of CPU) must fire before any clock does, however busy the machine: that bot's match
    # gets a clock far above it (at a load of 14 on two cores, 2 s of CPU took more than 5 s of wall time).
    # So does the memory of six processes together (each one under the limit: only a bound on the tree stops them).
    clock = CPU_CASE_CLOCK if bot in ("hostile-cpu", "hostile-memory-tree") else None
    record = referee.run_match("major-general", ["random", bot], seed=11, clock=clock)
    result = record.result
    assert result is not None
    assert (result.reason, result.offender, result.ranking) == (reason, 1, (0, 1)), result
    assert words in result.detail, result.detail
    good = 3 if bot == "hostile-flood" else 2  # the flood's first decision answers decision 3 well
    assert sum(1 for step in record.decisions if step.seat == 1) == good  # good decisions, then the attack
    replay(record)  # the record replays up to the fault
    assert stored(referee, record).to_jsonl() == record.to_jsonl()
    evidence = record.extra["evidence"]["1"]
    mode = {"hostile-cpu": "spin"}.get(bot, bot.removeprefix("hostile-"))
    assert f"hostile: misbehaving ({mode})" in evidence["output"], evidence  # its last words, in every fault record
    if bot != "hostile-hundred-mb":  # only a message over the transport limit is said to be one
        assert "transport limit" not in result.detail, result.detail
    if bot == "hostile-fork":
        forked = int(re.search(r"forked (\d+) processes", evidence["output"]).group(1))  # type: ignore[union-attr]
        assert forked < 64  # the sandbox held it to its limit, threads included
        assert evidence["usage"]["processes_peak"] <= 64
    if bot == "hostile-memory":
        assert evidence["usage"]["memory_peak_mb"] <= 256 + 1
    wait_for_no_leftovers(referee, bot)  # the fault stopped its whole process tree
    assert not processes_of(bot, referee)
    check_normal(referee, seed=12)
    history.check_intact()


@pytest.fixture(scope="module")
def probe_report(referee: BackgroundReferee) -> dict[str, str]:
    """One match of the probe against random: what it said of each escape it tried."""
    record = referee.run_match("major-general", ["probe", "random"], seed=21)
    assert record.result is not None
    output = referee.server.pool.output_tail("probe")
    assert record.result.reason == "score", (record.result, output)  # it played on: every attempt failed
    assert "probe: verdict: all blocked" in output, output
    return dict(re.findall(r"^probe: ([a-z-]+): (.*)$", output, re.MULTILINE))


ESCAPES = ["environment", "sibling-folder", "write-outside", "results", "tcp", "other-tokens", "host-root",
           "kernel-settings", "user-namespace", "system-calls", "host-paths", "admin-service", "watch-match"]


@pytest.mark.parametrize("escape", ESCAPES)
def test_every_escape_of_the_probe_fails(probe_report: dict[str, str], history: History, escape: str) -> None:
    assert escape in probe_report, probe_report
    assert probe_report[escape].startswith("blocked"), probe_report[escape]
    history.check_intact()


def test_the_probe_has_teeth_without_the_sandbox(tmp_path_factory: pytest.TempPathFactory, hostile_bots) -> None:
    """Run unsandboxed (--sandbox none), the same probe does escape: the suite tests something real.
    The closed referee holds even then: no admin call and no hidden information without the token."""
    from arena.rpc.server import ServerConfig
    from arena.sandbox import SandboxSettings
    from tests.hostile.conftest import CLOCK

    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS, hostile_bots), results_dir=tmp_path_factory.mktemp("r"),
                          clock=CLOCK, startup_timeout_s=60.0, sandbox=SandboxSettings(mode="none"))
    with BackgroundReferee(config, drain_s=0.0) as unsandboxed:
        record = unsandboxed.run_match("major-general", ["probe", "random"], seed=21)
    output = record.extra.get("evidence", {}).get("0", {}).get("output", "")
    assert record.result is not None and record.result.reason == "illegal_action", (record.result, output)
    escaped = ["sibling-folder", "write-outside", "other-tokens", "user-namespace", "system-calls"]
    if os.geteuid() == 0:  # the suite's referee runs as root here: unsandboxed, so does the probe
        escaped += ["host-root", "kernel-settings"]
    for escape in escaped:
        assert f"probe: {escape}: ESCAPED" in output, output
    for still_closed in ("environment", "admin-service", "watch-match"):
        assert f"probe: {still_closed}: blocked" in output, output


def hello_over_the_network(address: str, name: str, token: str) -> grpc.StatusCode:
    """Say Hello over the referee's network port as a remote bot would; the status the stream ends with."""
    async def attempt() -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.stream_stream("/arena.v1.Bot/Play")()
            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, token=token))
                             .SerializeToString())
            try:
                async with asyncio.timeout(10):
                    await call.read()
            except (grpc.aio.AioRpcError, TimeoutError):
                pass
            call.cancel()
            return await call.code()

    return asyncio.run(attempt())


@pytest.mark.parametrize("token", ["wrong", "", "stolen"])
def test_a_remote_bot_with_a_wrong_empty_or_stolen_token_is_refused(referee: BackgroundReferee, history: History,
                                                                    token: str) -> None:
    registered = referee.register_remote("far-away")
    name = "far-away"
    if token == "stolen":  # a running local bot's launch token, as if read from its process
        referee.run_match("major-general", ["random", "random"], seed=31)
        launch_tokens = list(referee.server.pool._by_token)
        assert launch_tokens
        token, name = launch_tokens[0], "random"
    elif token == "wrong":
        token = registered[::-1]
    assert hello_over_the_network(referee.address, name, token) == grpc.StatusCode.UNAUTHENTICATED
    check_normal(referee, seed=32)
    history.check_intact()


def test_arena_match_with_the_probe_plays_normally(hostile_bots, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`arena match major-general PROBE random --json`: every escape fails, so every game ends by the rules."""
    import json

    from arena.cli.main import main

    code = main(["match", "major-general", str(hostile_bots / "probe"), "random", "--games", "2", "--seed", "4",
                 "--out", str(tmp_path), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    games = json.loads(out)["games"]
    assert [game["reason"] for game in games] == ["score", "score"], games


def test_without_cgroups_the_referee_bounds_a_bots_processes_together(
        tmp_path_factory: pytest.TempPathFactory, hostile_bots, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no cgroup can be made (in a container): six processes that each hold 180 MB, each under its own
    256 MB address-space limit, are stopped together by the referee's memory watch, with the reason."""
    import arena.sandbox.launch as launch
    from arena.rpc.server import ServerConfig
    from arena.sandbox.cgroups import CgroupFactory

    class NoCgroups(CgroupFactory):
        def _find(self, root: object) -> None:
            self.problem = "no writable cgroup (as in a container)"

    monkeypatch.setattr(launch, "CgroupFactory", NoCgroups)
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS, hostile_bots), results_dir=tmp_path_factory.mktemp("r"),
                          clock=CPU_CASE_CLOCK, startup_timeout_s=60.0)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        record = referee.run_match("major-general", ["random", "hostile-memory-tree"], seed=11)
        result = record.result
        assert result is not None and (result.reason, result.offender) == ("memory_limit", 1), result
        assert "the referee stopped the bot: its processes together held" in result.detail, result.detail
        assert "over its memory limit of 256 MB" in result.detail
        wait_for_no_leftovers(referee, "hostile-memory-tree")
        check_normal(referee, seed=12)
