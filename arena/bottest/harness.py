"""`arena bot test`: a bot program put through the protocol as a referee puts it, with a report its author
can act on, whatever language the bot is written in.

The bot runs in a referee of its own (no network port; its sandbox; the clock it will meet) against
Arena's `random` player, in process. The checks, each a row of the report:

  handshake        started from its bot.toml, it connects and says Hello within the start-up limit
  play             each game mode it plays (bot.toml's games, or those asked for): matches, seats in turn
  labels omitted   a match whose requests carry no legal_labels, as if its Hello had set omit_labels:
                   the ids, and MatchStart.action_labels, are what a bot may rely on
  opponent leaves  the opponent's stream drops while the bot is deciding: MatchEnd arrives with the
                   request unanswered, and the bot must take it and carry on
  next match       one more match after that, on the same process (a bot that died of the early
                   MatchEnd, or of writing its late answer, shows here)
  concurrent       as many matches at once as bot.toml's `concurrency` (up to 4), on one process

Unlike the pre-flight it does not stop at the first failure (but for the handshake, without which
nothing can run): one run shows everything that is wrong.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.agents import RandomAgent
from arena.games.registry import family_of, load_game
from arena.referee.clock import ClockSettings
from arena.referee.faults import SeatFault
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, Termination, decision_name
from arena.referee.seats import AgentSeat, Answer, Ask, MatchSetup, SeatPort
from arena.rpc.launcher import BotProcess
from arena.rpc.manifest import BotManifest
from arena.rpc.pool import BotUnavailable
from arena.rpc.session import BotSession
from arena.sandbox.launch import SandboxSettings

OPPONENT = "random"
MAX_CONCURRENT = 4  # matches at once in the concurrency check, whatever bot.toml allows
LEAVE_AT = 2  # the bot's decision during which the opponent leaves (it has answered one by then)
_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}  # (the bot's own count, told apart from the match's decision numbers)
CheckCallback = Callable[["Check"], None]
MISSING_MODULE = ("Cannot find module", "ModuleNotFoundError", "No module named", "cannot load such file")


@dataclass
class Check:
    """One row of the report."""

    name: str  # handshake, play, labels-omitted, opponent-leaves, next-match, concurrent
    title: str
    game: str | None = None
    seat: int | None = None
    ok: bool | None = None  # None: not run yet
    skipped: bool = False
    detail: str = ""
    reason: str | None = None  # how the match ended (or why the bot could not be seated)
    matches: int = 0
    decisions: int = 0
    response_ms: list[float] = field(default_factory=list)  # per decision, as the clock measured it
    think_ms: list[float] = field(default_factory=list)  # per decision, as the bot reported it
    outcomes: dict[str, int] = field(default_factory=lambda: {"won": 0, "drew": 0, "lost": 0})
    seconds: float = 0.0
    fix: str = ""
    infrastructure: bool = False  # failed for a reason that is not the bot's

    def timing(self) -> dict[str, float] | None:
        """Per-decision response time (what the clock charges: the bot's thinking and the transport)."""
        if not self.response_ms:
            return None
        return {"mean_ms": round(statistics.fmean(self.response_ms), 2), "max_ms": round(max(self.response_ms), 2),
                "think_mean_ms": round(statistics.fmean(self.think_ms), 2) if self.think_ms else 0.0}

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"check": self.name, "title": self.title, "ok": self.ok, "skipped": self.skipped,
                                "detail": self.detail, "seconds": round(self.seconds, 3)}
        for key in ("game", "seat", "reason"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.matches:
            data["matches"] = self.matches
            data["decisions"] = self.decisions
            data["timing"] = self.timing()
        if self.fix:
            data["fix"] = self.fix
        if self.infrastructure:
            data["infrastructure"] = True
        return data


@dataclass
class ConformanceReport:
    """How the bot did."""

    bot: str
    directory: str
    hello: dict[str, Any]
    checks: list[Check]
    seconds: float
    clock: dict[str, float]
    output_tail: str = ""

    @property
    def ok(self) -> bool:
        return all(check.ok or check.skipped for check in self.checks)

    def warnings(self) -> list[str]:
        """What passed but will hurt on a ladder: a bot that answers slower than its move time lives on its
        bank, which a long match empties (then every decision past it is a timeout)."""
        response = [ms for check in self.checks for ms in check.response_ms]
        move_ms = 1000 * self.clock.get("move_time_s", 0.0)
        if not response or not move_ms:
            return []
        mean = statistics.fmean(response)
        slow = sum(1 for ms in response if ms > move_ms)
        if mean <= move_ms and slow <= len(response) // 10:
            return []
        return [f"it answers slower than its move time: {mean / 1000:.2f} s a decision on average, {slow} of "
                f"{len(response)} decisions over {move_ms / 1000:g} s; it lives on its time bank "
                f"({self.clock.get('bank_s', 0):g} s a match), which a long match empties: then every slow "
                "decision is a timeout. Think for less than the move time (it is in MatchStart.clock)"]

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "bot": self.bot, "directory": self.directory, "hello": self.hello,
                "seconds": round(self.seconds, 3), "clock": self.clock,
                "checks": [check.to_json() for check in self.checks], "output_tail": self.output_tail,
                "warnings": self.warnings()}


