"""`arena match`: matches between bot programs through the referee, in seat-swapped pairs."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from arena.cli.common import console, fail, load_bot_folder, open_game, parse_options, print_json, results_dir
from arena.cli.serve import (
    ADMIN_TOKEN_FILE_OPTION,
    BOT_ENV_OPTION,
    SANDBOX_OPTION,
    TLS_CA_OPTION,
    check_bot_dirs,
    check_sandbox_here,
    client_admin_token,
    clock_options,
    fault_policy_option,
    sandbox_settings,
)
from arena.cli.runs import RunDisplay
from arena.cli.faults import FAULT_OUTPUT_LINES, print_fault
from arena.referee.evidence import seat_evidence, shown
from arena.referee.record import MatchRecord


@dataclass(frozen=True)
class Pairing:
    """One game of the series: its number, seed, and the bot in each seat."""

    index: int
    seed: int
    seats: tuple[str, ...]


def schedule(bots: list[str], games: int, first_seed: int) -> list[Pairing]:
    """Games in rotations: each seed is played once per rotation of the bots over the seats.

    With two bots that is seat-swapped pairs: (A, B) then (B, A) on the same seed.
    """
    pairings = []
    for index in range(games):
        rotation = index % len(bots)
        seats = tuple(bots[rotation:] + bots[:rotation])
        pairings.append(Pairing(index, first_seed + index // len(bots), seats))
    return pairings


def match(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode, see `arena games`."),
    bots: list[str] = typer.Argument(..., metavar="BOT_A BOT_B", help="Bots by name (Arena's own: random, greedy, "
                                     "scripted, mcts, trivial; ./bots/<name>/bot.toml; or registered on --server), or "
                                     "paths to bot folders; one per seat."),
    games: int = typer.Option(2, "--games", min=1, max=100_000, help="How many games (seat-swapped pairs)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Seed of the first pair (pair i uses seed+i)."),
    server: Optional[str] = typer.Option(None, "--server", help="Use a running `arena serve` at host:port "
                                         "instead of starting a referee here."),
    bot_dirs: Optional[list[Path]] = typer.Option(None, "--bots", help="Folder of <name>/bot.toml (repeatable;"
                                                  " default ./bots; Arena's own bots are always there)."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option key=value (repeatable)."),
    move_time_ms: int = typer.Option(1000, "--move-time-ms", min=1, help="Time per decision."),
    bank_ms: int = typer.Option(10_000, "--bank-ms", min=0, help="Overage bank per seat."),
    grace_ms: int = typer.Option(250, "--grace-ms", min=0, help="Transport grace per decision."),
    fault_policy: str = typer.Option("forfeit", "--fault-policy", help="forfeit | void | e.g. forfeit,timeout=void"),
    parallel: int = typer.Option(1, "--parallel", min=1, max=64, help="Matches played at once."),
    out: Optional[Path] = typer.Option(None, "--out", help="Results folder (default $ARENA_RESULTS or ./results)."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="ARENA_ADMIN_TOKEN",
                                              help="The referee's admin token (with --server)."),
    admin_token_file: Optional[Path] = ADMIN_TOKEN_FILE_OPTION,
    tls_ca: Optional[str] = TLS_CA_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    bot_env: Optional[list[str]] = BOT_ENV_OPTION,
    json_output: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Play bot programs against each other through the referee and summarise the results."""
    options = parse_options(option)
    game = open_game(game_name, options)
    if len(bots) != game.num_seats:
        fail(f"{game.name} has {game.num_seats} seats; name {game.num_seats} bots (got {len(bots)})", code=2)
    clock = clock_options(move_time_ms, bank_ms, grace_ms)
    policy = fault_policy_option(fault_policy)
    check_bot_dirs(bot_dirs)
    directory = out or results_dir()
    first_seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    settings = {"options": options, "clock": clock, "fault_policy": str(policy)}
    if server:
        runner: Runner = RemoteRunner(server, client_admin_token(admin_token, admin_token_file), directory, tls_ca)
        names = list(bots)
    else:
        names, extra_dirs = _local_bot_names(bots)
        settings_sandbox = sandbox_settings(sandbox, bot_env=bot_env)
        check_sandbox_here(settings_sandbox)
        runner = EmbeddedRunner(list(bot_dirs or [Path("bots")]) + extra_dirs, directory, settings_sandbox)
    pairings = schedule(names, games, first_seed)
    started = time.perf_counter()
    done: list[MatchRecord] = []

    with RunDisplay(f"{game.name}: {' vs '.join(names)}", quiet=json_output, unit="games") as display:
        def advance(record: MatchRecord) -> None:
            done.append(record)
            display.advance(len(done), len(pairings), describe_record(record))

        try:
            results = asyncio.run(_play_all(runner, game_name, pairings, settings, parallel, advance))
        except RunnerError as error:
            fail(str(error), code=2)
    elapsed = time.perf_counter() - started
    if json_output:
        print_json({"game": game.name, "bots": names, "first_seed": first_seed, "seconds": round(elapsed, 3),
                    "games": [_game_json(p, r, path) for p, (r, path) in zip(pairings, results)],
                    "summary": summarise(names, results_only(results))})
        return
    _print_tables(game.name, game.info.seat_names, names, pairings, results, elapsed)


