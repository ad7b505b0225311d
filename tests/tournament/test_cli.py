"""`arena tournament`, `ladder`, `leaderboard`, `rerate`, `bot` and `sprt`: JSON keys, tables, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.referee.record import MatchRecord
from arena.referee.replay import replay


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ARENA_RESULTS", str(tmp_path))
    monkeypatch.delenv("ARENA_DB", raising=False)
    monkeypatch.delenv("ARENA_BROKER", raising=False)  # local workers, whatever the machine says
    return f"sqlite:///{tmp_path / 'cli.db'}"


def test_tournament_then_leaderboard_bot_and_export(capsys: pytest.CaptureFixture[str], db: str,
                                                    tmp_path: Path) -> None:
    code, out, err = run(capsys, "tournament", "run", "major-general", "--bots", "a=random,b=random,c=random",
                         "--rounds", "2", "-j", "1", "--seed", "3", "--name", "cup", "--db", db, "--json")
    assert code == 0, err
    report = json.loads(out)["tournaments"][0]
    assert report["finished"] and report["stored"] == report["expected"] == 12 and report["name"] == "cup"
    assert {line["bot"] for line in report["standings"]} == {"a", "b", "c"}

    code, out, _ = run(capsys, "leaderboard", "major-general", "--db", db, "--json", "--bt")
    assert code == 0
    pool = json.loads(out)["pools"][0]
    assert pool["pool"] == "major-general" and pool["matches"] == 12
    first = pool["standings"][0]
    for key in ("rank", "bot", "mu", "sigma", "conservative", "games", "win_rate", "win_rate_low", "win_rate_high",
                "last_played", "bt_elo", "bt_elo_low", "bt_elo_high"):
        assert key in first
    assert [row["rank"] for row in pool["standings"]] == [1, 2, 3]
    scores = [row["conservative"] for row in pool["standings"]]
    assert scores == sorted(scores, reverse=True)

    code, out, _ = run(capsys, "leaderboard", "--db", db)
    assert code == 0 and "major-general" in out and "sigma" in out

    code, out, _ = run(capsys, "bot", "show", "a", "--db", db, "--json")
    assert code == 0
    bot = json.loads(out)
    rating = bot["ratings"][0]
    assert rating["games"] == 8 and len(rating["history"]) == 8
    assert {h["opponent"] for h in rating["head_to_head"]} == {"b", "c"}
    assert all(h["games"] == 4 for h in rating["head_to_head"])

    code, out, _ = run(capsys, "tournament", "show", "cup", "--db", db, "--json")
    assert code == 0 and json.loads(out)["matches"] == 12
    code, out, _ = run(capsys, "tournament", "list", "--db", db, "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "finished"

    code, out, _ = run(capsys, "tournament", "export", "cup", "--db", db, "--out", str(tmp_path / "records"))
    assert code == 0
    files = sorted((tmp_path / "records").glob("*.jsonl.gz"))
    assert len(files) == 12
    replay(MatchRecord.read(files[0]))

    code, out, _ = run(capsys, "rerate", "--db", db, "--json")
    assert code == 0 and json.loads(out)[0]["matches"] == 12

    # the same name again goes on with it instead of starting over: finished, it plays its rounds once more
    code, out, _ = run(capsys, "tournament", "run", "major-general", "--bots", "a=random,b=random,c=random",
                       "--rounds", "2", "-j", "1", "--name", "cup", "--db", db, "--json")
    again = json.loads(out)["tournaments"][0]
    assert code == 0 and again["played"] == 12 and again["stored"] == again["expected"] == 24 and again["rounds"] == 4
    # with its own seed too; with another, refused (a tournament cannot go on under another key), without saying it
    code, out, _ = run(capsys, "tournament", "run", "major-general", "--bots", "a=random,b=random,c=random",
                       "--rounds", "2", "-j", "1", "--seed", "3", "--name", "cup", "--db", db, "--json")
    assert code == 0 and json.loads(out)["tournaments"][0]["stored"] == 36
    code, out, err = run(capsys, "tournament", "run", "major-general", "--bots", "a=random,b=random,c=random",
                         "--rounds", "2", "-j", "1", "--seed", "4", "--name", "cup", "--db", db, "--json")
    assert code == 2 and "tournament 'cup' already exists with another seed (leave --seed out to continue it)" in err
    assert not any(digit in err.split("'cup'")[1] for digit in "0123456789"), err  # (its seed is not told)


def test_ladder_adds_to_the_pool(capsys: pytest.CaptureFixture[str], db: str) -> None:
    code, out, err = run(capsys, "ladder", "run", "major-general/breakthrough", "--bots", "x=random,y=random,z=random",
                         "--matches", "6", "-j", "1", "--seed", "1", "--db", db, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["ladder"]["played"] == 6 and data["pools"][0]["matches"] == 6
    code, out, _ = run(capsys, "ladder", "run", "major-general/breakthrough", "--matches", "2", "-j", "1",
                       "--db", db, "--json")
    assert code == 0 and json.loads(out)["pools"][0]["matches"] == 8


def test_sprt_reports_its_verdict(capsys: pytest.CaptureFixture[str], db: str) -> None:
    code, out, err = run(capsys, "sprt", "major-general", "a=random", "b=random", "--max-pairs", "6", "-j", "1",
                         "--seed", "2", "--db", db, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["pairs"] == 6 and sum(data["pentanomial"]) == 6 and data["model"] == "pentanomial"
    assert data["decision"] is None and data["lower"] < data["llr"] < data["upper"]


def test_sprt_decides_when_one_bot_is_clearly_stronger(capsys: pytest.CaptureFixture[str], db: str) -> None:
    code, out, err = run(capsys, "sprt", "major-general", "greedy", "random", "--elo0", "0", "--elo1", "50",
                         "--max-pairs", "200", "-j", "1", "--seed", "1", "--db", db, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["decision"] == "H1" and data["llr"] >= data["upper"] and 30 == data["min_pairs"] <= data["pairs"] < 200
    assert data["elo_low"] > 0


def test_sprt_decides_nothing_before_its_minimum_of_pairs(capsys: pytest.CaptureFixture[str], db: str) -> None:
    code, out, err = run(capsys, "sprt", "major-general", "greedy", "random", "--elo0", "0", "--elo1", "50",
                         "--min-pairs", "45", "--max-pairs", "200", "-j", "1", "--seed", "1", "--db", db, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["min_pairs"] == 45 and data["decision"] == "H1" and 45 <= data["pairs"] < 200
    code, out, err = run(capsys, "sprt", "major-general", "greedy", "random", "--elo0", "0", "--elo1", "50",
                         "--max-pairs", "3", "-j", "1", "--seed", "1", "--db", db)
    assert code == 0, err
    assert "at least 30 pairs" in out and "undecided (no decision before 30 pairs: --min-pairs)" in out
    code, out, err = run(capsys, "sprt", "major-general", "greedy", "random", "--min-pairs", "0", "--db", db)
    assert code == 2 and "--min-pairs" in err and "Traceback" not in err


def test_sprt_with_duplicate_deals_plays_each_pair_on_one_deal(capsys: pytest.CaptureFixture[str], db: str) -> None:
    """--duplicate: both games of a pair on one seed, seats swapped; resumed only as it was started; refused where a
    seat is a bot program (it would remember the first game's deal in the second)."""
    from arena.bots import BUILTIN_BOTS
    from arena.store import Store

    code, out, err = run(capsys, "sprt", "major-general", "a=random", "b=random", "--max-pairs", "4", "-j", "1",
                         "--seed", "2", "--duplicate", "--name", "dealt", "--db", db, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["duplicate"] is True and data["pairs"] == 4
    store = Store.open(db)
    try:
        pairs: dict[tuple[int, int], list[tuple[int, tuple[int, ...]]]] = {}
        for match in store.matches.of_tournament(data["tournament"]):
            pairs.setdefault((match.round, match.pairing), []).append((match.seed, tuple(match.bots)))
    finally:
        store.close()
    assert len(pairs) == 4 and len({games[0][0] for games in pairs.values()}) == 4  # a deal of its own a pair
    assert all(len(games) == 2 and games[0][0] == games[1][0] and games[0][1] == games[1][1][::-1]
               for games in pairs.values())
    code, out, err = run(capsys, "sprt", "major-general", "a=random", "b=random", "--max-pairs", "4", "--name",
                         "dealt", "--db", db)
    assert code == 2 and "'dealt' already exists with duplicate deals" in err and "Traceback" not in err
    code, out, err = run(capsys, "sprt", "major-general", "a=random", "c=greedy", "--duplicate", "--name", "dealt",
                         "--db", db)
    assert code == 2 and "already exists with bots a,b" in err  # (other bots under its name: refused too)
    code, out, err = run(capsys, "sprt", "major-general", "a=random", f"p={BUILTIN_BOTS / 'random'}", "--duplicate",
                         "--db", db)
    assert code == 2 and "only for in-process agents" in err
    code, out, err = run(capsys, "sprt", "major-general", "a=random", "b=random", "--max-pairs", "2", "-j", "1",
                         "--db", db)
    assert code == 0 and "each pair on one deal" not in out


@pytest.mark.parametrize("argv,message", [
    (["tournament", "run", "major-general", "--bots", "nosuchbot,random"], "unknown agent"),
    (["tournament", "run", "major-general", "--bots", "random,random"], "entered twice"),
    (["tournament", "run", "major-general", "--bots", "a=random,b=random", "--format", "league"], "unknown format"),
    (["tournament", "run", "nosuchgame", "--bots", "a=random,b=random"], "unknown game"),
    (["tournament", "run", "major-general", "--bots", "a=random,b=random", "--for", "soon"], "bad duration"),
    (["tournament", "resume", "404"], "no tournament"),
    (["bot", "show", "nobody"], "no bot named"),
    (["sprt", "major-general", "a=random", "b=random", "--elo0", "5", "--elo1", "0"], "elo0"),
    (["sprt", "a=random", "b=random", "major-general"], "the game comes first"),
    (["leaderboard", "--db", "nonsense://"], "database"),
])
def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], db: str, argv: list[str], message: str) -> None:
    from arena.store import Store

    Store.open(db).close()  # an empty database (commands that only read make none)
    if "--db" not in argv:
        argv = [*argv, "--db", db]
    code, _, err = run(capsys, *argv)
    assert code != 0
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_tournament_that_cannot_read_its_bots_is_not_created(capsys: pytest.CaptureFixture[str], db: str,
                                                               tmp_path: Path) -> None:
    bot = tmp_path / "bad-bot"
    bot.mkdir()
    (bot / "bot.py").write_text("")
    (bot / "bot.toml").write_text('name = "bad-bot"\ncommand = ["{python}", "bot.py"]\ngames = "major-general"\n')
    code, out, err = run(capsys, "tournament", "run", "major-general", "--bots", f"{bot},random", "--db", db)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert str(bot / "bot.toml") in err and "games must be a list" in err and "resume" not in err
    assert not Path(db.removeprefix("sqlite:///")).exists()  # no tournament left "running"


def test_a_bot_folder_is_checked_as_a_submission_is(capsys: pytest.CaptureFixture[str], db: str,
                                                    tmp_path: Path) -> None:
    """The checks `arena bot submit` makes: a program that is not in the folder, a game that does not exist."""
    bot = tmp_path / "unbuilt"
    bot.mkdir()
    (bot / "bot.toml").write_text('\ufeffname = "unbuilt"\r\ncommand = ["./starter-bot"]\r\ngames = ["no-such-game"]\r\n',
                                  encoding="utf-8")
    code, _, err = run(capsys, "tournament", "run", "major-general", "--bots", f"{bot},random", "--db", db)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert f"{bot / 'bot.toml'}:2: the program './starter-bot' is not in the folder" in err
    assert f"{bot / 'bot.toml'}:3: no game 'no-such-game'" in err
    assert not Path(db.removeprefix("sqlite:///")).exists()