def plan_checks(manifest: BotManifest, games: list[str], matches_per_game: int) -> list[Check]:
    """The rows of a run, in the order they are played."""
    checks = [Check("handshake", f"start from bot.toml ({' '.join(manifest.command)}) and say Hello")]
    for game in games:
        checks.append(Check("play", f"{game}: {matches_per_game} match(es) against {OPPONENT}, seats in turn",
                            game=game))
    first = games[0] if games else None
    checks.append(Check("labels-omitted", "a match whose requests carry no legal_labels", game=first, seat=1))
    leave_at = _ORDINALS.get(LEAVE_AT, f"{LEAVE_AT}th")
    checks.append(Check("opponent-leaves", f"the opponent leaves during the bot's {leave_at} decision: MatchEnd "
                        "comes with the request open", game=first, seat=0))
    checks.append(Check("next-match", "one more match on the same process", game=first, seat=1))
    checks.append(Check("concurrent", f"bot.toml's concurrency ({manifest.concurrency}): that many matches at "
                        "once on one process", game=first))
    return checks


def run_conformance(manifest: BotManifest, games: list[str], *, matches_per_game: int = 2,
                    sandbox: SandboxSettings | None = None, clock: ClockSettings | None = None,
                    startup_timeout_s: float = 30.0, seed: int = 1, on_check: CheckCallback | None = None,
                    ) -> ConformanceReport:
    """Put the bot in `manifest.directory` through every check; `games` are modes it plays."""
    from arena.rpc.background import BackgroundReferee
    from arena.rpc.server import ServerConfig

    clock = clock or ClockSettings()
    started = time.perf_counter()
    checks = plan_checks(manifest, games, matches_per_game)
    concurrent = min(manifest.concurrency, MAX_CONCURRENT)
    config = ServerConfig(port=None, bot_dirs=(manifest.directory,), builtin_bots=False, results_dir=None,
                          max_matches=max(2, concurrent), clock=clock, sandbox=sandbox or SandboxSettings(),
                          startup_timeout_s=startup_timeout_s, idle_timeout_s=0)
    limits = manifest.limits.capped(config.sandbox.caps).to_json()
    referee = BackgroundReferee(config, drain_s=0.0)
    referee.start()
    run = ConformanceRun(referee, manifest, seed, startup_timeout_s)
    hello: dict[str, Any] = {}
    try:
        for check in checks:
            if on_check is not None:
                on_check(check)
            begun = time.perf_counter()
            skip = _skip_reason(check, checks[0], concurrent)
            if skip:
                check.skipped, check.detail = True, skip
            else:
                hello = _perform(run, check, hello, matches_per_game, concurrent)
            check.seconds = time.perf_counter() - begun
            if check.ok is False and not check.fix and check.reason:
                check.fix = what_to_fix(check.reason, clock, limits, run.usage(), startup_timeout_s)
            if on_check is not None:
                on_check(check)
        output = referee.call(_sync(lambda: referee.server.pool.output_tail(manifest.name)))
    finally:
        referee.stop()
    return ConformanceReport(manifest.name, str(manifest.directory), hello, checks, time.perf_counter() - started,
                             clock.to_json(), output[-8192:])


