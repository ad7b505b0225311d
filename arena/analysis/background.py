"""Analysing a run's matches in the background (`--analyse BUDGET` of a tournament run or a ladder service).

The analyser is a process of its own, at the ordinary CPU priority but holding itself to a share of a core
(SHARE, a fifth) while the machine is busy: when it finds it had to wait for a core, it rests between the
decisions it searches until its use is back to that share; when a core is free it takes it whole. Play keeps
nearly all the cores it asks for, and a busy machine slows the analyses but cannot starve them (at the
lowest priority, nice 19, it got nothing while a ladder played a round every second beside one CPU-bound
process, and never caught up). It analyses the stored matches of its tournaments that have no
analysis yet, oldest first, and stores each with its match; when it has caught up it looks again every
`poll_s` seconds. Its standard input is its leash: once the parent closes it (or dies), the analyser
finishes what is stored by then and exits.

    python -m arena.analysis.background --db URL --budget 400 --tournament 3 [--tournament 4 ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from arena.analysis.match import DEFAULT_BUDGET, Analysis, AnalysisError, Budget, analyse_record
from arena.analysis.players import EdgeSums, PlayerForm, form_of
from arena.referee.record import MatchRecord, RecordError
from arena.referee.replay import ReplayDivergence
from arena.store import Store
from arena.store.rows import StoredMatch

POLL_S = 1.0
SHARE = 0.2  # of a core, at least, while the machine is busy (when it had to wait for one)
BUSY = 0.9  # it had to wait: it got less CPU time than this share of the wall time that passed
WINDOW_S = 0.25  # its use is measured over this long (at least), between two decisions
LONGEST_REST_S = 5.0
HISTORY = 50  # a player's form is measured on at most this many of its most recent other analysed matches
READ_KEPT = 20_000  # analyses' drops kept for the next matches' forms (then read afresh)
#: what an analysis read for players' forms said, per seat: its searched decisions' drops and its edge sums
SeatsRead = tuple[tuple[list[float], EdgeSums], ...]


class CpuShare:
    """Called between decisions (analyse_record's on_progress): keeps this process to `share` of a core while the
    machine is busy, by resting; never rests while it gets a core whole."""

    def __init__(self, share: float = SHARE, cpu: Callable[[], float] = time.process_time,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.share, self.cpu, self.clock, self.sleep = share, cpu, clock, sleep
        self.rested_s = 0.0  # in all (for tests and the curious)
        self._since = (cpu(), clock())

    def __call__(self, *_progress: object) -> None:
        used, elapsed = self.cpu() - self._since[0], self.clock() - self._since[1]
        if elapsed < WINDOW_S:
            return
        if used < BUSY * elapsed:  # it waited for a core: rest until its use is back to its share
            rest = min(used / self.share - elapsed, LONGEST_REST_S)
            if rest > 0:
                self.sleep(rest)
                self.rested_s += rest
        self._since = (self.cpu(), self.clock())


def analyse_pending(store: Store, tournaments: Sequence[int], budget: Budget, seed: int = 0,
                    should_stop: Callable[[], bool] = lambda: False,
                    on_match: Callable[[int, bool, str], None] = lambda _match, _analysed, _line: None,
                    between: Callable[[int, int], None] | None = None, playouts: int = 0) -> int:
    """Analyse the tournaments' stored matches that have none yet (oldest first); how many were analysed. Each
    match is told to `on_match(match id, analysed, a line saying it)`; one that cannot be analysed gets no
    analysis and is not tried again. `between(done, total)` is called after each decision searched; `playouts`:
    as analyse_record's."""
    done = 0
    failed: set[int] = set()
    read: dict[int, SeatsRead] = {}  # what the analyses read for players' forms said, by match id
    while not should_stop():
        batch = [match for match in store.analyses.unanalysed(tournaments, limit=50 + len(failed))
                 if match not in failed]
        if not batch:
            return done
        for match_id in batch:
            if should_stop():
                return done
            found = store.matches.get(match_id)
            if found is None:
                failed.add(match_id)
                continue
            try:
                analysis = analyse_record(MatchRecord.from_bytes(store.matches.record(found), f"match {match_id}"),
                                          budget, seed, on_progress=between, playouts=playouts)
            except (AnalysisError, ReplayDivergence, RecordError) as error:
                failed.add(match_id)
                on_match(match_id, False, f"match {match_id} not analysed: {error}")
                continue
            analysis = replace(analysis, players=stored_forms(store, found, analysis.budget, read))
            store.analyses.save(match_id, analysis.budget, seed, analysis.seconds, analysis.compressed())
            done += 1
            on_match(match_id, True, f"match {match_id} analysed: {len(analysis.entries)} decisions in "
                               f"{analysis.seconds:.1f}s, {len(analysis.turning_points)} turning point(s)")
    return done


def stored_forms(store: Store, match: StoredMatch, budget: str,
                 read: dict[int, SeatsRead] | None = None) -> tuple[PlayerForm, PlayerForm] | None:
    """Both seats' forms in a stored match, from their other analysed matches of its game at `budget` (None unless
    both are known); `read` keeps what the analyses read said (each seat's drops and edge sums), by match id, for
    the next match's (an analysis once stored is read once)."""
    if len(match.seats) != 2:
        return None
    read = {} if read is None else read
    if len(read) > READ_KEPT:
        read.clear()
    forms = []
    for seat in sorted(match.seats, key=lambda one: one.seat):
        played = store.analyses.of_bot(seat.bot_id, match.game, budget, leave_out=match.id, limit=HISTORY)
        _read_unread(played, read)
        form = form_of((read[match_id][where][0] for match_id, where, _ in played),
                       (read[match_id][where][1] for match_id, where, _ in played if where == seat.seat))
        if form is None:
            return None
        forms.append(form)
    return forms[0], forms[1]


def _read_unread(played: list[tuple[int, int, bytes]], read: dict[int, SeatsRead]) -> None:
    """Keep in `read` what each of the `played` analyses not read yet says (each seat's drops and edge sums)."""
    for match_id, _, data in played:
        if match_id not in read:
            analysis = Analysis.from_compressed(data)
            read[match_id] = tuple((analysis.searched_drops(one), analysis.edge_sums(one))
                                   for one in range(len(analysis.seat_names)))


class BackgroundAnalyser:
    """The analyser process of a run (see the module's docstring)."""

    def __init__(self, url: str, tournaments: Sequence[int], budget: Budget, seed: int = 0,
                 quiet: bool = False) -> None:
        self.url, self.tournaments, self.budget, self.seed = url, list(tournaments), budget, seed
        self.quiet = quiet
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "arena.analysis.background", "--db", self.url, "--budget", str(self.budget),
                   "--seed", str(self.seed)] + [arg for one in self.tournaments for arg in ("--tournament", str(one))]
        if self.quiet:
            command.append("--quiet")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE)

    def finish(self, timeout: float | None = None) -> bool:
        """Let it analyse what is stored and exit; True once it has (False: still at it after `timeout`)."""
        if self.process is None:
            return True
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def stop(self) -> None:
        """End it now (what it has stored stays; the rest is analysed by the next run or `arena analyse`)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.analysis.background", description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--budget", default=DEFAULT_BUDGET)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tournament", type=int, action="append", required=True)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--poll", type=float, default=POLL_S)
    args = parser.parse_args(argv)
    released = threading.Event()

    def leash() -> None:  # the parent closed our standard input, or died
        sys.stdin.buffer.read()
        released.set()

    threading.Thread(target=leash, name="arena-analyser-leash", daemon=True).start()
    budget = Budget.parse(args.budget)
    store = Store.open(args.db, create=False)
    share = CpuShare()
    def say(_match: int, analysed: bool, line: str) -> None:  # a match that could not be: a line of its own
        if not args.quiet and not analysed:
            print(f"analyser: {line}", file=sys.stderr, flush=True)

    try:
        while True:
            finishing = released.is_set()  # read before the pass: what was stored by then is all analysed
            started = time.perf_counter()
            done = analyse_pending(store, args.tournament, budget, args.seed, on_match=say, between=share)
            if done and not args.quiet:  # one line per catch-up (a round's matches), not one per match
                print(f"analyser: {done} match(es) analysed in {time.perf_counter() - started:.1f}s",
                      file=sys.stderr, flush=True)
            if finishing:
                return 0
            released.wait(args.poll)
    except KeyboardInterrupt:
        return 130
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
