"""`arena serve`: the referee server; `arena watch`: follow a match on a running server."""

from __future__ import annotations

import asyncio
import errno
import signal
from pathlib import Path
from typing import Any, Optional

import typer

from arena.cli.options import (ADMIN_TOKEN_FILE, ADMIN_TOKEN_FILE_OPTION, BOT_ENV_OPTION, SANDBOX_OPTION,
    TLS_CA_OPTION, clock_options, fault_policy_option)
from arena.cli.settings import (check_bot_dirs, check_sandbox_here, client_admin_token, folder_problems,
                                read_operator_config, read_token_file, results_dir, sandbox_settings)
from arena.cli.show import console, err_console, fail, styled
from arena.referee.players import PlayerKind
from arena.rpc.client import AdminClient, AdminError
from arena.rpc.convert import result_from_message
from arena.rpc.manifest import ManifestError
from arena.rpc.pool import new_token
from arena.rpc.server import RefereeServer, ServerConfig, listening_line
from arena.sandbox import SandboxUnavailable

DEFAULT_PORT = 50051


def network_warning(host: str, tls: bool) -> Optional[str]:
    """The warning for a referee reachable beyond this machine without TLS, else None."""
    if tls or host in ("127.0.0.1", "localhost", "::1"):
        return None
    return (f"warning: serving on {host} without TLS: tokens and matches cross the network in the clear "
            "(give --tls-cert and --tls-key)")


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0 for every interface: "
                             "use TLS then)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, max=65535, help="Port (0 = any free port)."),
    bots: Optional[list[Path]] = typer.Option(None, "--bots", help="Folder of <name>/bot.toml (repeatable; "
                                              "default ./bots; Arena's own bots are always served)."),
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
                                            help="Secret that keys bots' seeds (default: a new one each start)."),
    public_seeds: bool = typer.Option(False, "--public-seeds", help="Bots' seeds from the match seed alone, as in "
                                      "local play (reproducible; only for bots you trust)."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="ARENA_ADMIN_TOKEN",
                                              help="The bearer token admin calls need (default: one is made and "
                                                   f"written to results/{ADMIN_TOKEN_FILE}, 0600)."),
    admin_token_file: Optional[Path] = typer.Option(None, "--admin-token-file",
                                                    help="Where to write the token made at start."),
    viewer_token_file: Optional[Path] = typer.Option(None, "--viewer-token-file",
                                                     help="A file holding a second token, which only lists and "
                                                          "watches matches (for `arena web --viewer-token-file`)."),
    watch_delay: Optional[float] = typer.Option(None, "--watch-delay", min=0.0,
                                                help="Admins' full view of a running match lags this many seconds "
                                                     "(default: hidden information only after the match)."),
    sandbox: Optional[str] = SANDBOX_OPTION,
    sandbox_ro: Optional[list[Path]] = typer.Option(None, "--sandbox-ro", help="Folder every sandbox may read "
                                                    "(a runtime such as /opt/jdk; repeatable)."),
    bot_env: Optional[list[str]] = BOT_ENV_OPTION,
    limit_cap: Optional[list[str]] = typer.Option(None, "--limit-cap", help="The most a bot.toml may ask for, "
                                                  "e.g. memory_mb=4096 (repeatable; names: memory_mb, processes, "
                                                  "open_files, cpu_seconds, scratch_mb)."),
    idle_timeout: Optional[float] = typer.Option(None, "--idle-timeout", min=0.0,
                                                 help="Stop a warm bot process idle this many seconds (default "
                                                      "600; 0 = never)."),
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="PEM certificate chain: serve over TLS."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="PEM private key of --tls-cert."),
    config_file: Optional[Path] = typer.Option(None, "--config", help="The operator's TOML file (tables sandbox, "
                                               "admin and tls, and idle_timeout_s); flags win over it."),
) -> None:
    """Run the referee server: bots connect over gRPC, matches start through the admin service."""
    config = read_operator_config(config_file)
    tokens, printed = _remote_tokens(remote or [])
    check_bot_dirs(bots)
    settings = sandbox_settings(sandbox, sandbox_ro, bot_env, limit_cap, config)
    check_sandbox_here(settings)
    results = out or results_dir()
    admin = config.get("admin", {})
    cert, key = _tls_files(tls_cert, tls_key, config.get("tls", {}), host)
    token_file = _path_setting(admin_token_file, admin, "token_file")
    server_config = ServerConfig(
        host=host, port=port, bot_dirs=tuple(bots or [Path("bots")]), skip_bad_bots=True, bot_check=folder_problems,
        remote_tokens=tokens,
        results_dir=results, clock=clock_options(move_time_ms, bank_ms, grace_ms),
        fault_policy=fault_policy_option(fault_policy), max_matches=max_matches, seed_salt=seed_salt,
        public_seeds=public_seeds,
        admin_token=admin_token or admin.get("token") or None,
        admin_token_file=token_file or results / ADMIN_TOKEN_FILE,
        viewer_token=read_token_file(viewer_token_file or admin.get("viewer_token_file"), "--viewer-token-file"),
        watch_delay_s=watch_delay if watch_delay is not None else admin.get("watch_delay_s"),
        sandbox=settings, idle_timeout_s=_idle_timeout(idle_timeout, config), tls_cert=cert, tls_key=key)
    _run_server(server_config, printed, drain)


