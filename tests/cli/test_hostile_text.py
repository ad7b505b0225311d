"""Text a bot or an owner controls is shown as text on every command: stored bots whose version and owner carry
Rich markup (an unclosed tag, a link hiding its address), escape sequences (reverse video, a clipboard write),
C1 controls, direction marks and NUL (as data stored before the rules at entry existed) are printed by every
command that shows them without crashing and without any of it reaching the terminal; and such text is refused
where it enters (bot.toml, a Hello)."""

from __future__ import annotations

import gzip
from dataclasses import replace
import json
import re
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import select, update

from arena.cli.main import main
from arena.games.registry import load_game
from arena.referee.record import MatchRecord
from arena.rpc.bot_service import hello_problem
from arena.rpc.generated import bot_pb2
from arena.rpc.manifest import manifest_problems
from arena.store import Store
from arena.store.models import Bot
from arena.tournament import InlineExecutor, TournamentRunner, create_tournament, parse_bots

HOSTILE = "[/]x [link=https://evil.example/login]security-update[/link] \x1b[7mrev\x1b]52;c;cHduZWQ=\x07 \x9b2J \u202eevil \x00nul"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # what may never reach the terminal


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("hostile-text")
    url = f"sqlite:///{folder / 'arena.db'}"
    store = Store.open(url)
    for game, name in ((load_game("major-general"), "played"), ):
        tournament = create_tournament(store, game=game, bots=parse_bots("a=random,b=greedy"), format="round-robin",
                                       rounds=1, seed=2, name=name)
        TournamentRunner(store, tournament, InlineExecutor()).run()
    with store.engine.begin() as conn:  # stored before the rules at entry: the text as a bot once sent it
        conn.execute(update(Bot).where(Bot.name == "a").values(version=HOSTILE, owner=HOSTILE))
    assert main(["ladder", "run", "major-general", "--bots", "a=random,b=greedy", "--matches", "2", "--db", url,
                 "--json"]) == 0
    with store.engine.begin() as conn:  # each version distinct, as (name, version, artifact) is
        for (bot_id,) in conn.execute(select(Bot.id)).all():
            conn.execute(update(Bot).where(Bot.id == bot_id).values(version=f"{HOSTILE}{bot_id}", owner=HOSTILE))
    store.close()
    yield url


def record_with_hostile_players(db: str, out: Path) -> Path:
    store = Store.open(db)
    [match, *_] = store.matches.of_tournament(store.tournaments.get("played").id)  # type: ignore[union-attr]
    found = store.matches.record(match)
    store.close()
    record = MatchRecord.from_jsonl(gzip.decompress(found).decode())
    record = replace(record, players=[replace(player, version=HOSTILE) for player in record.players])
    path = out / "hostile.jsonl"
    path.write_text(record.to_jsonl())
    return path


COMMANDS = [
    ["leaderboard", "major-general"],
    ["leaderboard", "major-general", "--all-versions"],
    ["bot", "list"],
    ["bot", "show", "a"],
    ["bot", "versions", "a"],
    ["ladder", "status"],
    ["tournament", "list"],
    ["tournament", "show", "played"],
    ["replay", "1", "--final"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(argv[:2]))
def test_every_command_shows_hostile_text_as_text(db: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*argv, "--db", db])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = captured.out + captured.err
    assert not RAW.search(out), [match.group() for match in RAW.finditer(out)][:5]
    assert "\x1b]8;" not in out  # no hyperlink hiding its address


def test_the_terminal_replay_of_a_file_shows_them_as_text(db: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["replay", str(record_with_hostile_players(db, tmp_path))])
    out = capsys.readouterr().out
    assert code == 0 and not RAW.search(out) and "\\x1b[7m" in out and "[link=" in out


def test_the_offline_replay_page_keeps_its_script_whole(db: str, tmp_path: Path) -> None:
    """A version such as `<!--<script>` or `</script>` cannot end or swallow the page's script."""
    path = record_with_hostile_players(db, tmp_path)
    text = path.read_text().replace(json.dumps(HOSTILE)[1:-1], "<!--<script></script>")
    path.write_text(text)
    out = tmp_path / "page.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    page = out.read_text()
    data = page.split('<script id="replay-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and ">" not in data  # nothing in the data is markup to the HTML parser
    assert json.loads(data)["header"]["players"][0]["version"] == "<!--<script></script>"


@pytest.mark.parametrize("version", ["[/]x", "1 2", "a\x1b[7m", "\u202e1", "v1\x00", "x" * 33, "-1", "[link=x]1"])
def test_such_text_is_refused_where_it_enters(version: str) -> None:
    problems = manifest_problems({"name": "mine", "version": version, "command": ["{python}", "bot.py"],
                                  "games": ["*"]})
    assert any(key == "version" for key, _ in problems), problems
    hello = bot_pb2.Hello(protocol_version=1, name="mine", token="t", version=version)
    assert "version" in hello_problem(hello)
    for fine in ("1", "2.0.1", "v3-beta+build.7"):
        assert not manifest_problems({"name": "mine", "version": fine, "command": ["{python}", "bot.py"],
                                      "games": ["*"]})
    assert manifest_problems({"name": "mine", "description": "\u202eevil", "command": ["{python}", "bot.py"]})
