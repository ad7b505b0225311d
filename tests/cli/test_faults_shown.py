"""A bot program's fault is reported with its own last output lines wherever it is reported: `arena match`,
a tournament's summary and `arena tournament show`, and `arena replay` of the record (a file or a stored
match); its opponent is not blamed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.cli.main import main

MARKER = "MARKER-7f3a: cannot find my weights file"


def crashing_bot(folder: Path) -> Path:
    """A bot that prints a line and a traceback-like tail, then exits before it connects."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(f'name = "crashbot"\ncommand = ["{sys.executable}", "bot.py"]\n')
    (folder / "bot.py").write_text(f"import sys\nprint('starting up')\nprint({MARKER!r}, file=sys.stderr)\n"
                                   "print('\\x1b]0;pwned\\x07 title set', file=sys.stderr)\nsys.exit(1)\n")
    return folder


def test_arena_match_shows_the_bots_last_output_and_blames_it_alone(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    bot = crashing_bot(tmp_path / "crashbot")
    assert main(["match", "major-general", str(bot), "random", "--games", "2", "--seed", "1",
                 "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert MARKER in out and "crashbot lost by crash" in out
    assert "\x1b]0;" not in out and "\\x1b]0;pwned\\x07" in out  # its escape sequences are written out
    by_bot = out[out.index("By bot"):]
    random_row = [cell.strip() for cell in next(line for line in by_bot.splitlines() if "random" in line).split("│")]
    assert random_row[6:8] == ["-", "opponent's crash 2"]  # its own faults: none
    records = sorted((tmp_path / "out").rglob("*.jsonl*"))
    assert records
    assert main(["replay", str(records[0]), "--final"]) == 0
    out = capsys.readouterr().out
    assert MARKER in out and "replay reproduces the record" in out


def test_a_tournament_summary_and_show_give_the_faulting_bots_output(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    bot = crashing_bot(tmp_path / "crashbot")
    db = str(tmp_path / "t.db")
    assert main(["tournament", "run", "major-general", "--bots", f"{bot},random", "--rounds", "1", "--name", "t",
                 "-j", "1", "--db", db, "--no-standings"]) == 0
    out = capsys.readouterr().out
    assert "crashbot lost by crash in 2 match(es)" in out and MARKER in out
    assert main(["tournament", "show", "t", "--db", db]) == 0
    out = capsys.readouterr().out
    assert MARKER in out
    match_id = out.split("the latest, match ")[1].split(":")[0]
    assert main(["replay", match_id, "--db", db, "--final"]) == 0  # a stored match by its id
    out = capsys.readouterr().out
    assert MARKER in out and "replay reproduces the record" in out
    assert main(["replay", "nosuchrecord", "--db", db]) == 1
    assert "no stored match 'nosuchrecord'" in capsys.readouterr().err


def test_a_half_written_bot_beside_the_ones_played_is_left_out_with_a_warning(capsys: pytest.CaptureFixture[str],
                                                                               tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot.toml being written in ./bots (here `games` not yet a list) stops no match of the other bots: that bot
    is left out, and a warning says what is wrong with it."""
    monkeypatch.chdir(tmp_path)
    half = tmp_path / "bots" / "halfway"
    half.mkdir(parents=True)
    (half / "bot.toml").write_text('name = "halfway"\ncommand = ["python3", "bot.py"]\ngames = "major-general"\n')
    assert main(["match", "major-general", "random", "trivial", "--games", "1", "--seed", "1", "--sandbox", "none",
                 "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert "a bot left out" in captured.err and "games" in captured.err and "halfway" in captured.err, captured.err
    assert "random" in captured.out and "trivial" in captured.out
