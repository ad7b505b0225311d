"""Progress off a terminal: written to a pipe or a file, long runs print lines a user (or a log) can follow:
done/total, elapsed, an ETA and the last result, at the start, every few seconds or tenth of the way, and
at the end; one display across several tournaments; nothing with --json."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import show
from arena.cli.show import RunDisplay
from arena.bots import BUILTIN_BOTS

LINE = re.compile(r"(\d+)/(\d+) matches \((\d+)%\), [\d.ms ]+ elapsed")


def arena(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`arena ARGV` as a user runs it with its output piped (not a terminal)."""
    return subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_a_piped_tournament_prints_progress_lines_then_its_summary(tmp_path: Path) -> None:
    done = arena("tournament", "run", "general-orders-wwii/alpine", "--bots", "random,greedy,scripted", "--rounds", "2",
                 "-j", "1", "--db", "t.db", "--no-standings", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    progress = [(index, LINE.search(line)) for index, line in enumerate(lines) if LINE.search(line)]
    assert len(progress) >= 2, done.stdout
    end = next(index for index, line in enumerate(lines) if "match(es) played" in line)
    assert all(index < end for index, _ in progress)
    counts = [int(found.group(1)) for _, found in progress]
    assert counts == sorted(counts) and counts[-1] == int(progress[-1][1].group(2)) == 12
    assert "last: " in lines[progress[-1][0]] and ("beat" in lines[progress[-1][0]] or "drew" in lines[progress[-1][0]])
    quiet = arena("tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "1", "-j", "1",
                  "--db", "q.db", "--json", cwd=tmp_path)
    assert quiet.returncode == 0 and not LINE.search(quiet.stdout) and quiet.stdout.lstrip().startswith("{")


def test_a_piped_match_and_bot_test_show_their_progress(tmp_path: Path) -> None:
    done = arena("match", "major-general", "random", str(BUILTIN_BOTS / "trivial"), "--games", "4",
                 "--bots", str(BUILTIN_BOTS), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"4/4 games \(100%\)", done.stdout), done.stdout
    tested = arena("bot", "test", str(BUILTIN_BOTS / "trivial"), cwd=tmp_path)
    assert tested.returncode == 0, tested.stderr
    checks = re.findall(r"(\d+)/(\d+) checks \(\d+%\)", tested.stdout)
    assert checks and checks[-1][0] == checks[-1][1], tested.stdout


def test_lines_come_by_time_and_by_tenths_but_at_most_one_a_second(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    clock = [100.0]
    monkeypatch.setattr(show.time, "monotonic", lambda: clock[0])
    with RunDisplay("t", unit="games") as display:
        display.interactive = False
        for done in range(1, 101):  # 100 games, one every 0.05 s: 5 s in all
            clock[0] += 0.05
            display.advance(done, 100, f"game {done}")
    lines = capsys.readouterr().out.splitlines()
    assert 4 <= len(lines) <= 7, lines  # each a second apart at most, plus the last
    assert lines[-1].startswith("t: 100/100 games (100%)") and "ETA" not in lines[-1]
    assert "ETA" in lines[1]


def test_a_series_prints_by_time_across_its_parts(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    clock = [100.0]
    monkeypatch.setattr(show.time, "monotonic", lambda: clock[0])
    display = RunDisplay("", series=True)
    display.interactive = False
    with display:
        for part in range(1, 4):
            display.begin(f"[{part}/3] game-{part}")
            for done in range(1, 11):
                clock[0] += 0.4  # 4 s a part: 12 s in all
                display.advance(done, 10)
    lines = capsys.readouterr().out.splitlines()
    # the first at once, then every 5 s whatever the parts (not at each tenth, nor at each part's end)
    assert [line.split(":")[0] for line in lines] == ["[1/3] game-1", "[2/3] game-2", "[3/3] game-3"], lines
    assert lines[0].startswith("[1/3] game-1: 1/10 matches (10%)")