class RunnerError(Exception):
    """A series that cannot be played (unknown bot, unreachable server...)."""


class Runner:
    """Plays one match and returns its record and where it was stored."""

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        return None

    async def play(self, game: str, seats: tuple[str, ...], seed: int, settings: dict) -> tuple[MatchRecord, Path]:
        raise NotImplementedError


class EmbeddedRunner(Runner):
    """A referee server started here, with no network port (bots reach it on its socket); bots from
    manifests, in their sandboxes."""

    def __init__(self, bot_dirs: list[Path], results: Path, sandbox: Any) -> None:
        self.bot_dirs = bot_dirs
        self.results = results
        self.sandbox = sandbox
        self.server: Any = None

    async def __aenter__(self) -> EmbeddedRunner:
        from arena.rpc.manifest import ManifestError
        from arena.rpc.server import RefereeServer, ServerConfig

        try:
            self.server = RefereeServer(ServerConfig(port=None, bot_dirs=tuple(self.bot_dirs), results_dir=self.results,
                                                     sandbox=self.sandbox))
        except (ManifestError, ValueError) as error:
            raise RunnerError(str(error)) from None
        await self.server.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.server.stop(drain_s=0.0)

    async def play(self, game: str, seats: tuple[str, ...], seed: int, settings: dict) -> tuple[MatchRecord, Path]:
        from arena.rpc.server import MatchRequestError

        try:
            live = self.server.start_match(game, seats, seed=seed, **settings)
        except MatchRequestError as error:
            raise RunnerError(str(error)) from None
        record = await live.task
        return record, live.path


class RemoteRunner(Runner):
    """A running `arena serve`, driven through its admin service; records also saved here."""

    def __init__(self, address: str, token: Optional[str], results: Path, tls_ca: Optional[str] = None) -> None:
        from arena.rpc.client import AdminClient

        self.client = AdminClient(address, token, tls_ca)
        self.results = results

    async def __aenter__(self) -> RemoteRunner:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.client.__aexit__(*exc_info)

    async def play(self, game: str, seats: tuple[str, ...], seed: int, settings: dict) -> tuple[MatchRecord, Path]:
        from arena.referee.archive import save_record
        from arena.rpc.client import AdminError

        try:
            match_id = await self.client.start_match(game, seats, seed=seed, options=settings["options"],
                                                     clock=settings["clock"], fault_policy=settings["fault_policy"])
            async for _event in self.client.watch(match_id):
                pass
            record = await self.client.record(match_id)
        except AdminError as error:
            raise RunnerError(str(error)) from None
        return record, save_record(self.results, record)


async def _play_all(runner: Runner, game: str, pairings: list[Pairing], settings: dict, parallel: int,
                    advance: Any) -> list[tuple[MatchRecord, Path]]:
    slots = asyncio.Semaphore(parallel)
    async with runner:
        async def one(pairing: Pairing) -> tuple[MatchRecord, Path]:
            async with slots:
                played = await runner.play(game, pairing.seats, pairing.seed, settings)
            advance(played[0])
            return played

        return list(await asyncio.gather(*(one(p) for p in pairings)))


def _local_bot_names(arguments: list[str]) -> tuple[list[str], list[Path]]:
    """Bot names as given; a path to a bot folder becomes its manifest's name and an extra bot folder."""
    names, extra = [], []
    for argument in arguments:
        path = Path(argument)
        if path.exists() or "/" in argument or argument.startswith("."):  # a folder, as a path is written
            manifest = load_bot_folder(path)
            names.append(manifest.name)
            extra.append(path)
        else:
            names.append(argument)
    return names, extra


def results_only(results: list[tuple[MatchRecord, Path]]) -> list[MatchRecord]:
    """The records of (record, path) pairs."""
    return [record for record, _ in results]


def summarise(names: list[str], records: list[MatchRecord]) -> dict[str, dict[str, Any]]:
    """Per bot: games, wins, draws, losses, how games ended, faults, mean think time per decision."""
    summary: dict[str, dict[str, Any]] = {}
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    own: dict[str, Counter[str]] = defaultdict(Counter)  # endings by the bot's own fault
    endings: dict[str, Counter[str]] = defaultdict(Counter)  # the others (an opponent's fault said so)
    think: dict[str, list[float]] = defaultdict(list)
    for name in dict.fromkeys(names):
        summary[name] = {"games": 0, "wins": 0, "draws": 0, "losses": 0, "faults": 0}
    for record in records:
        result = record.result
        assert result is not None
        seat_of = {player.seat: player.name for player in record.players}
        for seat, name in seat_of.items():
            row = summary.setdefault(name, {"games": 0, "wins": 0, "draws": 0, "losses": 0, "faults": 0})
            row["games"] += 1
            if result.is_draw:
                row["draws"] += 1
            elif seat in result.winners:
                row["wins"] += 1
            else:
                row["losses"] += 1
            if result.offender == seat:
                row["faults"] += 1
                own[name][result.reason] += 1
            elif result.offender is not None:
                endings[name][f"opponent's {result.reason}"] += 1
            else:
                endings[name][result.reason] += 1
            reasons[name][result.reason] += 1
        for step in record.decisions:
            if "think_ms" in step.timing:
                think[seat_of.get(step.seat, "?")].append(step.timing["think_ms"])
    for name, row in summary.items():
        row["reasons"] = dict(reasons[name].most_common())
        row["own_faults"] = dict(own[name].most_common())
        row["endings"] = dict(endings[name].most_common())
        row["mean_think_ms"] = round(statistics.fmean(think[name]), 3) if think[name] else None
        row["decisions"] = len(think[name])
    return summary


