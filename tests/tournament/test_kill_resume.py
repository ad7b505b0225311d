"""A tournament killed with SIGKILL mid-run and resumed loses no finished match and duplicates none."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from arena.games.registry import load_game
from arena.store import Store
from arena.tournament import InlineExecutor, TournamentRunner, create_tournament, parse_bots
from tests.tournament.conftest import rating_table, signature

BOTS = "a=random,b=random"
ROUNDS = 300  # 300 seat-swapped pairs: 600 matches; a store flushes 200 at most (TournamentRunner.flush_size),
MATCHES = 2 * ROUNDS  # so the run is killed after its first flush with two or more flushes still to come


def _command(url: str) -> list[str]:
    return [sys.executable, "-c", "from arena.cli.main import run; run()", "tournament", "run", "major-general",
            "--bots", BOTS, "--rounds", str(ROUNDS), "--seed", "9", "--name", "killed", "-j", "2", "--json",
            "--db", url]


def _stored(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM matches")).scalar_one())
    except Exception:  # the schema may not exist yet
        return 0
    finally:
        engine.dispose()


def _live_members(group: int) -> list[int]:
    """Processes of a process group that are still running (zombies waiting for a reaper do not count)."""
    members: list[int] = []
    if not Path("/proc").is_dir():  # not Linux: nothing to inspect
        return members
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def test_sigkill_mid_run_then_resume(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    process = subprocess.Popen(_command(url), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while _stored(url) < 20 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    assert process.poll() is None, f"the run ended before it could be killed: {process.stderr.read()!r}"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = _stored(url)
    assert 20 <= killed_at < MATCHES

    store = Store.open(url)
    before = {m.uid: (m.round, m.pairing, m.rotation) for m in store.matches.of_tournament(1)}
    assert len(before) == killed_at
    deadline = time.monotonic() + 5  # the orphaned workers notice their parent is gone and exit
    while _live_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live_members(process.pid), "worker processes outlived the killed tournament"

    resumed = subprocess.run(_command(url), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)["tournaments"][0]
    assert report["finished"] and report["stored"] == MATCHES and report["played"] == MATCHES - killed_at

    after = store.matches.of_tournament(1)
    keys = [(m.round, m.pairing, m.rotation) for m in after]
    assert len(after) == MATCHES and len(set(keys)) == MATCHES  # complete, no duplicate
    uids = {m.uid: (m.round, m.pairing, m.rotation) for m in after}
    assert all(uids.get(uid) == key for uid, key in before.items())  # finished matches kept, not replayed

    reference = Store.open(f"sqlite:///{tmp_path / 'reference.db'}")
    tournament = create_tournament(reference, game=load_game("major-general"), bots=parse_bots(BOTS),
                                   format="round-robin", rounds=ROUNDS, seed=9)
    TournamentRunner(reference, tournament, InlineExecutor()).run()
    assert signature(store, 1) == signature(reference, tournament)
    assert rating_table(store, "major-general") == rating_table(reference, "major-general")
