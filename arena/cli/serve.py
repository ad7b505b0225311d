"""`arena serve`: the referee server; `arena watch`: follow a match on a running server."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Optional

import typer

from arena.cli.common import console, fail, results_dir

DEFAULT_PORT = 50051


def clock_options(move_time_ms: int, bank_ms: int, grace_ms: int):  # type: ignore[no-untyped-def]
    """ClockSettings from the command line's milliseconds, or a one-line error."""
    from arena.referee.clock import ClockSettings

    try:
        return ClockSettings(move_time_ms / 1000.0, bank_ms / 1000.0, grace_ms / 1000.0)
    except ValueError as error:
        fail(str(error), code=2)


def fault_policy_option(text: str):  # type: ignore[no-untyped-def]
    """A FaultPolicy from the command line, or a one-line error."""
    from arena.referee.faults import FaultPolicy, FaultPolicyError

    try:
        return FaultPolicy.parse(text)
    except FaultPolicyError as error:
        fail(str(error), code=2)


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0 for every interface)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, max=65535, help="Port (0 = any free port)."),
    bots: Optional[list[Path]] = typer.Option(None, "--bots", help="Folder of bots/<name>/bot.toml (repeatable; "
                                              "default ./bots)."),
    remote: Optional[list[str]] = typer.Option(None, "--remote", help="Register a remote bot: NAME=TOKEN, or NAME "
                                               "to have a token made and printed (repeatable)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Results folder for records (default $ARENA_RESULTS "
                                       "or ./results)."),
    move_time_ms: int = typer.Option(1000, "--move-time-ms", min=1, help="Default time per decision."),
    bank_ms: int = typer.Option(10_000, "--bank-ms", min=0, help="Default overage bank per seat."),
    grace_ms: int = typer.Option(250, "--grace-ms", min=0, help="Default transport grace per decision."),
    fault_policy: str = typer.Option("forfeit", "--fault-policy", help="forfeit | void | e.g. forfeit,timeout=void"),
    max_matches: int = typer.Option(64, "--max-matches", min=1, help="Matches played at once."),
    drain: float = typer.Option(10.0, "--drain", min=0.0, help="On shutdown, seconds running matches may finish "
                                "in before they are voided."),
    seed_salt: Optional[str] = typer.Option(None, "--seed-salt", envvar="ARENA_SEED_SALT",
                                            help="Secret that keys bots' seeds (set it for untrusted bots)."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="ARENA_ADMIN_TOKEN",
                                              help="Require this bearer token on admin calls."),
) -> None:
    """Run the referee server: bots connect over gRPC, matches start through the admin service."""
    from arena.rpc.manifest import ManifestError
    from arena.rpc.server import RefereeServer, ServerConfig

    tokens, printed = _remote_tokens(remote or [])
    check_bot_dirs(bots)
    config = ServerConfig(
        host=host, port=port, bot_dirs=tuple(bots or [Path("bots")]), remote_tokens=tokens,
        results_dir=out or results_dir(), clock=clock_options(move_time_ms, bank_ms, grace_ms),
        fault_policy=fault_policy_option(fault_policy), max_matches=max_matches, seed_salt=seed_salt,
        admin_token=admin_token)
    try:
        server = RefereeServer(config)
    except (ManifestError, ValueError) as error:
        fail(str(error), code=2)
    try:
        asyncio.run(_serve(server, printed, drain))
    except OSError as error:
        fail(f"cannot serve on {host}:{port}: {error}")


async def _serve(server, printed: list[str], drain: float) -> None:  # type: ignore[no-untyped-def]
    from arena.rpc.server import listening_line

    address = await server.start()
    console.print(listening_line(address), soft_wrap=True)
    rows = server.pool.status()
    local = [row["name"] for row in rows if row["kind"] == "local"]
    console.print(f"local bots: {', '.join(local) or 'none'}", soft_wrap=True)
    for line in printed:
        console.print(line, soft_wrap=True)
    console.print(f"records: {server.config.results_dir}/records/   stop with Ctrl-C", soft_wrap=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopping.set)
    reporter = loop.create_task(_report_matches(server))
    await stopping.wait()
    running = sum(1 for live in server.matches.values() if not live.is_finished)
    console.print(f"shutting down: {running} match(es) running, {drain:g}s to finish before they are voided")
    reporter.cancel()
    voided = await server.stop(drain)
    console.print(f"stopped ({len(voided)} match(es) voided)")


async def _report_matches(server) -> None:  # type: ignore[no-untyped-def]
    reported: set[str] = set()
    while True:
        await asyncio.sleep(0.5)
        for match_id, live in list(server.matches.items()):
            if live.is_finished and match_id not in reported:
                reported.add(match_id)
                result = live.record.result
                names = " vs ".join(p.name for p in live.record.players)
                console.print(f"{match_id[:8]} {live.game.name} {names}: ranking {list(result.ranking)} "
                              f"({result.reason}{': ' + result.detail if result.detail else ''})", soft_wrap=True,
                              markup=False)


def check_bot_dirs(folders: Optional[list[Path]]) -> None:
    """Fail with one line if a --bots folder named on the command line does not exist."""
    for folder in folders or []:
        if not folder.is_dir():
            fail(f"no bot folder {folder} (--bots names a folder of <name>/bot.toml)", code=2)


def _remote_tokens(entries: list[str]) -> tuple[dict[str, str], list[str]]:
    from arena.rpc.pool import new_token

    tokens: dict[str, str] = {}
    printed = []
    for entry in entries:
        name, sep, token = entry.partition("=")
        name = name.strip()
        if not name:
            fail(f"bad --remote {entry!r}: expected NAME or NAME=TOKEN", code=2)
        if not sep:
            token = new_token()
            printed.append(f"remote bot {name}: token {token}")
        tokens[name] = token
    return tokens, printed


def watch(
    match_id: str = typer.Argument(..., metavar="MATCH_ID", help="A match id (see `arena match --server`)."),
    server: str = typer.Option(f"127.0.0.1:{DEFAULT_PORT}", "--server", help="The referee's host:port."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="ARENA_ADMIN_TOKEN"),
) -> None:
    """Follow a match on a running referee, decision by decision, until it ends."""
    from arena.rpc.client import AdminClient, AdminError

    async def follow() -> None:
        async with AdminClient(server, admin_token) as admin:
            seat_names: list[str] = []
            async for event in admin.watch(match_id):
                kind = event.WhichOneof("kind")
                if kind == "header":
                    seat_names = list(event.header.seat_names)
                    players = ", ".join(f"{p.name} ({seat_names[p.seat] if p.seat < len(seat_names) else p.seat})"
                                        for p in event.header.players)
                    console.print(f"[bold]{event.header.game}[/bold] seed {event.header.seed}: {players}")
                elif kind == "step":
                    step = event.step
                    if step.seat < 0:
                        console.print(f"  [dim]{step.n:4d} chance: {step.label}[/dim]")
                    else:
                        console.print(f"  {step.n:4d} {step.label}  [dim]({step.think_ms:.1f} ms)[/dim]")
                else:
                    result = event.finished.result
                    console.print(f"[bold]result[/bold]: ranking {list(result.ranking)} ({result.reason}"
                                  f"{': ' + result.detail if result.detail else ''})  record: "
                                  f"{event.finished.record_path}", soft_wrap=True)

    try:
        asyncio.run(follow())
    except AdminError as error:
        fail(str(error))


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("watch")(watch)