def describe_record(record: MatchRecord, names: dict[int, str] | None = None) -> str:
    """'greedy beat random (score)', 'crashbot lost by crash', or 'a draw (score)' for a finished record
    (`names`: who sat where, when the record's player names are not how they are shown)."""
    result = record.result
    if result is None:
        return ""
    names = names or {player.seat: player.name for player in record.players}
    if result.offender is not None:
        return f"{names.get(result.offender, f'seat {result.offender}')} lost by {result.reason}"
    if result.is_draw:
        return f"a draw ({result.reason})"
    winners = [names.get(seat, f"seat {seat}") for seat in result.winners]
    losers = [name for seat, name in names.items() if seat not in result.winners]
    return f"{' and '.join(winners)} beat {' and '.join(losers)} ({result.reason})"


def print_fault_output(records: list[MatchRecord]) -> None:
    """For each bot program that lost a game by its own fault: the reason and its last output lines (once,
    from its latest such game)."""
    latest: dict[str, tuple[MatchRecord, int]] = {}
    for record in records:
        result = record.result
        if result is not None and result.offender is not None:
            name = next((p.name for p in record.players if p.seat == result.offender), f"seat {result.offender}")
            latest[name] = (record, result.offender)
    for name, (record, seat) in latest.items():
        result = record.result
        assert result is not None
        print_fault(name, result.reason, result.detail, seat_evidence(record.extra, seat, FAULT_OUTPUT_LINES))


def _game_json(pairing: Pairing, record: MatchRecord, path: Path | None) -> dict[str, Any]:
    result = record.result
    assert result is not None
    return {"index": pairing.index, "seed": record.seed, "seats": list(pairing.seats), "match_id": record.match_id,
            "ranking": list(result.ranking), "scores": list(result.scores), "reason": result.reason,
            "offender": result.offender, "detail": result.detail, "voided": result.voided,
            "decisions": len(record.decisions), "record": str(path) if path else None}


def _print_tables(game: str, seat_names: tuple[str, ...], names: list[str], pairings: list[Pairing],
                  results: list[tuple[MatchRecord, Path]], elapsed: float) -> None:
    table = Table(title=f"{game}: {len(results)} game(s) in {elapsed:.2f}s")
    for column in ("#", "seed", *seat_names, "winner", "scores", "reason", "decisions"):
        table.add_column(column, justify="right" if column in ("#", "seed", "decisions") else "left")
    for pairing, (record, _path) in zip(pairings, results):
        result = record.result
        assert result is not None
        if result.is_draw:
            winner = "draw" + (" (void)" if result.voided else "")
        else:
            winner = ", ".join(pairing.seats[s] for s in result.winners)
        reason = escape(shown(result.reason + (f": {result.detail}" if result.offender is not None and result.detail
                                               else "")))
        scores = " - ".join(f"{s:g}" for s in result.scores) or "-"
        table.add_row(str(pairing.index + 1), str(record.seed), *pairing.seats, winner, scores, reason,
                      str(len(record.decisions)))
    console.print(table)
    if results:
        folder = results[0][1].parent
        console.print(f"records: {folder}/ (replay one with: arena replay {results[-1][1]})", soft_wrap=True)
    summary = summarise(names, results_only(results))
    totals = Table(title="By bot")
    for column in ("bot", "games", "wins", "draws", "losses", "its faults", "other endings", "think ms/decision"):
        totals.add_column(column, justify="left" if column in ("bot", "its faults", "other endings") else "right")
    for name, row in summary.items():
        own = ", ".join(f"{reason} {count}" for reason, count in row["own_faults"].items()) or "-"
        others = ", ".join(f"{reason} {count}" for reason, count in row["endings"].items()) or "-"
        think = f"{row['mean_think_ms']:.2f}" if row["mean_think_ms"] is not None else "-"
        totals.add_row(name, str(row["games"]), str(row["wins"]), str(row["draws"]), str(row["losses"]),
                       own, others, think)
    console.print(totals)
    print_fault_output(results_only(results))


def register(app: typer.Typer) -> None:
    app.command("match")(match)
