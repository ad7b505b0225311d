"""Bot programs in a tournament: matches refereed by the embedded referee server, stored like any other."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store import Store

pytest.importorskip("grpc", reason="the referee server needs grpcio")
BOTS = BUILTIN_BOTS


def test_bot_programs_play_a_round_robin_through_the_referee(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    program = str(BOTS / "random")
    code = main(["tournament", "run", "major-general", "--bots", f"a={program},b={program}", "--rounds", "1",
                 "-j", "2", "--seed", "3", "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)["tournaments"][0]
    assert report["finished"] and report["stored"] == 2
    store = Store.open(url)
    assert {bot.kind for bot in store.bots.find()} == {PlayerKind.PROGRAM}
    matches = store.matches.of_tournament(report["id"])
    assert [list(m.bots) for m in matches][0] == list(reversed([list(m.bots) for m in matches][1]))
    record = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(matches[0])).decode())
    assert [p.kind for p in record.players] == [PlayerKind.PROGRAM, PlayerKind.PROGRAM]
    replay(record)
    store.close()


def test_a_mixed_field_of_agents_and_programs_plays_in_one_pool(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    """Built-in agents and bot programs in one round-robin: agent-only matches in the worker pool, the
    others through the referee (agents in process beside the programs), all stored and rated in one pool."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    field = f"random,greedy,p={BOTS / 'random'},t={BOTS / 'trivial'}"
    code = main(["tournament", "run", "major-general", "--bots", field, "--rounds", "1", "-j", "2", "--seed", "5",
                 "--name", "mixed", "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)["tournaments"][0]
    assert report["finished"] and report["stored"] == report["expected"] == 12
    assert {line["bot"] for line in report["standings"]} == {"random", "greedy", "p", "t"}
    store = Store.open(url)
    kinds = {bot.id: bot.kind for bot in store.bots.find()}
    matches = store.matches.of_tournament(report["id"])
    mixed = [m for m in matches if {kinds[b] for b in m.bots} == {PlayerKind.AGENT, PlayerKind.PROGRAM}]
    assert len(mixed) == 8 and len(matches) == 12
    for match in mixed[:2]:
        record = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(match)).decode())
        assert {p.kind for p in record.players} == {PlayerKind.AGENT, PlayerKind.PROGRAM}
        replay(record)
    assert {row.name for row in store.ratings.of_pool(report["pool"])} == {"random", "greedy", "p", "t"}
    store.close()
    code = main(["tournament", "resume", "mixed", "--db", url, "--json"])  # finished: nothing left to play
    assert code == 0 and json.loads(capsys.readouterr().out)["tournaments"][0]["played"] == 0


def test_a_ladder_and_an_sprt_take_programs_beside_agents(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    code = main(["ladder", "run", "major-general", "--bots", f"random,greedy,p={BOTS / 'random'}", "--matches", "6",
                 "--seed", "2", "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    ladder = json.loads(captured.out)
    assert ladder["ladder"]["played"] == 6
    assert {row["bot"] for row in ladder["pools"][0]["standings"]} <= {"random", "greedy", "p"}
    code = main(["sprt", "major-general", f"p={BOTS / 'random'}", "greedy", "--max-pairs", "2", "--seed", "4",
                 "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["pairs"] == 2


SPY_BOT = r'''
import asyncio
import json
import os

import arena.rpc.sdk as sdk
from arena.agents import RandomAgent


class Spying:
    """The stream as the SDK reads it, each MatchStart written down as it comes (before the match is played, so
    the line is there however soon the tournament ends and stops this process)."""

    def __init__(self, call):
        self.call = call

    async def read(self):
        message = await self.call.read()
        if getattr(message, "WhichOneof", None) is not None and message.WhichOneof("kind") == "match_start":
            start = message.match_start
            with open(os.environ["TOLD"], "a") as out:  # (unsandboxed here, to tell the test)
                out.write(json.dumps({"seat": start.seat,
                                      "players": [[p.seat, p.name, p.version] for p in start.players]}) + "\n")
        return message

    def __getattr__(self, name):
        return getattr(self.call, name)


play_one = sdk._play_one
sdk._play_one = lambda call, *args, **kwargs: play_one(Spying(call), *args, **kwargs)
agent = RandomAgent()
asyncio.run(sdk.serve_matches(agent, sdk.settings_from_environment(agent)))
'''


def test_a_bot_in_a_tournament_is_not_told_whom_it_faces(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 46: a bot told its opponent's name knows its owner (a sibling it could throw its games to). In a
    tournament or a ladder MatchStart.players names the bot's own seat only; the others are "opponent"."""
    told = tmp_path / "told.jsonl"
    for name, owner in (("spy-ann", "ann"), ("spy-bob", "bob")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(SPY_BOT)
        (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "7"\nowner = "{owner}"\n'
                                         f'command = ["{{python}}", "bot.py"]\n[env]\nTOLD = "{told}"\n')
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    code = main(["tournament", "run", "major-general", "--bots", f"a={tmp_path / 'spy-ann'},b={tmp_path / 'spy-bob'}",
                 "--rounds", "1", "-j", "2", "--seed", "3", "--sandbox", "none", "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    starts = [json.loads(line) for line in told.read_text().splitlines()]
    assert len(starts) == 4  # two matches, each told to both seats
    for start in starts:
        own, other = sorted(start["players"], key=lambda player: player[0] != start["seat"])
        assert own[1].startswith("spy-") and other == [1 - start["seat"], "opponent", ""]
        theirs = "bob" if "ann" in own[1] else "ann"
        assert theirs not in json.dumps(start)  # nor the opponent's owner
    store = Store.open(url)
    for match in store.matches.of_tournament(json.loads(captured.out)["tournaments"][0]["id"]):  # the record: named
        record = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(match)).decode())
        assert sorted(player.name.split("@")[0] for player in record.players) == ["a", "b"]
    store.close()
