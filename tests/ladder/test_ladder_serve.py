"""`arena ladder serve` as a user runs it, in a process of its own: a submitted bot is rated within two
rounds, and a service killed with SIGKILL mid-round and started again loses and duplicates nothing."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from sqlalchemy import func, select

from arena.cli.main import main
from arena.ladder.status import ladder_status
from arena.store import Store
from arena.store.models import Match, RatingEvent
from tests.submissions.test_submit import make_bot
from tests.workers import arena_command


class Service:
    """A running `arena ladder serve` and the lines it has logged."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.log: IO[bytes] = tempfile.TemporaryFile()
        self.final: list[str] = []
        self.process = subprocess.Popen(arena_command("ladder", "serve", *args), stdout=self.log,
                                        stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def lines(self) -> list[str]:
        if self.log.closed:
            return self.final
        self.log.seek(0)
        return self.log.read().decode(errors="replace").splitlines()

    def rounds(self) -> list[str]:
        return [line for line in self.lines() if " ladder: " in line]

    def wait_for(self, condition: object, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():  # type: ignore[operator]
            if self.process.poll() is not None:
                raise AssertionError(f"the service exited ({self.process.returncode}) waiting for {what}:\n"
                                     + "\n".join(self.lines()[-20:]))
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}:\n" + "\n".join(self.lines()[-20:]))
            time.sleep(0.05)

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if not self.log.closed:
            self.final = self.lines()
            self.log.close()
        return self.process.returncode


@pytest.fixture
def environment(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = dict(os.environ, ARENA_DB=f"sqlite:///{tmp_path / 'arena.db'}", ARENA_BOT_STORE=str(tmp_path / "bots"),
               ARENA_RESULTS=str(tmp_path / "results"))
    yield env


def test_a_submitted_bot_is_rated_by_the_running_service_within_two_rounds(
        tmp_path: Path, environment: dict[str, str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hosted story: a service runs; a new user submits a folder; the next rounds pair and rate it."""
    service = Service(["--games", "major-general", "--every", "1s", "--matches-per-round", "4",
                       "--builtins", "random,greedy", "-j", "2"], environment)
    try:
        service.wait_for(lambda: len(service.rounds()) >= 1, 60, "the first round")
        for key in ("ARENA_DB", "ARENA_BOT_STORE", "ARENA_RESULTS"):
            monkeypatch.setenv(key, environment[key])
        assert main(["bot", "submit", str(make_bot(tmp_path / "mine", "ann-bot")), "--json"]) == 0
        submitted = json.loads(capsys.readouterr().out)
        assert submitted["status"] == "live"
        rounds_before = len(service.rounds())
        store = Store.open(environment["ARENA_DB"])

        def rated() -> bool:
            return any(row.bot_id == submitted["bot_id"] and row.games > 0
                       for row in store.ratings.of_pool("major-general"))

        service.wait_for(lambda: rated() or len(service.rounds()) >= rounds_before + 3, 60, "the bot to be rated")
        assert rated(), "not rated within two rounds:\n" + "\n".join(service.rounds())
        rounds_taken = len(service.rounds()) - rounds_before
        assert rounds_taken <= 2, service.rounds()
        assert main(["leaderboard", "major-general", "--json"]) == 0
        standings = json.loads(capsys.readouterr().out)["pools"][0]["standings"]
        assert "ann-bot" in {row["bot"] for row in standings}
        # (the status lists the last round's field, saved when the round ends: on a busy machine the bot is rated
        # by the round's first stored match a while before that)
        service.wait_for(lambda: any(bot.bot == "ann-bot" for ladder in ladder_status(store) for bot in ladder.bots),
                         60, "the round that rated the bot to end")
        assert main(["ladder", "status", "--json"]) == 0
        [status] = json.loads(capsys.readouterr().out)["ladders"]
        assert status["service"]["running"] and "ann-bot" in {bot["bot"] for bot in status["bots"]}
        store.close()
    finally:
        code = service.stop()
    assert code == 0 and service.lines()[-1].endswith("ladder service stopped")


def _counts(url: str) -> tuple[int, int, int]:
    store = Store.open(url)
    with store.engine.connect() as conn:
        matches = conn.execute(select(func.count()).select_from(Match)).scalar_one()
        keys = conn.execute(select(func.count()).select_from(
            select(Match.tournament_id, Match.round, Match.pairing, Match.rotation).distinct().subquery())).scalar_one()
        history = conn.execute(select(func.count()).select_from(RatingEvent)).scalar_one()
    store.close()
    return matches, keys, history


def test_sigkill_mid_round_then_a_restart_loses_and_duplicates_nothing(environment: dict[str, str]) -> None:
    url = environment["ARENA_DB"]
    args = ["--games", "major-general", "--every", "1h", "--matches-per-round", "12", "--max-pending", "12",
            "--builtins", "a=mcts:iterations=150,b=mcts:iterations=160,c=mcts:iterations=170", "-j", "1",
            "--seed", "9"]
    first = Service(args, environment)
    try:
        first.wait_for(lambda: 2 <= _counts(url)[0], 120, "some matches of the first round")
        stored_before_kill = _counts(url)[0]
        assert stored_before_kill < 12, "the round ended before the kill: make its matches slower"
        os.killpg(first.process.pid, signal.SIGKILL)
        first.process.wait(timeout=10)
    finally:
        first.stop()
    assert not first.rounds()  # killed mid-round: it never logged the round's end
    store = Store.open(url)
    [ladder] = store.tournaments.find(format="ladder")
    planned = [(row.round, row.index) for row in store.tournaments.pairings(ladder.id)]
    assert len(planned) == 6 and {round_number for round_number, _ in planned} == {0}
    store.close()
    second = Service([*args, "--rounds", "1"], environment)
    try:
        second.wait_for(lambda: second.process.poll() is not None, 180, "the restarted service's round")
    finally:
        second.stop()
    [line] = second.rounds()
    assert f"{12 - stored_before_kill} carried over" in line, line
    matches, keys, history = _counts(url)
    assert matches == keys  # nothing stored twice
    store = Store.open(url)
    finished = store.tournaments.finished_keys(ladder.id)
    round_zero = {(r, p, rotation) for r, p in planned for rotation in (0, 1)}
    assert round_zero <= finished  # nothing of the killed round lost
    assert history == 2 * matches  # each stored match rated exactly once
    assert sum(row.games for row in store.ratings.of_pool("major-general")) == 2 * matches
    assert all(m.reason != "infrastructure" for m in store.matches.of_tournament(ladder.id))
    store.close()


def test_the_service_analyses_its_matches_in_the_background(environment: dict[str, str]) -> None:
    """`--analyse`: the stored matches get their analysis while the service runs, in a process of its own.

    One round is played (the next is ten minutes away) and the analyser, at the lowest priority, takes what the
    machine leaves it: on a busy machine that is little, so the test waits for it as long as it takes (a round
    every second would plan more matches than a starved analyser ever catches up with)."""
    service = Service(["--games", "major-general", "--every", "10m", "--matches-per-round", "4",
                       "--builtins", "random,greedy", "--analyse", "8", "-j", "1"], environment)
    store = Store.open(environment["ARENA_DB"])
    try:
        def analysed() -> bool:
            with store.engine.connect() as conn:
                ids = list(conn.execute(select(Match.id)).scalars())
            return len(ids) >= 4 and all(store.analyses.get(match_id) is not None for match_id in ids[:4])

        def caught_up() -> bool:  # (the analyser's line comes when it has caught up: after a pass, not a match)
            return any(line.startswith("analyser: ") for line in service.lines())

        service.wait_for(lambda: analysed() and caught_up(), 240, "four matches stored and analysed, and said")
    finally:
        assert service.stop() in (0, 130, -signal.SIGTERM)
        store.close()
    said = [line for line in service.lines() if line.startswith("analyser: ")]
    assert said and all(re.fullmatch(r"analyser: \d+ match\(es\) analysed in [\d.]+s", line.strip())
                        for line in said), said  # one line per catch-up, not one per match


def test_the_analyser_keeps_up_with_a_busy_ladder_beside_cpu_bound_work(environment: dict[str, str]) -> None:
    """A round every second, two workers busy with mcts and a CPU-bound process beside the service: the analyser
    still gets its share of a core (at the lowest priority it got next to nothing where nice counts, and never
    caught up), so the ladder's matches get their analyses while the ladder goes on playing."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])]  # one CPU-bound process beside it
    service = Service(["--games", "major-general", "--every", "1s", "--matches-per-round", "8",
                       "--builtins", "random,greedy,scripted,mcts", "--analyse", "8", "-j", "2"], environment)
    store = Store.open(environment["ARENA_DB"])  # (its two workers play all the time: mcts thinks)
    try:
        def analysed() -> int:
            with store.engine.connect() as conn:
                ids = list(conn.execute(select(Match.id)).scalars())
            return sum(store.analyses.get(match_id) is not None for match_id in ids)

        service.wait_for(lambda: analysed() >= 6, 600, "six matches analysed while rounds are played")
        assert service.process.poll() is None  # the ladder plays on
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        assert service.stop() in (0, 130, -signal.SIGTERM)
        store.close()
