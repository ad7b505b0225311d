"""Every `arena` command: its happy path, the keys of its --json output (a contract: scripts read them),
and its bad-input lines (one line, a non-zero status, never a traceback).

Commands that need a running referee or a broker are covered where those run (tests/rpc/test_cli.py,
tests/tournament/test_celery.py); here their bad input, which fails before anything starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.referee.seeds import game_seed

GAME = "major-general"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def one_line(err: str) -> None:
    assert "Traceback" not in err and err.startswith("arena: error: ") and err.strip().count("\n") == 0, err


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database holding a finished round-robin named 'rr' of three agents."""
    url = f"sqlite:///{tmp_path_factory.mktemp('cli') / 'arena.db'}"
    code = main(["tournament", "run", GAME, "--bots", "random,greedy,scripted", "--rounds", "1", "--seed", "2",
                 "--name", "rr", "-j", "1", "--db", url, "--json"])
    assert code == 0
    return url


# --- games, play, replay ---------------------------------------------------------------------------


def test_games(capsys: pytest.CaptureFixture[str]) -> None:
    modes = run_json(capsys, "games")
    assert set(modes[0]) == {"name", "family", "title", "description", "seats", "actions", "options", "choices"}
    code, out, _ = run(capsys, "games")
    assert code == 0 and "Major General" in out and "general-orders-wwii/alpine" in out
    assert "blitz=empty-reserve|must-pass" in out and "GO-8" in out  # the options table


