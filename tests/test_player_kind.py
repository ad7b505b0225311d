"""A seat's player kind is one enum end to end: from the referee's record through the store to the web pages' JSON,
found only through `PlayerKind` (and `Origin`), each edge keeping its old spelling byte for byte."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.games.registry import load_game
from arena.paths import BUILTIN_BOTS
from arena.referee.players import REMOTE_VERSION, Origin, PlayerKind
from arena.referee.record import MatchRecord, PlayerInfo
from arena.rpc.convert import ConversionError, listed_kind
from arena.store import BotIdentity, Store
from arena.submissions.submit import register_remote
from arena.tournament import InlineExecutor, TournamentRunner, create_tournament, parse_bots
from arena.tournament.celery_executor import job_from_json, job_to_json
from arena.web.app import create_app

ARENA = Path(__file__).resolve().parent.parent / "arena"
#: Every spelling a kind or an origin has had at some edge.
SPELLINGS = {"agent", "program", "remote", "bot", "built-in", "submitted", "local"}
#: The edges that spell them: the enum itself, the admin protocol's converter, and the migrations (history).
EDGES = {ARENA / "referee" / "players.py", ARENA / "rpc" / "convert.py"}
#: Values that carry a kind.
CARRIERS = {"PlayerInfo", "SeatBot", "BotSpec", "BotIdentity", "Standing", "LadderBot"}


def test_each_edge_keeps_its_spelling() -> None:
    """The stored column, the record, the celery job and the JSON say what they said before; the admin protocol
    says local or remote; the pages' origin is built-in, submitted or remote."""
    assert {kind: kind.value for kind in PlayerKind} == {PlayerKind.AGENT: "agent", PlayerKind.PROGRAM: "program",
                                                         PlayerKind.REMOTE: "remote", PlayerKind.BOT: "bot"}
    assert {origin: origin.value for origin in Origin} == {Origin.BUILT_IN: "built-in", Origin.SUBMITTED: "submitted",
                                                          Origin.REMOTE: "remote"}
    assert (listed_kind(PlayerKind.PROGRAM), listed_kind(PlayerKind.REMOTE)) == ("local", "remote")
    with pytest.raises(ConversionError):
        listed_kind(PlayerKind.AGENT)
    assert REMOTE_VERSION == "remote"
    for kind in PlayerKind:  # a record's player, old or new, reads back as it was written
        line = {"seat": 1, "name": "x", "version": "2", "kind": kind.value}
        player = PlayerInfo.from_json(line)
        assert player.kind is kind and player.to_json() == line
    assert PlayerInfo.from_json({"seat": 0, "name": "x"}).kind is PlayerKind.AGENT  # (the oldest records say none)


def test_a_match_from_the_referee_to_the_store_and_the_pages(tmp_path: Path) -> None:
    """Agents play a stored tournament; the record, the store, the celery job and every JSON document that shows
    a bot give its kind as the enum's, and the origin of each kind of bot is the enum's too."""
    store = Store.open(f"sqlite:///{tmp_path / 'kind.db'}")
    tournament = create_tournament(store, game=load_game("major-general"), bots=parse_bots("random,greedy"),
                                   format="round-robin", rounds=1, seed=3)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    [match, *_] = store.matches.of_tournament(tournament)
    record = MatchRecord.from_bytes(store.matches.record(match))
    assert [player.kind for player in record.players] == [PlayerKind.AGENT, PlayerKind.AGENT]
    header = json.loads(gzip.decompress(store.matches.record(match)).splitlines()[0])
    assert [player["kind"] for player in header["players"]] == [PlayerKind.AGENT.value] * 2
    bots = store.bots.find()
    assert {bot.kind for bot in bots} == {PlayerKind.AGENT} and {bot.origin for bot in bots} == {Origin.BUILT_IN}
    assert {row.kind for row in store.ratings.of_pool("major-general")} == {PlayerKind.AGENT}

    seats = job_from_json(json.loads(json.dumps(job_to_json(_job(store, tournament))))).seats
    assert {seat.kind for seat in seats} == {PlayerKind.AGENT}  # (a celery worker's job, through its JSON)

    shipped = store.bots.register(BotIdentity("shipped", "1", "s", PlayerKind.PROGRAM, f"{BUILTIN_BOTS}/shipped"))
    brought = store.bots.register(BotIdentity("brought", "1", "b", PlayerKind.PROGRAM, str(tmp_path / "brought")))
    register_remote(store, "ann", "far")
    [far] = store.bots.find("far")
    assert far.kind is PlayerKind.REMOTE and far.version == REMOTE_VERSION
    expected = {"random": (PlayerKind.AGENT, Origin.BUILT_IN), "shipped": (PlayerKind.PROGRAM, Origin.BUILT_IN),
                "brought": (PlayerKind.PROGRAM, Origin.SUBMITTED), "far": (PlayerKind.REMOTE, Origin.REMOTE)}
    assert {store.bots.get(bot).origin for bot in (shipped, brought)} == {Origin.BUILT_IN, Origin.SUBMITTED}

    with TestClient(create_app(store)) as client:
        listed = {row["name"]: row for row in client.get("/api/bots").json()["bots"]}
        for name, (kind, origin) in expected.items():
            assert (listed[name]["kind"], listed[name]["origin"]) == (kind.value, origin.value), name
            [version] = client.get(f"/api/bots/{name}").json()["versions"]
            assert (version["kind"], version["origin"]) == (kind.value, origin.value), name
        standings = client.get("/api/leaderboards/major-general").json()["standings"]
        assert {(row["kind"], row["origin"]) for row in standings} == {(PlayerKind.AGENT.value, Origin.BUILT_IN.value)}
        replay = client.get(f"/api/matches/{match.id}/replay").text.splitlines()
        players = json.loads(replay[0])["header"]["players"]
        assert [PlayerKind(player["kind"]) for player in players] == [PlayerKind.AGENT, PlayerKind.AGENT]
    store.close()