def _tls_files(tls_cert: Path | None, tls_key: Path | None, tls: dict[str, Any],
               host: str) -> tuple[Path | None, Path | None]:
    """The TLS certificate and key (flags, else the config's tls table), both or neither, or a one-line error;
    warns of serving beyond this machine without them."""
    cert = _path_setting(tls_cert, tls, "cert")
    key = _path_setting(tls_key, tls, "key")
    if (cert is None) != (key is None):
        fail("TLS needs both --tls-cert and --tls-key", code=2)
    warning = network_warning(host, tls=cert is not None)
    if warning:
        err_console.print(warning, soft_wrap=True)
    return cert, key


def _path_setting(given: Path | None, table: dict[str, Any], name: str) -> Path | None:
    """A path flag, else the config table's entry `name` (when set), else None."""
    return given or (Path(table[name]) if table.get(name) else None)


def _idle_timeout(given: float | None, config: dict[str, Any]) -> float:
    """--idle-timeout, else the config file's idle_timeout_s, else 600 s."""
    return given if given is not None else float(config.get("idle_timeout_s", 600.0))


def _run_server(config: ServerConfig, printed: list[str], drain: float) -> None:
    """Serve until stopped, or a one-line error: a bad bot folder or TLS file, no sandbox, the port in use."""
    try:
        server = RefereeServer(config)
    except (ManifestError, ValueError) as error:
        fail(str(error), code=2)
    try:
        asyncio.run(_serve(server, printed, drain))
    except SandboxUnavailable as error:
        fail(str(error), code=2)
    except ValueError as error:  # unreadable TLS files
        fail(str(error), code=2)
    except OSError as error:
        why = ("the port is in use (pick another --port, or stop what uses it)"
               if error.errno == errno.EADDRINUSE or "address already in use" in str(error).lower() else str(error))
        fail(f"cannot serve on {config.host}:{config.port}: {why}")


async def _serve(server: RefereeServer, printed: list[str], drain: float) -> None:
    address = await server.start()
    _print_started(server, address, printed)
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


def _print_started(server: RefereeServer, address: str, printed: list[str]) -> None:
    """What a started server says: where it listens, its local bots (and those left out), where its admin token
    and records are, and the remote bots' tokens made for them (`printed`)."""
    console.print(listening_line(address, server.is_tls), soft_wrap=True)
    rows = server.pool.status()
    local = [row["name"] for row in rows if row["kind"] is PlayerKind.PROGRAM]
    launcher = server.pool.launcher
    console.print(f"local bots: {', '.join(local) or 'none'} ({launcher.describe() if launcher else 'no launcher'})",
                  soft_wrap=True)
    for problem in server.unavailable:
        err_console.print(f"arena: warning: a bot left out (fix it, then restart): {problem}",
                          markup=False, soft_wrap=True)
    if server.admin_token_path is not None:
        console.print(f"admin token: in {server.admin_token_path} (readable by this user only)", soft_wrap=True)
    for line in printed:
        console.print(line, soft_wrap=True)
    console.print(f"records: {server.config.results_dir}/records/   stop with Ctrl-C", soft_wrap=True)


