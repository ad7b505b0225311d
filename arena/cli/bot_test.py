"""`arena bot test PATH`: a bot program's conformance run (arena.bottest.harness), as a table."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.table import Table

from arena.cli.common import console, fail, load_bot_folder, mark, print_json, styled
from arena.cli.runs import JSON_OPTION, RunDisplay, duration
from arena.cli.serve import BOT_ENV_OPTION, SANDBOX_OPTION, check_sandbox_here, clock_options, sandbox_settings
from arena.referee.evidence import shown
from arena.bottest.harness import Check, plan_checks

_MARK = {True: mark("pass", "green"), False: mark("FAIL", "red"), None: mark("skip", "dim")}
OUTPUT_LINES = 15  # of the bot's output, under the table

if TYPE_CHECKING:
    from arena.bottest.harness import ConformanceReport
    from arena.rpc.manifest import BotManifest


def test_command(
    path: Path = typer.Argument(..., metavar="PATH", help="The bot's folder (or its bot.toml)."),
    games: Optional[str] = typer.Option(None, "--games", help="Comma-separated games or modes to play (default: "
                                        "those bot.toml's games name; '*' = one mode of every family)."),
    matches: int = typer.Option(2, "--matches", min=1, max=20, help="Matches per game (seats in turn)."),
    move_time_ms: int = typer.Option(1000, "--move-time-ms", min=1, help="Time per decision."),
    bank_ms: int = typer.Option(10_000, "--bank-ms", min=0, help="Overage bank per match."),
    grace_ms: int = typer.Option(250, "--grace-ms", min=0, help="Transport grace per decision."),
    startup_s: float = typer.Option(30.0, "--startup-s", min=1.0, help="Time to start and say Hello."),
    seed: int = typer.Option(1, "--seed", min=0, help="Seed of the first match."),
    sandbox: Optional[str] = SANDBOX_OPTION,
    bot_env: Optional[list[str]] = BOT_ENV_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Check a bot program as the referee will run it: handshake, matches on each game it plays, and the
    protocol's edge cases. Exits 1 if any check fails; the report says what to fix."""
    from arena.bottest.harness import run_conformance

    manifest = load_bot_folder(path)
    modes = _modes(manifest, games)
    settings = sandbox_settings(sandbox, bot_env=bot_env)
    check_sandbox_here(settings)
    clock = clock_options(move_time_ms, bank_ms, grace_ms)
    ticker = CheckTicker(f"arena bot test {manifest.name}", len(plan_checks(manifest, modes, matches)),
                         quiet=json_output)
    with ticker:
        report = run_conformance(manifest, modes, matches_per_game=matches, sandbox=settings, clock=clock,
                                 startup_timeout_s=startup_s, seed=seed, on_check=ticker.on_check)
    if json_output:
        print_json(report.to_json())
    else:
        _print_report(report)
    if not report.ok:
        raise typer.Exit(1)


class CheckTicker:
    """Progress of a conformance run, also inside a long check: which check of how many, how long it has run and
    the decisions the bot made in it (on a terminal in place, once a second; written to a file or a pipe, a line
    every few seconds)."""

    def __init__(self, title: str, total: int, *, quiet: bool) -> None:
        self.display = RunDisplay(title, quiet=quiet, unit="checks")
        self.current: Check | None = None
        self.done = 0
        self.total = total
        self.began = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="arena-bot-test-progress", daemon=True)

    def __enter__(self) -> CheckTicker:
        self.display.__enter__()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self.display.__exit__(*exc_info)

    def on_check(self, check: Check) -> None:
        if check.ok is None and not check.skipped:
            self.current, self.began = check, time.monotonic()
            return
        self.done += 1
        self.current = None
        verdict = "skipped" if check.skipped else "pass" if check.ok else "FAIL"
        self.display.advance(self.done, self.total, f"{check.name}{' ' + check.game if check.game else ''} {verdict}")

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            check = self.current
            if check is not None:
                self.display.advance(self.done, self.total, f"running {check.name}"
                                     f"{' ' + check.game if check.game else ''} for "
                                     f"{duration(time.monotonic() - self.began)}, {check.decisions} decision(s)")


def _modes(manifest: BotManifest, games: Optional[str]) -> list[str]:
    """The modes to play: those asked for (each one the bot must play), else those bot.toml declares."""
    from arena.games.registry import UnknownGameError, family_of
    from arena.submissions.checks import declared_games

    if games is None:
        try:
            return declared_games(manifest.games)
        except UnknownGameError as error:
            fail(f"{manifest.directory / 'bot.toml'}: games lists {error}", code=2)
    try:
        modes = declared_games([name.strip() for name in games.split(",") if name.strip()])
    except UnknownGameError as error:
        fail(str(error), code=2)
    for mode in modes:
        if not manifest.plays(mode, family_of(mode).name):
            fail(f"{manifest.name} does not play {mode}: its bot.toml says games = {list(manifest.games)}", code=2)
    return modes


def _print_report(report: ConformanceReport) -> None:
    hello = report.hello
    title = f"arena bot test {report.bot}" + (f" (version {hello['version']})" if hello else "")
    table = Table(title=title, title_justify="left")
    table.add_column("check", no_wrap=True)
    table.add_column("game", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("matches", justify="right")
    table.add_column("decisions", justify="right")
    table.add_column("ms per decision\nmean · max", justify="right", no_wrap=True)
    table.add_column("detail")
    for check in report.checks:
        timing = check.timing()
        table.add_row(check.name, check.game or "", _MARK[None if check.skipped else bool(check.ok)],
                      str(check.matches) if check.matches else "", str(check.decisions) if check.matches else "",
                      f"{timing['mean_ms']:.1f} · {timing['max_ms']:.1f}" if timing else "",
                      check.detail)
    console.print(table)
    for warning in report.warnings():
        console.print(styled("[bold yellow]warning[/bold yellow]: {}", warning), soft_wrap=True)
    if report.output_tail.strip():
        lines = report.output_tail.rstrip().splitlines()[-OUTPUT_LINES:]
        console.print(f"the bot's output (stdout and stderr), last {len(lines)} line(s):")
        for line in lines:
            console.print(f"  {shown(line)}", markup=False, highlight=False)
    fixes: dict[str, list[str]] = {}
    for check in report.checks:
        if check.ok is False and check.fix:
            fixes.setdefault(check.fix, []).append(check.name)
    for fix, names in fixes.items():
        console.print(styled("[bold]fix[/bold] ({}): {}", ", ".join(dict.fromkeys(names)), fix))
    passed = sum(1 for check in report.checks if check.ok)
    failed = sum(1 for check in report.checks if check.ok is False)
    style = "green" if report.ok else "red"
    console.print(mark("passed" if report.ok else "failed", style) +
                  f": {passed} check(s) passed, {failed} failed, in {report.seconds:.1f} s (clock: "
                  f"{report.clock['move_time_s']:g} s per decision, {report.clock['bank_s']:g} s bank)")


def register(main: typer.Typer) -> None:
    from arena.cli.bot import app as bots

    bots.command("test")(test_command)
