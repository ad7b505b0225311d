"""No traceback reaches a user: every `arena` command, walked from the command tree itself, given bad input
of each kind a newcomer types (an unknown flag, nonsense arguments, a database in a folder that does not
exist, a bot folder without bot.toml, a bot.toml naming an unknown game) answers with one line and a
non-zero status. A command that does not handle the input would raise out of main() here, or print a
traceback: both fail the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from arena.cli.main import app, main


def leaves(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every runnable command under `command`, with the words that name it."""
    if hasattr(command, "list_commands"):
        context = command.make_context("arena", [], resilient_parsing=True)
        for name in command.list_commands(context):
            yield from leaves(command.get_command(context, name), (*path, name))
    else:
        yield path, command


COMMANDS = list(leaves(typer.main.get_command(app)))


def arguments(command: Any) -> list[Any]:
    return [param for param in command.params if param.param_type_name == "argument"]


def words(path: tuple[str, ...]) -> str:
    return " ".join(path)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("path, command", COMMANDS, ids=[words(path) for path, _ in COMMANDS])
def test_bad_input_is_one_line_never_a_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch, path: tuple[str, ...],
                                                 command: Any) -> None:
    monkeypatch.chdir(tmp_path)  # (no results/ here: read commands must say so, not make one)
    monkeypatch.setenv("ARENA_RESULTS", str(tmp_path / "results"))
    nonsense = ["No Such Thing!"] * max(1, len(arguments(command)))  # no valid name, game, bot or file
    attempts = [[*path, "--no-such-flag"], [*path, *nonsense]]
    if any("--db" in getattr(param, "opts", []) for param in command.params):
        attempts.append([*path, *nonsense, "--db", str(tmp_path / "missing" / "dir" / "x.db")])
    for argv in attempts:
        code, output = run(capsys, argv)
        assert "Traceback" not in output, f"arena {' '.join(argv)}:\n{output}"
        assert code != 0, f"arena {' '.join(argv)} accepted bad input:\n{output}"
        assert output.strip(), f"arena {' '.join(argv)} failed without a word"


def test_a_bot_folder_newcomers_get_wrong_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # (`bot submit` makes its bot store under results/: here, not in the checkout)
    monkeypatch.setenv("ARENA_RESULTS", str(tmp_path / "results"))
    empty = tmp_path / "nobot"
    empty.mkdir()
    unknown = tmp_path / "unknown-game"
    unknown.mkdir()
    (unknown / "bot.toml").write_text('name = "u"\ncommand = ["{python}", "bot.py"]\ngames = ["major-genral"]\n')
    (unknown / "bot.py").write_text("")
    cases = [
        (["bot", "test", str(tmp_path / "missing")], "no such folder"),
        (["bot", "test", str(empty)], "no bot.toml in"),
        (["bot", "test", str(unknown)], "did you mean 'major-general'"),
        (["match", "major-general", str(empty), "random"], "no bot.toml in"),
        (["match", "major-general", str(tmp_path / "missing"), "random"], "no such folder"),
        (["bot", "submit", str(empty), "--db", str(tmp_path / "a.db")], "missing: a bot needs a bot.toml"),
        (["play", "major-generl"], "did you mean 'major-general'"),
        (["play", "major-general", "--players", "randm,random"], "did you mean 'random'"),
        (["tournment"], "Did you mean 'tournament'"),
        (["ladder", "serve", "--games", "major-general", "--every", "15"], "has no unit"),
        (["sprt", "random", "greedy", "major-general"], "the game comes first"),
    ]
    for argv, words_expected in cases:
        code, output = run(capsys, argv)
        assert code != 0 and "Traceback" not in output and words_expected in output, (argv, output)
        assert len([line for line in output.splitlines() if line.strip()]) <= 5, (argv, output)


@pytest.mark.parametrize("command", [["serve"], ["web", "--db", "t.db"]])
def test_a_port_in_use_is_one_line(tmp_path: Path, command: list[str]) -> None:
    """`arena serve` and `arena web` on a port something else holds: one line naming it, non-zero, as a
    user running them in a terminal sees it."""
    import socket
    import subprocess
    import sys

    from arena.store import Store

    Store.open(f"sqlite:///{tmp_path / 't.db'}").close()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = str(holder.getsockname()[1])
        done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", *command,
                               "--port", port], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in output, output
    assert f"127.0.0.1:{port}" in output and "in use" in output and len(output.strip().splitlines()) == 1, output
