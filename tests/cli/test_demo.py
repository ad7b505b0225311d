"""What `make demo` does, at a small size: every mode in one named run, one summary across the modes,
and a second run that goes on with the same tournaments instead of piling up new ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.games.registry import game_modes


def test_the_demo_runs_every_mode_once_and_goes_on_when_run_again(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")  # a plain path, as a newcomer types it
    argv = ["tournament", "run", "all", "--bots", "random,greedy,scripted", "--rounds", "1", "-j", "2", "--name", "demo",
            "--no-standings", "--db", db]
    modes = [mode.name for mode in game_modes()]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"{len(modes)} tournaments" in out and all(mode in out for mode in modes)
    assert "greedy" in out and "resume with" not in out  # every mode finished: nothing to resume
    assert out.count("ratings: arena leaderboard") == 1 and f"--db {db}" in out
    assert len(out.splitlines()) < 40, out

    assert main(["tournament", "list", "--db", db, "--json"]) == 0
    first = {row["name"]: row["matches"] for row in json.loads(capsys.readouterr().out)}

    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "finished before; 1 more round(s) each now" in out and out.count("finished before") == 1
    assert main(["tournament", "list", "--db", db, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == len(modes)  # the same tournaments, not new ones
    assert all(row["status"] == "finished" and row["rounds"] == 2 and row["matches"] == 2 * first[row["name"]]
               for row in listed)


def test_several_tournaments_resume_in_one_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    for name in ("one", "two"):
        assert main(["tournament", "run", "major-general", "--bots", "random,greedy,scripted", "--rounds", "2",
                     "--name", name, "-j", "1", "--db", db, "--json", "--for", "0.001s"]) == 0
    capsys.readouterr()
    assert main(["tournament", "resume", "one", "two", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "2 tournaments" in out and "finished" in out and "resume with" not in out
    assert main(["tournament", "resume", "one", "nobody", "--db", db]) == 1
    err = capsys.readouterr().err
    assert "no tournament 'nobody'" in err and f"arena tournament list --db {db}" in err


def test_a_run_too_short_for_its_modes_still_shows_each_of_them(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    """`make demo` on a busy machine: a share of the time far shorter than a mode's matches still lets each mode
    play a match per worker (no silent empty row); the run says what is left to resume."""
    db = str(tmp_path / "short.db")
    assert main(["tournament", "run", "all", "--bots", "random,greedy,scripted", "--rounds", "2", "-j", "2",
                 "--name", "short", "--for", "1ms", "--db", db, "--json"]) == 0
    tournaments = json.loads(capsys.readouterr().out)["tournaments"]
    assert len(tournaments) == len(game_modes())
    for tournament in tournaments:
        shown = {key: tournament[key] for key in ("game", "played", "stored", "stopped_by", "finished")}
        assert tournament["stored"] >= 2, shown
        assert tournament["finished"] or tournament["stopped_by"] == "deadline", shown
