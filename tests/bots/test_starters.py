"""The starters in bots/, as a hobbyist copies them: the Python one and the C++ one (built with the
system's gRPC library, where its toolchain is here) pass `arena bot test` and play through the referee;
the Python one, a heuristic's lookahead, beats the random player. (The JavaScript one:
test_javascript_starter.py.) Where a toolchain is missing the test says which and how to get it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main

BOTS = Path(__file__).resolve().parents[2] / "bots"
CPP_TOOLS = ("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def failures(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(row["check"], row["detail"]) for row in report["checks"] if row["ok"] is False]


def shipped_starters(bots: Path = BOTS) -> list[str]:
    """The starters the repository ships: the folders bots/README.md's table lists (a user's own copy beside
    them, as the README tells them to make, is not one)."""
    table = (bots / "README.md").read_text()
    return re.findall(r"^\| \[([a-z0-9-]+)/\]\(\1/\) \|", table, re.MULTILINE)


def check_starters(bots: Path) -> None:
    starters = shipped_starters(bots)
    assert {"python", "javascript", "cpp"} <= set(starters)
    for name in starters:
        assert (bots / name / "bot.toml").is_file() and (bots / name / "README.md").is_file(), name
        assert "YOUR" in "".join(path.read_text() for path in (bots / name).glob("bot.*") if path.suffix != ".toml")


def test_every_starter_has_a_manifest_and_a_readme() -> None:
    check_starters(BOTS)


def test_a_users_own_bot_beside_the_starters_is_not_one_of_them(tmp_path: Path) -> None:
    """Following bots/README.md (`cp -r bots/python bots/my-bot`) leaves the starters' check as it was."""
    shipped = set(shipped_starters())  # (not the real folder's own bots: a user's my-bot may be there already)

    def only_the_shipped(folder: str, names: list[str]) -> set[str]:
        ignored = {"node_modules", "gen", "starter-bot"}
        if Path(folder) == BOTS:
            ignored |= {name for name in names if (BOTS / name).is_dir() and name not in shipped}
        return ignored & set(names)

    bots = shutil.copytree(BOTS, tmp_path / "bots", ignore=only_the_shipped)
    mine = shutil.copytree(bots / "python", bots / "my-bot")
    (mine / "bot.py").write_text("# my own bot, no placeholder left\n")
    assert "my-bot" not in shipped_starters(bots)
    check_starters(bots)


def test_the_python_starter_passes_and_beats_random(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    starter = shutil.copytree(BOTS / "python", tmp_path / "python")
    code, report = run(capsys, "bot", "test", str(starter), "--games", "major-general,general-orders-wwii", "--json")
    assert code == 0 and report["ok"], failures(report)
    code, data = run(capsys, "match", "major-general", str(starter), "random", "--games", "10", "--seed", "3",
                     "--out", str(tmp_path / "out"), "--json")
    assert code == 0  # (it wins about 19 games in 20; 7 of 10 leaves room for the bots' own dice)
    assert data["summary"]["starter-python"]["wins"] >= 7, data["summary"]


@pytest.fixture(scope="module")
def cpp_starter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the C++ starter, built as its README says (`make`; unoptimised here)."""
    missing = [tool for tool in CPP_TOOLS if shutil.which(tool) is None]
    if not missing and subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"]).returncode != 0:
        missing.append("libgrpc++-dev")
    if missing:
        pytest.skip(f"the C++ starter's toolchain is not here ({', '.join(missing)} missing): apt-get install g++ "
                    "make pkg-config libgrpc++-dev protobuf-compiler-grpc (`make test` does, as root)")
    folder = shutil.copytree(BOTS / "cpp", tmp_path_factory.mktemp("cpp") / "cpp",
                             ignore=shutil.ignore_patterns("gen", "starter-bot"))
    # (its Makefile's flags but -O0: the same program, built in about half the time)
    built = subprocess.run(["make", "-j2", "CXXFLAGS=-O0 -std=c++17 -Wall"], cwd=folder, capture_output=True,
                           text=True, timeout=900)
    assert built.returncode == 0, built.stderr[-3000:]
    return folder


def test_the_cpp_starter_passes_arena_bot_test(capsys: pytest.CaptureFixture[str], cpp_starter: Path) -> None:
    code, report = run(capsys, "bot", "test", str(cpp_starter), "--json")
    assert code == 0 and report["ok"], failures(report)
    rows = {row["check"]: row for row in report["checks"]}
    assert report["hello"]["omit_labels"] is True and rows["concurrent"]["matches"] == 2


def test_the_cpp_starter_plays_general_orders_through_the_referee(capsys: pytest.CaptureFixture[str],
                                                                  cpp_starter: Path, tmp_path: Path) -> None:
    code, data = run(capsys, "match", "general-orders-sengoku/rivers", str(cpp_starter), "random", "--games", "2",
                     "--seed", "4", "--out", str(tmp_path), "--json")
    assert code == 0 and data["summary"]["starter-cpp"]["faults"] == 0
    for played in data["games"]:
        assert main(["replay", played["record"], "--final"]) == 0
        assert "replay reproduces the record" in capsys.readouterr().out
