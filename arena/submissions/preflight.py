"""The pre-flight: a submitted bot plays a few matches in the sandbox before it may be rated.

In a referee of its own (no network port), with the clock and limits the ladder will use, the bot
must start and say Hello within the start-up limit, then play each game it declares once from
every seat against `random`, one short match against `mcts`, and `arena bot test`'s edge case (the
opponent leaves while the bot decides, so MatchEnd comes with its request open; then a match on the
same process). Each step is timed; the report keeps the bot's output tail, the peak memory and
processes its processes reached (where cgroups count them) and, for a step that failed, what to fix.
It stops at the first failure: a bot that crashes or stalls would only fail the same way, slowly, in
every later step.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.agents import make_agent
from arena.games.registry import load_game
from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord, Termination
from arena.bottest.harness import Check, ConformanceRun, start_fix, what_to_fix
from arena.rpc.manifest import BotManifest
from arena.sandbox.launch import SandboxSettings

OPPONENT = "random"
STRONG_OPPONENT = "mcts:iterations=40"  # short: the step checks the bot keeps up, not who wins
StepCallback = Callable[["Step"], None]


@dataclass
class Step:
    """One step of a pre-flight."""

    name: str  # "start", "play", "edge"
    title: str  # what it checks, in words
    ok: bool | None = None  # None: running (or skipped)
    seconds: float = 0.0
    detail: str = ""
    game: str | None = None
    opponent: str | None = None
    seat: int | None = None
    result: str | None = None  # "won", "drew", "lost"
    reason: str | None = None  # how the match ended
    moves: int | None = None
    max_think_ms: float | None = None
    match_id: str | None = None
    skipped: bool = False
    infrastructure: bool = False  # failed for a reason that is not the bot's
    fix: str = ""  # what to do, when the step knows better than its reason says

    def to_json(self) -> dict[str, Any]:
        data = {"step": self.name, "title": self.title, "ok": self.ok, "seconds": round(self.seconds, 3),
                "detail": self.detail, "skipped": self.skipped}
        for key in ("game", "opponent", "seat", "result", "reason", "moves", "max_think_ms", "match_id"):
            value = getattr(self, key)
            if value is not None:
                data[key] = round(value, 1) if isinstance(value, float) else value
        if self.infrastructure:
            data["infrastructure"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Step:
        """The step `to_json` wrote (as a server's report comes back to `arena bot submit --server`)."""
        known = {key: data[key] for key in ("game", "opponent", "seat", "result", "reason", "moves", "max_think_ms",
                                             "match_id") if key in data}
        return cls(str(data.get("step", "")), str(data.get("title", "")), data.get("ok"),
                   float(data.get("seconds", 0.0)), str(data.get("detail", "")), skipped=bool(data.get("skipped")),
                   infrastructure=bool(data.get("infrastructure")), **known)


@dataclass
class PreflightReport:
    """How the pre-flight went."""

    ok: bool
    steps: list[Step]
    seconds: float
    output_tail: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)
    clock: dict[str, float] = field(default_factory=dict)
    fix: list[str] = field(default_factory=list)

    @property
    def infrastructure(self) -> bool:
        """True when it failed for a reason that was not the bot's (submit again)."""
        return any(step.infrastructure for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "seconds": round(self.seconds, 3), "steps": [step.to_json() for step in self.steps],
                "output_tail": self.output_tail, "usage": self.usage, "limits": self.limits, "clock": self.clock,
                "fix": self.fix}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PreflightReport:
        return cls(bool(data.get("ok")), [Step.from_json(step) for step in data.get("steps", [])],
                   float(data.get("seconds", 0.0)), str(data.get("output_tail", "")), dict(data.get("usage", {})),
                   dict(data.get("limits", {})), dict(data.get("clock", {})), list(data.get("fix", [])))


def plan_steps(manifest: BotManifest, games: list[str]) -> list[Step]:
    """The steps for a bot declaring `games` (modes, see arena.submissions.checks.declared_games)."""
    steps = [Step("start", f"start in the sandbox and say Hello (bot.toml command: {' '.join(manifest.command)})")]
    for game in games:
        for seat in range(load_game(game).num_seats):
            steps.append(Step("play", f"{game} against {OPPONENT}, seat {seat}", game=game, opponent=OPPONENT,
                              seat=seat))
    if games:
        steps.append(Step("play", f"{games[0]} against {STRONG_OPPONENT.split(':')[0]} (short)", game=games[0],
                          opponent=STRONG_OPPONENT, seat=0))
        steps.append(Step("edge", f"{games[0]}: MatchEnd while it decides (the opponent leaves), then the next "
                          "match on the same process", game=games[0], opponent=OPPONENT, seat=0))
    return steps


