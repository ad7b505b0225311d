"""Graceful shutdown: matches that finish within the drain time finish; the others are voided, with
the reason recorded and the record stored; bot processes are stopped."""

from __future__ import annotations

import time
from pathlib import Path

from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord
from arena.rpc.background import BackgroundReferee
from arena.rpc.server import ServerConfig

ROOT = Path(__file__).resolve().parents[2]


def test_shutdown_finishes_or_voids_matches_in_progress(tmp_path: Path, test_bots: Path) -> None:
    config = ServerConfig(port=0, bot_dirs=(ROOT / "bots", test_bots), results_dir=tmp_path, startup_timeout_s=60.0,
                          clock=ClockSettings(move_time_s=120.0, bank_s=0.0, grace_s=1.0))
    referee = BackgroundReferee(config, drain_s=3.0)
    referee.start()
    try:
        stuck = referee.submit("major-general", ["random", "sleep"], seed=2)  # sleeps 60 s on its 3rd decision
        quick = referee.submit("major-general", ["random", "random"], seed=3)
        live = referee.server.matches
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and sum(1 for s in next(
                m for m in live.values() if m.bots == ["random", "sleep"]).steps if s.seat == 1) < 2:
            time.sleep(0.05)
        processes = [lp.process for bots in referee.server.pool._processes.values() for lp in bots]
    finally:
        referee.stop()
    finished: MatchRecord = quick.result(timeout=1)
    voided: MatchRecord = stuck.result(timeout=1)
    assert finished.result is not None and finished.result.reason == "score"
    assert voided.result is not None
    assert (voided.result.reason, voided.result.voided, voided.result.ranking) == ("void", True, (0, 0))
    assert "shutdown" in voided.result.detail
    stored = sorted(tmp_path.glob("records/major-general/*.jsonl"))
    assert len(stored) == 2
    assert {MatchRecord.read(path).result.reason for path in stored} == {"score", "void"}  # type: ignore[union-attr]
    assert processes and all(not process.is_running for process in processes)
