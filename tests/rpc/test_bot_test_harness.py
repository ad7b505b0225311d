"""`arena bot test`: the conformance run passes bots that keep the protocol and fails, with the reason and
what to fix, those that do not."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main


def bot_test(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["bot", "test", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def checks(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The report's rows by check name (the last play row stands for all)."""
    return {row["check"]: row for row in report["checks"]}


def test_a_good_bot_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = bot_test(capsys, str(BUILTIN_BOTS / "random"), "--games", "major-general,general-orders-wwii")
    assert code == 0 and report["ok"], [(row["check"], row["detail"]) for row in report["checks"] if row["ok"] is False]
    assert report["hello"] == {"name": "random", "version": "1", "games": ["*"], "omit_labels": True}
    rows = checks(report)
    plays = [row for row in report["checks"] if row["check"] == "play"]
    assert [row["game"] for row in plays] == ["major-general", "general-orders-wwii/alpine"]
    for row in plays:
        assert row["ok"] and row["matches"] == 2 and row["decisions"] > 0
        assert row["timing"]["max_ms"] >= row["timing"]["mean_ms"] > 0
    assert rows["labels-omitted"]["ok"]
    assert rows["opponent-leaves"]["ok"]  # the open decision named by the match's numbering, as its replay names it
    assert re.search(r"decision \d+ \(step \d+\) open \(the bot had answered 1 decision",
                     rows["opponent-leaves"]["detail"])
    assert rows["opponent-leaves"]["decisions"] == 1
    assert rows["next-match"]["ok"] and "same process" in rows["next-match"]["detail"]
    assert rows["concurrent"]["skipped"] and "concurrency = 1" in rows["concurrent"]["detail"]


def test_matches_at_once_on_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = bot_test(capsys, str(BUILTIN_BOTS / "trivial"), "--games", "major-general", "--matches", "1")
    assert code == 0, report
    concurrent = checks(report)["concurrent"]
    assert concurrent["ok"] and concurrent["matches"] == 4
    assert concurrent["detail"].startswith("4 matches at once on one process")


def test_wrong_sequence_numbers_fail_with_the_reason(capsys: pytest.CaptureFixture[str], test_bots: Path) -> None:
    code, report = bot_test(capsys, str(test_bots / "stale"))
    assert code == 1 and not report["ok"]
    play = checks(report)["play"]
    assert play["ok"] is False and play["reason"] == "wrong_sequence"
    # the moment named as its replay names it: the match's decision and step (the bot's 3rd decision)
    assert re.search(r"at decision (\d+) \(step \d+\): wrong_sequence: answered sequence number \d+ to decision "
                     r"\1 \(step \d+\), expected \1", play["detail"]), play["detail"]
    assert play["fix"].startswith("Echo the sequence number of the decision request you answer")
    assert checks(report)["handshake"]["ok"]  # the rest still ran: one run shows everything wrong


def test_the_table_names_the_failure_and_the_fix(capsys: pytest.CaptureFixture[str], test_bots: Path) -> None:
    code = main(["bot", "test", str(test_bots / "stale")])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL" in out and "wrong_sequence" in out and "Echo the sequence number" in out
    assert "failed:" in out.splitlines()[-1]


def test_a_bot_that_dies_of_an_early_match_end_fails_next_match(capsys: pytest.CaptureFixture[str],
                                                                test_bots: Path) -> None:
    code, report = bot_test(capsys, str(test_bots / "fragile"))
    assert code == 1
    rows = checks(report)
    assert rows["opponent-leaves"]["ok"]  # the referee did its part: MatchEnd with the request open
    following = rows["next-match"]
    assert following["ok"] is False
    assert "exited with status 4" in following["detail"] and "fragile bot: " in following["detail"]
    assert following["fix"].startswith("Expect MatchEnd at any time")


def test_a_bot_that_does_not_start_fails_the_handshake_and_skips_the_rest(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "broken"\nversion = "1"\ncommand = ["{python}", "bot.py"]\n'
                                       'games = ["major-general"]\n')
    (tmp_path / "bot.py").write_text("import sys\nprint('missing a dependency', file=sys.stderr)\nsys.exit(3)\n")
    code, report = bot_test(capsys, str(tmp_path))
    assert code == 1
    rows = report["checks"]
    assert rows[0]["check"] == "handshake" and rows[0]["ok"] is False and rows[0]["reason"] == "crash"
    assert "exited with status 3 before it connected" in rows[0]["detail"]
    assert "output above says why" in rows[0]["fix"]
    assert all(row["skipped"] for row in rows[1:])
    assert "missing a dependency" in report["output_tail"]


def test_bad_arguments_are_one_line(capsys: pytest.CaptureFixture[str], test_bots: Path, tmp_path: Path) -> None:
    assert main(["bot", "test", str(test_bots / "stale"), "--games", "general-orders-wwii"]) == 2
    assert "stale does not play general-orders-wwii/alpine" in capsys.readouterr().err
    assert main(["bot", "test", str(test_bots / "stale"), "--games", "chess"]) == 2
    assert "chess" in capsys.readouterr().err
    assert main(["bot", "test", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "bot.toml" in err and "Traceback" not in err


@pytest.mark.parametrize("toml, said", [
    ('name = "mine"\nversion = "1"\ncommand = ["{python}", "bot.py"]\ngames = ["major-genral"]\n',
     ["bot.toml:4: no game 'major-genral' here (did you mean 'major-general'?)"]),
    ("", ["bot.toml: name is missing", "bot.toml: command is missing"]),
])
def test_bot_test_checks_bot_toml_as_submit_does(capsys: pytest.CaptureFixture[str], tmp_path: Path, toml: str,
                                                 said: list[str]) -> None:
    """`arena bot test` reads bot.toml with the checker `arena bot submit` and the web use: every problem on a
    line of its own, with its line and its fix, and nothing run."""
    (tmp_path / "bot.py").write_text("print('never run')\n")
    (tmp_path / "bot.toml").write_text(toml)
    assert main(["bot", "test", str(tmp_path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    for line in said:
        assert line in err, err
    assert "fix:" in err and "wrong characters" not in err and "Traceback" not in err