def preflight(manifest: BotManifest, games: list[str], *, sandbox: SandboxSettings | None = None,
              clock: ClockSettings | None = None, startup_timeout_s: float = 30.0,
              on_step: StepCallback | None = None) -> PreflightReport:
    """Run the pre-flight of the bot in `manifest.directory` (a copy of ours: never the uploaded path)."""
    from arena.rpc.background import BackgroundReferee
    from arena.rpc.server import ServerConfig

    clock = clock or ClockSettings()
    sandbox = sandbox or SandboxSettings()
    started = time.perf_counter()
    steps = plan_steps(manifest, games)
    config = ServerConfig(port=None, bot_dirs=(manifest.directory,), results_dir=None, max_matches=1, clock=clock,
                          sandbox=sandbox, startup_timeout_s=startup_timeout_s, idle_timeout_s=0)
    referee = BackgroundReferee(config, drain_s=0.0)
    referee.start()
    pool = referee.server.pool
    output = ""
    failed: Step | None = None
    try:
        for index, step in enumerate(steps):
            if failed is not None:
                step.skipped = True
                step.detail = "not run: an earlier step failed"
                continue
            if on_step is not None:
                on_step(step)
            begun = time.perf_counter()
            _run_step(referee, pool, manifest, step, index, startup_timeout_s)
            step.seconds = time.perf_counter() - begun
            if on_step is not None:
                on_step(step)
            if not step.ok:
                failed = step
        output = referee.call(_sync(lambda: pool.output_tail(manifest.name)))
    finally:
        referee.stop()
    limits = manifest.limits.capped(sandbox.caps)
    report = PreflightReport(ok=failed is None, steps=steps, seconds=time.perf_counter() - started,
                             output_tail=output[-8192:], usage=pool.usage_peaks(manifest.name).to_json(),
                             limits=limits.to_json(), clock=clock.to_json())
    if failed is not None:
        report.fix = fixes(failed, clock, startup_timeout_s, limits.to_json(), report.usage)
    return report


def _run_step(referee: Any, pool: Any, manifest: BotManifest, step: Step, index: int, startup_timeout_s: float
              ) -> None:
    """Run the `index`th step of the pre-flight (start, edge or play), noting on `step` how it went."""
    from arena.rpc.pool import BotUnavailable

    if step.name == "start":
        try:
            referee.call(pool.warm_up(manifest.name))
            step.ok = True
            step.detail = "connected and said Hello"
        except BotUnavailable as problem:
            step.ok = False
            step.reason = problem.reason
            step.detail = problem.detail
            step.infrastructure = problem.reason is Termination.INFRASTRUCTURE
            step.fix = start_fix(problem.reason, startup_timeout_s, str(problem.evidence.get("output", "")))
    elif step.name == "edge":
        _edge(referee, manifest, step, _seed(manifest, index), startup_timeout_s)
    else:
        _play(referee, manifest, step, _seed(manifest, index))


def _play(referee: Any, manifest: BotManifest, step: Step, seed: int) -> None:
    assert step.game is not None and step.seat is not None and step.opponent is not None
    game = load_game(step.game)
    seats: list[Any] = [make_agent(step.opponent) for _ in range(game.num_seats)]
    seats[step.seat] = manifest.name
    try:
        record: MatchRecord = referee.run_match(step.game, seats, seed)
    finally:
        for entry in seats:
            if not isinstance(entry, str):
                entry.close()
    result = record.result
    assert result is not None
    mine = step.seat
    step.match_id = record.match_id
    step.reason = result.reason
    step.moves = sum(1 for s in record.steps if s.seat == mine)
    step.max_think_ms = _longest_think(record, mine)
    step.result = result.placed(mine)
    if result.termination in (Termination.INFRASTRUCTURE, Termination.VOID):
        step.ok = False
        step.infrastructure = True
        step.detail = f"the referee could not play the match: {result.detail}"
    elif result.offender == mine:
        step.ok = False
        step.detail = f"{result.reason}: {result.detail}"
    else:
        step.ok = True
        step.detail = f"{step.result} in {step.moves} moves ({result.reason})"


def _longest_think(record: MatchRecord, seat: int) -> float | None:
    """The longest `seat` thought over one move of `record` (None: it made none)."""
    thinks = [s.timing.get("think_ms", 0.0) for s in record.steps if s.seat == seat]
    return max(thinks) if thinks else None


def _edge(referee: Any, manifest: BotManifest, step: Step, seed: int, startup_s: float) -> None:
    """arena bot test's opponent-leaves and next-match checks, as one step."""
    assert step.game is not None
    run = ConformanceRun(referee, manifest, seed, startup_s)
    left = Check("opponent-leaves", "", game=step.game, seat=0)
    run.opponent_leaves(left, step.game, 0)
    following = Check("next-match", "", game=step.game, seat=1)
    if left.ok:
        run.next_match(following, step.game, 1)
    failed = following if left.ok else left
    step.ok = bool(left.ok and following.ok)
    step.reason, step.infrastructure, step.fix = failed.reason, failed.infrastructure, failed.fix
    step.moves = left.decisions + following.decisions
    step.detail = f"{left.detail}; then {following.detail}" if step.ok else failed.detail


def fixes(step: Step, clock: ClockSettings, startup_s: float, limits: dict[str, int],
          usage: dict[str, Any]) -> list[str]:
    """What to do about a failed step."""
    reason = step.reason or ""
    if step.infrastructure:
        return ["This was not your bot's doing (the referee or its machine failed): submit it again."]
    if step.name == "start" and reason != Termination.TIMEOUT:
        return [step.fix, "Run it as the referee does, on your machine: `arena bot test ./your-bot`."]
    if step.fix:
        return [step.fix]
    return [what_to_fix(reason, clock, limits, usage, startup_s)]


def _seed(manifest: BotManifest, index: int) -> int:
    digest = hashlib.sha256(f"{manifest.name}|{manifest.version}|{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


async def _sync(function: Callable[[], Any]) -> Any:
    return function()