def test_play(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = run_json(capsys, "play", GAME, "--players", "greedy,random", "--games", "2", "--seed", "3",
                    "--out", str(tmp_path))
    assert set(data) == {"game", "games", "options", "players", "seconds", "swap", "duplicate", "by_player"}
    assert set(data["games"][0]) == {"decisions", "ranking", "reason", "record", "scores", "seed", "seats"}
    assert data["players"] == ["greedy", "random"] and data["duplicate"] is False
    seeds = [g["seed"] for g in data["games"]]
    assert seeds == [game_seed(3, 0), game_seed(3, 1)]  # each game its own chance, keyed by --seed
    code, out, _ = run(capsys, "replay", data["games"][0]["record"], "--final")
    assert code == 0 and "replay reproduces the record" in out


def test_a_stored_match_is_read_and_its_store_closed(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena replay ID` and `arena analyse ID` read a stored match's record through a store they close (one
    connection left open per command before)."""
    from arena.cli import settings

    opened: list[Any] = []

    def tracked(*args: Any, **kwargs: Any) -> Any:
        store = real(*args, **kwargs)
        opened.append(store)
        return store

    real = settings.open_store
    monkeypatch.setattr(settings, "open_store", tracked)
    from arena.store.repository import Store

    closed: list[Any] = []
    close = Store.close
    monkeypatch.setattr(Store, "close", lambda self: (closed.append(self), close(self)))
    label, data, match_id = settings.record_bytes("1", db)
    assert label == "match 1" and match_id == 1 and data
    assert len(opened) == 1 and closed == opened


def test_the_next_commands_a_stored_match_names_keep_its_db(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    """`arena replay ID --db D` suggests `arena analyse ID --db D`, and `arena analyse ID --db D` names `arena replay
    ID --db D`: pasted, they read the same database (the default one otherwise)."""
    url = f"sqlite:///{tmp_path / 'other.db'}"
    assert main(["tournament", "run", GAME, "--bots", "random,greedy", "--rounds", "1", "-j", "1", "--db", url,
                 "--json"]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "replay", "1", "--final", "--db", url)
    assert code == 0 and f"where was it won and lost? arena analyse 1 --db {url}" in " ".join(out.split()), out
    code, out, _ = run(capsys, "analyse", "1", "--budget", "5", "--db", url)
    assert code == 0 and f"`arena replay 1 --db {url}` show it" in " ".join(out.split()), out


@pytest.mark.parametrize("argv, code, words", [
    (["play", "no-such-game"], 2, "unknown game 'no-such-game'"),
    (["play", GAME, "--players", "random"], 2, "has 2 seats"),
    (["play", GAME, "--players", "random,nobody"], 2, "unknown agent"),
    (["play", GAME, "-o", "scenario"], 2, "bad option 'scenario'"),
    (["play", GAME, "-o", "scenario=nowhere"], 2, "scenario"),
    (["play", GAME, "--games", "0"], 2, "--games"),
    (["replay", "/no/such/record.jsonl"], 1, "no such"),
])
def test_play_and_replay_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], code: int,
                                   words: str) -> None:
    got, _, err = run(capsys, *argv)
    assert got == code, err
    one_line(err)
    assert words.lower() in err.lower(), err


# --- tournaments -----------------------------------------------------------------------------------


def test_tournament_run_list_show_export_resume(capsys: pytest.CaptureFixture[str], db: str, tmp_path: Path) -> None:
    listed = run_json(capsys, "tournament", "list", "--db", db)
    assert set(listed[0]) == {"id", "name", "game", "pool", "format", "rounds", "status", "matches",
                              "created_at"}  # the seed only with --show-secret (below)
    assert listed[0]["name"] == "rr" and listed[0]["matches"] == 6
    shown = run_json(capsys, "tournament", "show", "rr", "--db", db)
    assert set(shown) == {"id", "name", "game", "pool", "format", "rounds", "status", "matches", "reasons",
                          "standings"}
    assert set(shown["standings"][0]) == {"bot", "seed_position", "games", "wins", "draws", "losses", "points",
                                          "faults", "score_pct", "against"}
    resumed = run_json(capsys, "tournament", "resume", "rr", "--db", db)["tournaments"][0]
    assert set(resumed) == {"id", "name", "game", "pool", "format", "rounds", "played", "stored",
                            "expected", "finished", "stopped_by", "seconds", "standings"}  # (the seed: --show-secret)
    assert resumed["played"] == 0 and resumed["finished"]
    code, out, _ = run(capsys, "tournament", "export", "rr", "--db", db, "--out", str(tmp_path))
    assert code == 0 and len(list(tmp_path.glob("*.jsonl.gz"))) == 6
    code, out, _ = run(capsys, "tournament", "show", "rr", "--db", db)
    assert code == 0 and "greedy" in out and "endings" in out


def test_a_status_command_never_prints_the_series_secret(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 46: every game's seed is computed from the tournament's seed, so a pasted `tournament show` or
    `list`, or a run's report, would give away every deal to come. They print it only with --show-secret, for the
    operator."""
    secret = "7316093351827405"
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    code, out, _ = run(capsys, "tournament", "run", GAME, "--bots", "random,greedy", "--rounds", "1", "--seed", secret,
                       "--name", "hidden", "-j", "1", "--db", db)
    assert code == 0 and secret not in out
    for command in (("list",), ("show", "hidden"), ("run", GAME, "--bots", "random,greedy", "--rounds", "1",
                                                     "--name", "hidden", "-j", "1"), ("resume", "hidden")):
        for json_flag in ((), ("--json",)):
            code, out, _ = run(capsys, "tournament", *command, *json_flag, "--db", db)
            assert code == 0 and "hidden" in out and secret not in out, (command, json_flag)
            code, out, _ = run(capsys, "tournament", *command, *json_flag, "--show-secret", "--db", db)
            assert code == 0 and secret in out, (command, json_flag)
    assert run_json(capsys, "tournament", "show", "hidden", "--show-secret", "--db", db)["seed"] == int(secret)
    assert run_json(capsys, "tournament", "resume", "hidden", "--show-secret", "--db", db)["tournaments"][0][
        "seed"] == int(secret)
    assert run_json(capsys, "tournament", "list", "--show-secret", "--db", db)[0]["seed"] == int(secret)


@pytest.mark.parametrize("argv, words", [
    (["tournament", "run", GAME, "--bots", "random,nobody"], "unknown agent"),
    (["tournament", "run", GAME, "--bots", "random,random"], "entered twice"),
    (["tournament", "run", GAME, "--bots", "random,greedy", "--format", "league"], "unknown format 'league'"),
    (["tournament", "run", GAME, "--bots", "random,greedy", "--format", "ladder"], "arena ladder run"),
    (["tournament", "run", GAME, "--bots", "random,greedy", "--for", "soon"], "bad duration"),
    (["tournament", "run", GAME, "--bots", "random,greedy", "--name", "rr"], "already exists"),
    (["tournament", "resume", "nobody-knows"], "no tournament 'nobody-knows'"),
    (["tournament", "show", "404"], "no tournament '404'"),
    (["tournament", "export", "nobody-knows"], "no tournament"),
    (["tournament", "run", GAME, "--bots", "random,greedy", "--seed", str(2 ** 63)], "9223372036854775807"),
    (["sprt", GAME, "greedy", "random", "--seed", str(2 ** 63)], "9223372036854775807"),
    (["tournament", "run", GAME, "--bots", "random,greedy", "--name", ""], "--name cannot be empty"),
    (["sprt", GAME, "greedy", "random", "--name", " "], "--name cannot be empty"),
])
def test_tournament_bad_input(capsys: pytest.CaptureFixture[str], db: str, argv: list[str], words: str) -> None:
    before = run_json(capsys, "tournament", "list", "--db", db)
    code, _, err = run(capsys, *argv, "--db", db)
    assert code != 0, err
    one_line(err)
    assert words in err, err
    assert run_json(capsys, "tournament", "list", "--db", db) == before  # refused before anything was stored


# --- ratings: leaderboard, rerate, bot, ladder, sprt -------------------------------------------


def test_leaderboard_and_rerate(capsys: pytest.CaptureFixture[str], db: str) -> None:
    rows = {"rank", "bot", "version", "mu", "sigma", "conservative", "games", "wins", "draws", "losses", "win_rate",
            "win_rate_low", "win_rate_high", "last_played", "kind", "owner", "origin"}
    board = run_json(capsys, "leaderboard", GAME, "--db", db)
    assert set(board) == {"pools"} and set(board["pools"][0]) == {"pool", "matches", "standings"}
    assert set(board["pools"][0]["standings"][0]) == rows
    with_bt = run_json(capsys, "leaderboard", GAME, "--db", db, "--bt")
    assert set(with_bt["pools"][0]["standings"][0]) == rows | {"bt_elo", "bt_elo_low", "bt_elo_high"}
    rerated = run_json(capsys, "rerate", GAME, "--db", db)
    assert set(rerated[0]) == {"pool", "matches", "bots", "seconds"} and rerated[0]["matches"] == 6
    again = run_json(capsys, "leaderboard", GAME, "--db", db)
    assert again == board  # rerating from the stored results gives the same ratings
    code, out, _ = run(capsys, "leaderboard", "--db", db)
    assert code == 0 and "mu" in out


def test_bot_list_and_show(capsys: pytest.CaptureFixture[str], db: str) -> None:
    bots = run_json(capsys, "bot", "list", "--db", db)
    assert set(bots[0]) == {"name", "version", "artifact_hash", "kind", "spec", "owner", "status", "created_at"}
    shown = run_json(capsys, "bot", "show", "greedy", "--db", db)
    assert set(shown) == {"name", "version", "artifact_hash", "kind", "spec", "owner", "status", "retired_at",
                          "preflight", "ratings"}
    rating = shown["ratings"][0]
    assert set(rating) == {"pool", "rank", "mu", "sigma", "conservative", "games", "wins", "draws", "losses",
                           "last_played", "history", "head_to_head", "luck"}
    assert set(rating["history"][0]) == {"match", "mu", "sigma", "at"}
    assert set(rating["head_to_head"][0]) == {"opponent", "games", "wins", "draws", "losses", "score", "score_low",
                                              "score_high", "corrected", "corrected_why"}
    assert set(rating["luck"]) == {"games", "total", "per_game"}
    code, out, _ = run(capsys, "bot", "show", "greedy", "--db", db)
    assert code == 0 and "head-to-head" in out
    # Major General's luck model does not predict results (beta 0): the column says so, and why, not a bare dash
    assert all(pair["corrected"] is None and "beta 0" in pair["corrected_why"] for pair in rating["head_to_head"])
    assert "not measured" in out and "luck is not measured for major-general" in " ".join(out.split())


def test_ladder_and_sprt(capsys: pytest.CaptureFixture[str], db: str) -> None:
    ladder = run_json(capsys, "ladder", "run", GAME, "--matches", "4", "--bots", "random,greedy", "--db", db)
    assert set(ladder) == {"ladder", "pools"}
    assert set(ladder["ladder"]) == {"id", "pool", "played", "stored", "seconds", "stopped_by"}
    assert ladder["ladder"]["played"] == 4
    test = run_json(capsys, "sprt", GAME, "greedy", "random", "--max-pairs", "2", "--db", db)
    assert set(test) == {"bot_a", "bot_b", "elo0", "elo1", "alpha", "beta", "model", "luck_corrected", "pairs",
                         "min_pairs", "games", "pentanomial", "llr", "lower", "upper", "decision", "elo", "elo_low",
                         "elo_high", "raw", "tournament", "duplicate"}
    assert test["pairs"] == 2 and test["min_pairs"] == 30 and test["decision"] is None  # (none before 30 pairs)
    assert test["duplicate"] is False


@pytest.mark.parametrize("argv, words", [
    (["leaderboard", "no-such-game"], "unknown game"),
    (["rerate", "no-such-game"], "unknown game"),
    (["bot", "show", "nobody"], "no bot named 'nobody'"),
    (["ladder", "run", "no-such-game"], "unknown game"),
    (["sprt", GAME, "random", "greedy", "--alpha", "2"], "alpha"),
    (["sprt", GAME, "random", "nobody"], "unknown agent"),
])
def test_ratings_bad_input(capsys: pytest.CaptureFixture[str], db: str, argv: list[str], words: str) -> None:
    code, _, err = run(capsys, *argv, "--db", db)
    assert code != 0, err
    one_line(err)
    assert words in err, err


@pytest.mark.parametrize("command", [["show"], ["versions"], ["compare", "{bot}", "1", "2"], ["retire"]],
                         ids=["show", "versions", "compare", "retire"])
def test_every_bot_command_says_did_you_mean_on_a_near_miss(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                           command: list[str]) -> None:
    from arena.referee.players import PlayerKind
    from arena.store import BotIdentity, Store

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(url)
    store.bots.register(BotIdentity("my-bot", "1", "a" * 64, PlayerKind.PROGRAM, str(tmp_path), ""))
    store.close()
    argv = ["bot", command[0], *(part.format(bot="my-bott") for part in command[1:])]
    if len(argv) == 2:
        argv.append("my-bott")
    code, _, err = run(capsys, *argv, "--db", url)
    assert code != 0
    one_line(err)
    assert "'my-bott' (did you mean 'my-bot'?)" in err, err


@pytest.mark.parametrize("url, words", [
    ("sqlite:///{tmp}/a-file/arena.db", "a-file"),
    ("postgresql+psycopg://nobody@127.0.0.1:1/nothing", "cannot open the database"),
])
def test_a_database_that_cannot_be_opened_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, url: str,
                                                      words: str) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    code, _, err = run(capsys, "tournament", "list", "--db", url.format(tmp=tmp_path))
    assert code != 0
    one_line(err)
    assert words in err, err


# --- the referee's commands: bad input fails before anything starts -----------------------------


@pytest.mark.parametrize("argv, words", [
    (["serve", "--sandbox", "docker"], "unknown sandbox 'docker'"),
    (["serve", "--limit-cap", "memory=1"], "bad limit"),
    (["serve", "--bot-env", "JUSTANAME"], "bad --bot-env"),
    (["serve", "--bot-env", "ARENA_TOKEN_FILE=/tmp/x"], "may not set ARENA_TOKEN_FILE"),
    (["serve", "--tls-cert", "cert.pem"], "TLS needs both"),
    (["serve", "--config", "/no/such/referee.toml"], "cannot read /no/such/referee.toml"),
    (["serve", "--remote", "=x"], "bad --remote"),
    (["serve", "--bots", "/proc/no/such/folder"], "no bot folder /proc/no/such/folder"),
    (["serve", "--sandbox-ro", "/no/such/runtime"], "no such path /no/such/runtime"),
    (["match", GAME, "random", "random", "--sandbox", "docker"], "unknown sandbox 'docker'"),
    (["match", GAME, "random"], "has 2 seats"),
    (["play", "general-orders-wwii/alpine", "-o", "mode=island"], "for mode=island name that mode instead"),
    (["play", GAME, "-o", "scenario=breakthrough"], "is played with scenario=random"),
    (["sprt", GAME, "greedy", "greedy"], "e.g. a=greedy and b=greedy"),
    (["watch", "abc", "--server", "127.0.0.1:1"], "no referee reachable at 127.0.0.1:1"),
    (["watch", "abc", "--server", "127.0.0.1:1", "--full", "--admin-token-file", "/no/such/token"],
     "no admin token file"),
])
def test_referee_commands_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code != 0, err
    lines = [line for line in err.strip().splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("arena: error: ") and "Traceback" not in err, err
    assert words in err, err


def test_a_config_file_with_unknown_keys_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "referee.toml"
    config.write_text('colour = "red"\n[sandbox]\nmode = "bwrap"\n')
    code, _, err = run(capsys, "serve", "--config", str(config))
    assert code == 2 and "unknown keys colour" in err
    config.write_text("[sandbox\n")
    code, _, err = run(capsys, "serve", "--config", str(config))
    assert code == 2 and "not valid TOML" in err