def _skip_reason(check: Check, handshake: Check, concurrent: int) -> str:
    """Why `check` is not run ("" when it is): the bot did not start, no game to play, or one match at a time."""
    if handshake.ok is False:
        return "not run: the bot did not start"
    if check.game is None and check.name != "handshake":
        return "not run: no game to play"
    if check.name == "concurrent" and concurrent < 2:
        return "not run: concurrency = 1 (one match per process)"
    return ""


def _perform(run: ConformanceRun, check: Check, hello: dict[str, Any], matches_per_game: int,
             concurrent: int) -> dict[str, Any]:
    """Run one check; the bot's Hello (the handshake's, else `hello` as it was)."""
    if check.name == "handshake":
        return run.handshake(check)
    if check.name == "play":
        for index in range(matches_per_game):
            run.play(check, _game(check), index % load_game(_game(check)).num_seats)
    elif check.name == "labels-omitted":
        run.play(check, _game(check), _seat(check), omit_labels=True)
        if check.ok and hello.get("omit_labels"):
            check.detail += " (its Hello asks for no labels anyway)"
    elif check.name == "opponent-leaves":
        run.opponent_leaves(check, _game(check), _seat(check))
    elif check.name == "next-match":
        run.next_match(check, _game(check), _seat(check))
    elif check.name == "concurrent":
        run.concurrent(check, _game(check), concurrent)
    return hello


def _game(check: Check) -> str:
    assert check.game is not None
    return check.game


def _seat(check: Check) -> int:
    return (check.seat or 0) % load_game(_game(check)).num_seats


