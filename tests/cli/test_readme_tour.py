"""The README's short tour, run as a new user runs it on a fresh clone: every command in its order, each one
exiting 0 (a `<file>` is a record the plays before it wrote). Bench scripts are left to bench/'s own tests."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tour_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## A short tour\n\n```sh\n(.*?)```", text, re.S)
    assert block, "the README has no short tour"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_tour_runs_in_order(tmp_path: Path) -> None:
    commands = tour_commands()
    assert any("<file>" in command for command in commands) and len(commands) >= 6
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env["COLUMNS"] = "120"
    for command in commands:
        argv = shlex.split(command)
        if argv[0].endswith("python"):  # bench scripts: measured elsewhere
            continue
        assert argv[0] == ".venv/bin/arena", command
        if any("<file>" in part for part in argv):
            folder = tmp_path / Path(next(part for part in argv if "<file>" in part)).parent
            records = sorted(folder.glob("*.jsonl*"))
            assert records, f"{command}: no record under {folder} yet (the tour's order is wrong)"
            argv = [part.replace(part, str(records[0])) if "<file>" in part else part for part in argv]
        done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", *argv[1:]],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