async def _report_matches(server: RefereeServer) -> None:
    reported: set[str] = set()
    while True:
        await asyncio.sleep(0.5)
        for match_id, live in list(server.matches.items()):
            record = live.record
            if live.is_finished and match_id not in reported and record is not None and record.result is not None:
                reported.add(match_id)
                result = record.result
                names = " vs ".join(p.name for p in record.players)
                console.print(f"{match_id[:8]} {live.game.name} {names}: ranking {list(result.ranking)} "
                              f"({result.reason}{': ' + result.detail if result.detail else ''})", soft_wrap=True,
                              markup=False)


def _remote_tokens(entries: list[str]) -> tuple[dict[str, str], list[str]]:
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


def _print_watch_header(header: Any, full: bool) -> tuple[list[str], list[str]]:
    """Print a watched match's header line; (its seat names, its players' names by seat)."""
    seat_names = list(header.seat_names)
    player_names = [""] * len(seat_names)
    for player in header.players:
        if player.seat < len(player_names):
            player_names[player.seat] = player.name
    players = ", ".join(f"{p.name} ({seat_names[p.seat] if p.seat < len(seat_names) else p.seat})"
                        for p in header.players)
    view = "full view" if full else "public view"
    console.print(styled("[bold]{}[/bold] ({}): {}", header.game, view, players))
    return seat_names, player_names


def _print_watch_end(finished: Any, seat_names: list[str], player_names: list[str]) -> None:
    """Print how a watched match ended: its verdict, detail, seed (full view) and record."""
    result = finished.result
    extra = f"  seed {finished.seed}" if finished.HasField("seed") else ""
    extra += f"  record: {finished.record_path}" if finished.record_path else ""
    ended = result_from_message(result)
    console.print(styled("[bold]{}[/bold]{}{}", ended.verdict(seat_names, player_names),
                         ": " + result.detail if result.detail else "", extra), soft_wrap=True)


def watch(
    match_id: str = typer.Argument(..., metavar="MATCH_ID", help="A match id (see `arena match --server`)."),
    server: str = typer.Option(f"127.0.0.1:{DEFAULT_PORT}", "--server", help="The referee's host:port."),
    full: bool = typer.Option(False, "--full", help="The admin's full view (cards drawn, the seed), delayed while "
                              "the match runs; needs the admin token."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="ARENA_ADMIN_TOKEN"),
    admin_token_file: Optional[Path] = ADMIN_TOKEN_FILE_OPTION,
    tls_ca: Optional[str] = TLS_CA_OPTION,
) -> None:
    """Follow a match on a running referee, decision by decision, until it ends (the public view by default)."""
    token = client_admin_token(admin_token, admin_token_file) if full else None

    async def follow() -> None:
        async with AdminClient(server, token, tls_ca) as admin:
            seat_names: list[str] = []
            player_names: list[str] = []
            decisions = 0  # numbered as the match's record, replay and page number them
            async for event in admin.watch(match_id, full=full):
                kind = event.WhichOneof("kind")
                if kind == "header":
                    seat_names, player_names = _print_watch_header(event.header, full)
                elif kind == "step":
                    step = event.step
                    if step.seat < 0:
                        console.print(f"  {step.n + 1:4d}. chance: {step.label}", style="dim")
                    else:
                        decisions += 1
                        console.print(styled("  {}. {}  (decision {})  [dim]({} ms)[/dim]", f"{step.n + 1:4d}",
                                             step.label, decisions, f"{step.think_ms:.1f}"))
                else:
                    _print_watch_end(event.finished, seat_names, player_names)

    try:
        asyncio.run(follow())
    except AdminError as error:
        fail(str(error))