def _job(store: Store, tournament: int) -> object:
    from arena.tournament.jobs import MatchJob, SeatBot

    seats = tuple(SeatBot(bot.id, bot.name, bot.version, bot.kind, bot.spec) for bot in store.bots.find())
    return MatchJob(tournament, 9, 0, 0, "major-general", {}, 1, seats, pool="major-general")


def test_no_code_spells_a_kind_but_its_edges() -> None:
    """Outside the edges, a kind or an origin is never a string: no comparison of a kind with a spelling, no
    spelling given as a kind (a keyword, a field's default, a JSON value, a carrier's argument, a query)."""
    found = [f"{path.relative_to(ARENA.parent)}:{line}: {text}"
             for path in sorted(ARENA.rglob("*.py")) if path not in EDGES and "migrations" not in path.parts
             for line, text in _spelled_kinds(path)]
    assert not found, "\n".join(found)


def _spelled_kinds(path: Path) -> list[tuple[int, str]]:
    """(line, what) for each place in a module that spells a kind where the code means one."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        spelled = [value for value in _spellings(node) if _means_a_kind(node)]
        found += [(node.lineno, f"{type(node).__name__} with {value!r}") for value in spelled]
    return found


def _spellings(node: ast.AST) -> list[str]:
    """The spellings among a node's own operands (not in nested calls)."""
    if isinstance(node, ast.Compare):
        parts: list[ast.AST] = [node.left, *node.comparators]
    elif isinstance(node, ast.Call):
        parts = [*node.args, *(keyword.value for keyword in node.keywords)]
    elif isinstance(node, ast.Dict):
        parts = [value for key, value in zip(node.keys, node.values)
                 if isinstance(key, ast.Constant) and key.value in ("kind", "origin")]
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # a set of kinds, by their spellings
        spelled = {item.value for item in node.elts if isinstance(item, ast.Constant) and item.value in SPELLINGS}
        return sorted(spelled) if len(spelled) > 1 else []
    elif isinstance(node, ast.AnnAssign):  # a field's default, however it is made
        parts = list(ast.walk(node.value)) if node.value is not None else []
    else:
        return []
    return [value for part in parts for value in _constants(part)]


def _constants(part: ast.AST) -> list[str]:
    """The spellings an operand is made of: itself, or the items of a literal collection, the branches of a
    conditional, the sides of an operation (`["bot"] * 3`), but nothing inside a call."""
    if isinstance(part, ast.Constant):
        return [part.value] if part.value in SPELLINGS else []
    if isinstance(part, (ast.Tuple, ast.List, ast.Set)):
        inner: list[ast.AST] = list(part.elts)
    elif isinstance(part, ast.IfExp):
        inner = [part.body, part.orelse]
    elif isinstance(part, ast.BinOp):
        inner = [part.left, part.right]
    else:
        return []
    return [value for item in inner for value in _constants(item)]


def _means_a_kind(node: ast.AST) -> bool:
    """Whether the node speaks of a kind or an origin: a comparison or a query with one, a carrier made, a
    `kind`/`origin` keyword, field or JSON key."""
    if isinstance(node, (ast.Dict, ast.Tuple, ast.List, ast.Set)):
        return True
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id in ("kind", "origin")
    if isinstance(node, ast.Call):  # (a lookup by key, `data.get("kind", ...)`, speaks of one too)
        called = ast.unparse(node.func)
        return (called.rpartition(".")[2] in CARRIERS or "kind" in called or "origin" in called
                or any(keyword.arg in ("kind", "origin") for keyword in node.keywords)
                or any(isinstance(arg, ast.Constant) and arg.value in ("kind", "origin") for arg in node.args))
    text = ast.unparse(node)
    return "kind" in text or "origin" in text
