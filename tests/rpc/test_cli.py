"""`arena match`, `arena serve` and `arena watch` from the command line."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.referee.record import MatchRecord
from arena.referee.seeds import game_seed
from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_match_plays_seat_swapped_games_and_stores_records(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "match", "major-general", "random", str(BUILTIN_BOTS / "trivial"), "--games", "4",
                         "--seed", "7", "--bots", str(BUILTIN_BOTS), "--out", str(tmp_path), "--json")
    assert code == 0, err
    data = json.loads(out)
    games = data["games"]
    assert [g["seed"] for g in games] == [game_seed(7, index) for index in range(4)]  # each game its own chance
    assert [g["seats"] for g in games] == [["random", "trivial"], ["trivial", "random"]] * 2
    summary = data["summary"]
    assert summary["random"]["games"] == summary["trivial"]["games"] == 4
    for name in ("random", "trivial"):
        row = summary[name]
        assert row["wins"] + row["draws"] + row["losses"] == 4
        assert row["mean_think_ms"] is not None and row["decisions"] > 0
    assert sum(summary["random"]["reasons"].values()) == 4
    for game in games:
        assert Path(game["record"]).exists()
        code, out, err = run(capsys, "replay", game["record"], "--final")
        assert code == 0 and "replay reproduces the record" in out


def test_builtin_bot_programs_are_found_from_any_folder(tmp_path: Path) -> None:
    """`arena match ./my-bot random` in a folder with no bots/: Arena's own bots ship with the package."""
    shutil.copytree(BUILTIN_BOTS / "trivial", tmp_path / "my-bot")
    manifest = tmp_path / "my-bot" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "trivial"', 'name = "my-bot"'))
    arena = [sys.executable, "-c", "from arena.cli.main import run; run()"]
    done = subprocess.run([*arena, "match", "major-general", "./my-bot", "random", "--games", "2", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["random"]["games"] == summary["my-bot"]["games"] == 2
    assert summary["random"]["faults"] == 0
    # a bot of the same name in ./bots takes the built-in's place
    shutil.copytree(tmp_path / "my-bot", tmp_path / "bots" / "random")
    manifest = tmp_path / "bots" / "random" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "my-bot"', 'name = "random"')
                        .replace('"bot.py"]', '"bot.py", "--version", "mine"]'))
    done = subprocess.run([*arena, "match", "major-general", "./my-bot", "random", "--games", "2", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / json.loads(done.stdout)["games"][0]["record"]).read_text().splitlines()[0])
    assert {player["name"]: player["version"] for player in record["players"]}["random"] == "mine"


def test_match_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "match", "major-general", "random", "nobody", "--bots", str(BUILTIN_BOTS),
                       "--out", str(tmp_path))
    assert code == 2 and "unknown bot 'nobody'" in err and "Traceback" not in err
    code, _, err = run(capsys, "match", "major-general", "random", "--out", str(tmp_path))
    assert code == 2 and "has 2 seats" in err
    code, _, err = run(capsys, "match", "major-general", "random", "random", "--fault-policy", "lenient")
    assert code == 2 and "bad fault policy" in err


