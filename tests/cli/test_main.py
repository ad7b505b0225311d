"""The `arena` entry (arena/cli/main.py): its table of commands says what each command's own help says, a
command's module is imported only when that command runs, `--version` and `--help` import none, and -h, -V,
`arena help [COMMAND...]` and `arena version` work everywhere (issue 45, item 9)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import COMMANDS, load_command, main, version_line
from arena.referee.players import PlayerKind
from arena.store import BotIdentity, Store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_tables_summary_is_the_commands_own(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert command.get_short_help_str(limit=10_000) == COMMANDS[name].summary


def test_help_lists_every_command_from_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    listed = [line.split()[0] for line in out.split("Commands:\n", 1)[1].splitlines() if line.startswith("  ")]
    assert listed == list(COMMANDS)
    assert "-h, --help" in out and "-V, --version" in out


def test_version_and_help_import_no_command(tmp_path: Path) -> None:
    """`arena --version`, `arena -h` and a bare `arena` load neither a command's module, nor the CLI's floor,
    nor the database's (CPU: `/usr/bin/time -f %U+%S arena --version`, under 0.2 s; here only what is imported)."""
    script = ("import sys; from arena.cli.main import main; main(sys.argv[1:]); "
              "print(sorted(m for m in sys.modules if m.startswith('arena.') or m in ('sqlalchemy', 'rich')))")
    for argv in (["--version"], ["-V"], ["version"], ["--help"], ["-h"], [], ["help"]):
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=tmp_path,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        loaded = eval(done.stdout.splitlines()[-1])  # (our own print of a list of names)
        assert loaded == ["arena.cli", "arena.cli.main"], (argv, loaded)


def test_short_options_and_the_help_and_version_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-V")[1] == run(capsys, "--version")[1] == run(capsys, "version")[1] == version_line() + "\n"
    assert run(capsys, "-h")[1] == run(capsys, "--help")[1] == run(capsys, "help")[1]
    assert run(capsys, "help", "bot", "submit")[1] == run(capsys, "bot", "submit", "-h")[1] \
        == run(capsys, "bot", "submit", "--help")[1]
    assert run(capsys, "help", "ladder")[1] == run(capsys, "ladder", "--help")[1]
    code, out, err = run(capsys, "help", "bot", "sumbit")
    assert code == 2 and not out and err == "arena: error: No such command 'sumbit'. Did you mean 'submit'?\n"
    code, _, err = run(capsys, "help", "games", "more")
    assert code == 2 and err.startswith("arena: error: No such command 'more'")


def test_a_lazily_loaded_command_still_shows_its_values_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "help", "play")
    assert code == 0 and "--games N" in out and "<int" not in out and "GAME" in out


def test_bot_versions_prints_each_status_styled_never_its_markup(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(url)
    for version, status in (("1", "retired"), ("2", "failed"), ("3", "live")):
        bot, _new = store.bots.add_version(BotIdentity("eve-bot", version, version * 4, PlayerKind.PROGRAM,
                                                       f"/bots/eve-bot/{version}", "eve"), games=["major-general"])
        store.bots.set_status(bot, status)
    store.close()
    code, out, _ = run(capsys, "bot", "versions", "eve-bot", "--db", url)
    assert code == 0 and all(status in out for status in ("live", "failed", "retired"))
    assert "[green]" not in out and "[/" not in out, out  # (issue 45, item 8)
    code, out, _ = run(capsys, "bot", "versions", "eve-bot", "--db", url, "--json")
    assert code == 0 and [row["status"] for row in json.loads(out)] == ["retired", "failed", "live"]