class ConformanceRun:
    """The matches of one run, played on the referee's event loop (the submission pre-flight plays its
    opponent-leaves and next-match checks too)."""

    def __init__(self, referee: Any, manifest: BotManifest, seed: int, startup_s: float) -> None:
        self.referee = referee
        self.startup_s = startup_s
        self.server = referee.server
        self.pool = referee.server.pool
        self.manifest = manifest
        self.seed = seed
        self.matches = 0
        self.last_process: BotProcess | None = None  # the process of the latest match
        self.left_process: BotProcess | None = None  # the process whose opponent left

    def usage(self) -> dict[str, Any]:
        return self.pool.usage_peaks(self.manifest.name).to_json()

    def handshake(self, check: Check) -> dict[str, Any]:
        try:
            hello = self.referee.call(self._hello())
        except BotUnavailable as problem:
            check.ok, check.reason, check.detail = False, problem.reason, problem.detail
            check.infrastructure = problem.reason is Termination.INFRASTRUCTURE
            if not check.infrastructure:
                check.fix = start_fix(problem.reason, self.startup_s, str(problem.evidence.get("output", "")))
            return {}
        check.ok = True
        games = ", ".join(hello["games"]) or "(none: any)"
        check.detail = (f"said Hello as {hello['name']!r} version {hello['version']!r}, games {games}, "
                        f"labels {'omitted' if hello['omit_labels'] else 'wanted'}")
        if hello["name"] != self.manifest.name:  # the pool admits it by its token; the name must match too
            check.ok, check.detail = False, f"said Hello as {hello['name']!r}, but bot.toml names it " \
                                            f"{self.manifest.name!r}"
        return hello

    async def _hello(self) -> dict[str, Any]:
        session = await self.pool.warm_up(self.manifest.name)
        return {"name": session.name, "version": session.version, "games": list(session.games),
                "omit_labels": session.omit_labels}

    def play(self, check: Check, game: str, seat: int, *, omit_labels: bool = False) -> MatchRecord | None:
        """One match against random with the bot at `seat`; the check fails if the bot is at fault."""
        record = self.referee.call(self._play(game, seat, omit_labels=omit_labels))
        if isinstance(record, BotUnavailable):
            self._unavailable(check, record)
            return None
        self._judge(check, record, seat)
        return record

    def opponent_leaves(self, check: Check, game: str, seat: int) -> None:
        record = self.referee.call(self._play(game, seat, opponent_leaves=True))
        if isinstance(record, BotUnavailable):
            self._unavailable(check, record)
            return
        self.left_process = self.last_process
        result = record.result
        assert result is not None
        self._count(check, record, seat)
        if result.offender == seat:
            check.ok, check.reason = False, result.reason
            check.detail = f"the bot was at fault before the opponent left: {result.reason}: {result.detail}"
        elif result.termination is not Termination.DISCONNECT or result.offender is None:
            check.ok, check.reason = False, result.reason
            check.detail = f"the match ended otherwise ({result.reason}: {result.detail})"
            check.infrastructure = True
        else:
            answered = _decision_count(record, seat)
            check.ok = True
            check.detail = (f"MatchEnd came with {_open_decision(record)} open (the bot had answered {answered} "
                            f"decision(s))")

    def next_match(self, check: Check, game: str, seat: int) -> None:
        record = self.play(check, game, seat)
        if record is None or not check.ok:
            return
        gone = self.left_process
        if gone is not None and self.last_process is not gone:
            self.referee.call(gone.wait_exit(2.0))  # its exit status and last words
            check.ok = False
            said = " / ".join(gone.output.since(0).strip().splitlines()[-3:])
            check.detail = (f"played, but on a new process: the one that had MatchEnd mid-decision "
                            f"{gone.exit_description() if gone.has_exited else 'stopped taking matches'}"
                            + (f"; its last output: {said}" if said else ""))
            check.fix = ("Expect MatchEnd at any time, even while deciding: drop the decision in progress (an "
                         "answer written after MatchEnd is ignored; do not let the failed write end the "
                         "program) and open a new stream for the next match.")
        else:
            check.detail += "; same process as before"

    def concurrent(self, check: Check, game: str, count: int) -> None:
        launches = self.pool.usage_peaks(self.manifest.name).launches
        for seat, record in self.referee.call(self._many(game, count)):
            if isinstance(record, BotUnavailable):
                self._unavailable(check, record)
                return
            self._judge(check, record, seat)
            if not check.ok:
                return
        extra = self.pool.usage_peaks(self.manifest.name).launches - launches
        if extra > 0:
            check.ok = False
            check.detail = (f"{count} matches at once needed {extra} more process(es): one process must keep "
                            f"{count} streams open at once")
            wanted = self.manifest.concurrency
            check.fix = (f"With concurrency = {wanted} open {wanted} streams, each with its own Hello and game "
                         "state (or set concurrency = 1 in bot.toml).")
        else:
            check.detail = f"{count} matches at once on one process, " + check.detail

    # --- on the referee's loop -------------------------------------------------------------------

    async def _play(self, game: str, seat: int, *, omit_labels: bool = False,
                    opponent_leaves: bool = False) -> MatchRecord | BotUnavailable:
        loaded = load_game(game)
        try:
            session = await self.pool.acquire(self.manifest.name, game, family_of(game).name)
        except BotUnavailable as problem:
            return problem
        self.last_process = session.process
        opponents = [_Opponent(RandomAgent()) for _ in range(loaded.num_seats - 1)]
        probe = _Probe(session, omit_labels=omit_labels, on_asked=opponents[0].leave if opponent_leaves else None)
        entries: list[SeatPort] = list(opponents)
        entries.insert(seat, probe)
        self.matches += 1
        live = self.server.start_match(game, entries, seed=self.seed + self.matches)
        return await live.task

    async def _many(self, game: str, count: int) -> list[tuple[int, MatchRecord | BotUnavailable]]:
        """`count` matches at once, the bot's seat alternating: (its seat, the record) each."""
        seats = [index % 2 for index in range(count)]
        return list(zip(seats, await asyncio.gather(*(self._play(game, seat) for seat in seats))))

    # --- judging ---------------------------------------------------------------------------------

    def _unavailable(self, check: Check, problem: BotUnavailable) -> None:
        check.ok, check.reason, check.detail = False, problem.reason, f"could not be seated: {problem.detail}"
        check.infrastructure = problem.reason is Termination.INFRASTRUCTURE

    def _count(self, check: Check, record: MatchRecord, seat: int) -> None:
        check.matches += 1
        for step in record.steps:
            if step.seat == seat:
                check.decisions += 1
                think = step.timing.get("think_ms", 0.0)
                check.think_ms.append(think)
                check.response_ms.append(think + step.timing.get("transport_ms", 0.0))

    def _judge(self, check: Check, record: MatchRecord, seat: int) -> None:
        result = record.result
        assert result is not None
        self._count(check, record, seat)
        if check.ok is False:
            return
        if result.termination in (Termination.INFRASTRUCTURE, Termination.VOID):
            check.ok, check.reason, check.infrastructure = False, result.reason, True
            check.detail = f"the referee could not play the match: {result.detail}"
        elif result.offender == seat:
            check.ok, check.reason = False, result.reason
            check.detail = f"seat {seat}, at {_open_decision(record)}: {result.reason}: {result.detail}"
        else:
            check.ok = True
            check.outcomes[result.placed(seat)] += 1
            check.detail = ", ".join(f"{n} {word}" for word, n in check.outcomes.items() if n)