def test_a_copied_bot_not_yet_renamed_is_left_out_with_a_warning(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    """bots/python copied to bots/my-bot: a match that asks for that name is told both folders; the others run."""
    from arena.rpc.server import RefereeServer, ServerConfig

    for folder in ("my-bot", "python"):
        shutil.copytree(ROOT / "bots" / "python", tmp_path / "bots" / folder)
    both = f"two bots are named 'starter-python': {tmp_path / 'bots' / 'my-bot'} and {tmp_path / 'bots' / 'python'}"
    code, _, err = run(capsys, "match", "major-general", "starter-python", "random", "--bots", str(tmp_path / "bots"),
                       "--out", str(tmp_path / "results"))
    assert code == 2 and "Traceback" not in err
    [warning] = [line for line in err.splitlines() if line.startswith("arena: warning: a bot left out: ")]
    [error] = [line for line in err.splitlines() if line.startswith("arena: error: ")]
    assert both in warning and both in error
    server = RefereeServer(ServerConfig(port=None, bot_dirs=(tmp_path / "bots",), results_dir=None))
    assert "random" in server.pool.manifests and "starter-python" not in server.pool.manifests
    server.pool.check_plays("random", "major-general", "major-general")  # a match between the others runs


def test_serve_match_watch_and_graceful_stop(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-c", "from arena.cli.main import run; run()", "serve", "--port", str(port),
               "--bots", str(BUILTIN_BOTS), "--out", str(tmp_path / "server")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        lines = []
        while not any("listening" in line for line in lines):  # gRPC may log a line of its own first
            line = server.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        assert f"127.0.0.1:{port}" in lines[-1], lines
        token_file = tmp_path / "server" / "admin-token"
        while not any("admin token" in line for line in lines):
            lines.append(server.stdout.readline())
        assert str(token_file) in lines[-1] and token_file.stat().st_mode & 0o777 == 0o600
        code, out, err = run(capsys, "match", "major-general", "random", "random", "--games", "2", "--seed", "3",
                             "--server", f"127.0.0.1:{port}", "--out", str(tmp_path / "client"), "--json")
        assert code == 2 and "admin token" in err  # a default `arena serve` refuses unauthenticated admin calls
        code, out, err = run(capsys, "match", "major-general", "random", "random", "--games", "2", "--seed", "3",
                             "--server", f"127.0.0.1:{port}", "--out", str(tmp_path / "client"), "--json",
                             "--admin-token-file", str(token_file))
        assert code == 0, err
        games = json.loads(out)["games"]
        assert all(Path(game["record"]).exists() for game in games)
        code, out, err = run(capsys, "watch", games[0]["match_id"], "--server", f"127.0.0.1:{port}")
        assert code == 0, err  # anyone may watch the public view: no token, no card drawn, no seed
        assert "plays" in out and "draws a card" in out and "seed" not in out
        assert re.search(r"(Yellow|Red) \(random\) wins \(|draw \(", out), out  # who won and how, in words
        assert "ranking" not in out
        code, out, err = run(capsys, "watch", games[0]["match_id"], "--server", f"127.0.0.1:{port}", "--full")
        assert code == 1 and "admin token" in err
        code, out, err = run(capsys, "watch", games[0]["match_id"], "--server", f"127.0.0.1:{port}", "--full",
                             "--admin-token-file", str(token_file))
        assert code == 0, err
        assert "draws a card" not in out and re.search(r"draws \w+/\w+", out) and f"seed {games[0]['seed']}" in out
        record = MatchRecord.read(games[0]["record"])  # its steps and decisions numbered as the record's replay
        at = record.step_of_decision(5)
        assert at is not None and re.search(rf"\b{at}\. .*\(decision 5\)", out), out
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=60)
        assert server.returncode == 0, output
        assert "stopped" in output
        assert len(list((tmp_path / "server").glob("records/major-general/*.jsonl"))) == 2
        assert not token_file.exists()  # the token dies with the server
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


def test_serve_starts_with_the_good_bots_and_names_the_bad(tmp_path: Path) -> None:
    """One bad bot.toml in --bots leaves that bot out, not every other."""
    shutil.copytree(BUILTIN_BOTS / "trivial", tmp_path / "bots" / "good")
    manifest = tmp_path / "bots" / "good" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "trivial"', 'name = "good-one"'))
    shutil.copytree(tmp_path / "bots" / "good", tmp_path / "bots" / "bad")
    bad = tmp_path / "bots" / "bad" / "bot.toml"
    bad.write_text(manifest.read_text().replace('name = "good-one"', 'name = "bad-one"')
                   + "[limits]\nmemory_mb = 100000000000000000000\n")
    unbuilt = tmp_path / "bots" / "unbuilt"
    unbuilt.mkdir()
    (unbuilt / "bot.toml").write_text('name = "unbuilt"\ncommand = ["./starter-bot"]\n')
    port = free_port()
    command = [sys.executable, "-c", "from arena.cli.main import run; run()", "serve", "--port", str(port),
               "--bots", str(tmp_path / "bots"), "--out", str(tmp_path / "server")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        lines: list[str] = []
        while not any(line.startswith("records:") for line in lines):
            line = server.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        [local] = [line for line in lines if line.startswith("local bots:")]
        assert "good-one" in local and "bad-one" not in local
        assert "good-one" in local and "bad-one" not in local and "unbuilt" not in local
        [warning, other] = sorted(line for line in lines if "a bot left out" in line)
        assert str(bad) in warning and "memory_mb must be a whole number" in warning
        assert f"{unbuilt / 'bot.toml'}:2: the program './starter-bot' is not in the folder" in other
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()