def _decision_count(record: MatchRecord, seat: int) -> int:
    return sum(1 for step in record.steps if step.seat == seat)


def _open_decision(record: MatchRecord) -> str:
    """The decision the match was at when it ended, named by the match's numbering: "decision 10 (step 21)"."""
    return decision_name(len(record.decisions) + 1, len(record.steps) + 1)


class _Probe(SeatPort):
    """The bot's own stream as the referee drives it, bent to the check: its requests without labels, or
    a call (the opponent leaving) between its LEAVE_AT-th request being sent and its answer being read."""

    def __init__(self, session: BotSession, *, omit_labels: bool = False,
                 on_asked: Callable[[], None] | None = None) -> None:
        self.session = session
        self.omit_labels = omit_labels
        self.on_asked = on_asked
        self.count = 0

    @property
    def failure(self) -> SeatFault | None:
        return self.session.failure

    @failure.setter
    def failure(self, fault: SeatFault | None) -> None:
        self.session.failure = fault

    @property
    def on_lost(self) -> Callable[[], None] | None:
        return self.session.on_lost

    @on_lost.setter
    def on_lost(self, callback: Callable[[], None] | None) -> None:
        self.session.on_lost = callback

    @property
    def player(self) -> PlayerInfo:
        return self.session.player

    async def start(self, setup: MatchSetup) -> None:
        if self.omit_labels:
            self.session.omit_labels = True
        await self.session.start(setup)

    async def decide(self, ask: Ask) -> Answer:
        self.count += 1
        if self.on_asked is None or self.count != LEAVE_AT:
            return await self.session.decide(ask)
        await self.session.send_request(ask)
        self.on_asked()  # the opponent leaves now: the referee stops waiting for this answer
        return await self.session.read_answer(ask)

    async def finish(self, result: MatchResult) -> None:
        await self.session.finish(result)

    async def examine(self, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
        return await self.session.examine(fault)


class _Opponent(AgentSeat):
    """Arena's random player, which can leave the match when told (as a dropped stream does)."""

    def __init__(self, agent: RandomAgent) -> None:
        super().__init__(agent, threaded=True)
        self.seat = 0

    async def start(self, setup: MatchSetup) -> None:
        self.seat = setup.seat
        await super().start(setup)

    def leave(self) -> None:
        self.failure = SeatFault(self.seat, Termination.DISCONNECT,
                                 "the opponent left the match (arena bot test's edge case)")
        if self.on_lost is not None:
            self.on_lost()

    async def finish(self, result: MatchResult) -> None:
        self.agent.close()


#: Python's "File "...", line N" before a SyntaxError, or a bare SyntaxError (Node says "SyntaxError:" too).
SYNTAX_ERROR = re.compile(r'(?:File "([^"]+)", line (\d+)[^\n]*\n(?:.*\n){0,4}?)?\s*(?:SyntaxError|IndentationError|'
                          r'TabError)\b')


def start_fix(reason: Termination, startup_s: float, output: str) -> str:
    """What a bot author should do about a bot that did not start, connect and say Hello (`output`: its own)."""
    if reason is Termination.TIMEOUT:
        return (f"Connect to ARENA_SERVER and say Hello within {startup_s:g} s of starting: do slow set-up "
                "(loading models, tables) after the handshake, or make it faster.")
    if any(words in output for words in MISSING_MODULE):
        return ("A module it imports is missing: install its dependencies inside its own folder (`npm install` "
                "there, `pip install --target .`...), since the folder is all it sees in the sandbox.")
    syntax = SYNTAX_ERROR.search(output)
    if syntax is not None:
        where = f" in {syntax.group(1).removeprefix('/bot/')}, line {syntax.group(2)}" if syntax.group(1) else ""
        return (f"Its code does not parse{where}: fix the syntax error its output shows (`python -m py_compile "
                "FILE`, or `node --check FILE`, finds it without running the bot).")
    return ("The program ended before it connected: its output above says why (bot.toml's command runs in the "
            "bot's folder, which is all it sees in the sandbox: bring what it needs).")


def what_to_fix(reason: str, clock: ClockSettings, limits: dict[str, Any], usage: dict[str, Any],
                startup_s: float = 30.0) -> str:
    """What a bot author should do about a match that ended with `reason` by the bot's fault (`limits` and
    `usage`: the bot's limits as the operator capped them, and the peaks its processes reached)."""
    advice: dict[str, str] = {
        Termination.TIMEOUT: f"Answer every decision within {clock.move_time_s:g} s; slow ones may draw on a "
                             f"{clock.bank_s:g} s bank for the whole match (and start within {startup_s:g} s: "
                             "do slow set-up after the handshake).",
        Termination.ILLEGAL_ACTION: "Answer with one of the legal actions the decision request lists "
                                    "(their ids are in the request; docs/actions says what each id means).",
        Termination.MALFORMED_MESSAGE: "Send only the messages docs/protocol.md describes (a BotMessage, "
                                       "under 64 KiB).",
        Termination.PROTOCOL_ERROR: "Follow the protocol in docs/protocol.md: Hello first, then one Decision "
                                    "per DecisionRequest.",
        Termination.WRONG_SEQUENCE: "Echo the sequence number of the decision request you answer (a 64-bit "
                                    "integer: read it as a string or a long where numbers are doubles).",
        Termination.DISCONNECT: "Keep the stream open until the MatchEnd message; open one stream per match.",
        Termination.CRASH: "The program died: its output below says why.",
        Termination.MEMORY_LIMIT: f"Stay within {limits.get('memory_mb')} MB of memory (peak seen: "
                                  f"{usage.get('memory_peak_mb')} MB).",
        Termination.PROCESS_LIMIT: f"Start at most {limits.get('processes')} processes and threads in all.",
        Termination.CPU_LIMIT: f"Use at most {limits.get('cpu_seconds')} s of CPU time in a process's life.",
        Termination.INFRASTRUCTURE: "This was not the bot's doing (the referee or this machine failed): run "
                                    "it again.",
    }
    return advice.get(reason, f"The match ended with {reason}: see docs/protocol.md, Faults.")


async def _sync(function: Callable[[], Any]) -> Any:
    return function()
