"""`arena bot`: the bots in the database and their versions: list, show, compare, submit, register (a remote
bot), versions, retire, and test (a bot program's conformance run)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from arena.bottest.harness import plan_checks, run_conformance
from arena.cli.options import (BOT_ENV_OPTION, BOT_STORE_OPTION, DB_OPTION, JSON_OPTION, MAX_SEED, SANDBOX_OPTION,
    SERVER_CA_OPTION, clock_options)
from arena.cli.settings import checked_bot_folder, checked_sandbox, open_store, pools_for, results_dir
from arena.cli.show import (CheckTicker, StepPrinter, ago, console, err_console, fail, mark, print_conformance,
    print_json, print_submission, styled, trend_sparkline)
from arena.games.registry import UnknownGameError, did_you_mean, family_of
from arena.ratings.compare import CompareError, Interval, compare_versions, comparison_json, find_versions
from arena.ratings.reports import bot_ratings, iso
from arena.rpc.manifest import BotManifest
from arena.store import BotRow, Store
from arena.submissions import Step, SubmissionError, bot_store, retire, submit
from arena.submissions.checks import declared_games
from arena.submissions.remote import OwnerClient, RemoteError, as_archive, find_token
from arena.submissions.submit import authorize, register_remote, submission_from_json

OWNER_OPTION = typer.Option(None, "--owner", envvar="ARENA_OWNER",
                            help="Who answers for the bot (needed on a server with owners; default: $ARENA_OWNER).")
TOKEN_OPTION = typer.Option(None, "--token", envvar="ARENA_OWNER_TOKEN",
                            help="The owner's token from `arena owner add` (default: $ARENA_OWNER_TOKEN).")
SERVER_OPTION = typer.Option(None, "--server", envvar="ARENA_WEB_SERVER",
                             help="A hosted Arena (`arena web`, e.g. https://arena.example.org): upload there "
                                  "instead of into a local database.")

app = typer.Typer(rich_markup_mode=None, help="Bots in the database: who they are and how they do.",
                  no_args_is_help=True)


@app.command("list")
def list_bots(db: Optional[str] = DB_OPTION, json_output: bool = JSON_OPTION) -> None:
    """Every registered bot."""
    store = open_store(db, read_only=True)
    bots = store.bots.find()
    if json_output:
        print_json([{"name": b.name, "version": b.version, "artifact_hash": b.artifact_hash,
                     "kind": b.kind.value, "spec": b.spec, "owner": b.owner, "status": b.status,
                     "created_at": b.created_at.isoformat(timespec="seconds") + "Z"} for b in bots])
        return
    table = Table(title="Bots")
    for column in ("name", "version", "artifact", "kind", "status", "spec", "registered"):
        table.add_column(column)
    for b in bots:
        table.add_row(b.name, b.version, b.artifact_hash[:12], b.kind.value, b.status, b.spec, ago(b.created_at))
    console.print(table)


def _bot_json(store: Store, bot: BotRow, pools: list[str]) -> dict[str, Any]:
    report = store.bots.report(bot.id)
    return {"name": bot.name, "version": bot.version, "artifact_hash": bot.artifact_hash,
            "kind": bot.kind.value, "spec": bot.spec, "owner": bot.owner, "status": bot.status,
            "retired_at": iso(bot.retired_at), "preflight": report, "ratings": bot_ratings(store, bot, pools)}


@app.command("show")
def show(
    name: str = typer.Argument(..., metavar="NAME", help="A bot name (every version of it is shown)."),
    game: Optional[str] = typer.Option(None, "--game", help="Only this game or mode."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """A bot's versions, with their ratings in each game mode, rating history and head-to-head results."""
    store = open_store(db, read_only=True)
    name, bots = _named_bots(store, name)
    pools = pools_for(store, game) if game else store.ratings.pools()
    data = [_bot_json(store, bot, pools) for bot in bots]
    if json_output:
        print_json(data if len(data) > 1 else data[0])
        return
    for bot in data:
        _print_version(bot)


def _named_bots(store: Store, name: str) -> tuple[str, list[BotRow]]:
    """The versions of the bot `name` names, or of a built-in agent by its base name ("mcts": the one stored
    with settings, "mcts(30)"), with the name found; else a one-line error naming the bots there are."""
    bots = store.bots.find(name)
    if bots:
        return name, bots
    names = sorted({b.name for b in store.bots.find()})
    variants = [known for known in names if known.startswith(f"{name}(")]
    if len(variants) == 1:
        return variants[0], store.bots.find(variants[0])
    hint = f" (with its settings: {', '.join(variants)})" if variants else did_you_mean(name, names)
    fail(f"no bot named {name!r}{hint}; known bots: {', '.join(names[:20]) or 'none yet'}")


def _print_version(bot: dict[str, Any]) -> None:
    """One version as `arena bot show` prints it: who it is, its pre-flight, and its ratings."""
    console.print(styled("[bold]{}[/bold] version {} ({})  artifact {}  {}: {}{}", bot["name"], bot["version"],
                         bot["status"], bot["artifact_hash"][:16], bot["kind"], bot["spec"],
                         f"  owner {bot['owner']}" if bot["owner"] else ""))
    if bot["preflight"] is not None:
        preflight = bot["preflight"]
        console.print(f"  pre-flight {'passed' if preflight.get('ok') else 'failed'} in "
                      f"{preflight.get('seconds', 0):.1f} s" + "".join(f"; fix: {fix}"
                                                                      for fix in preflight.get("fix", [])))
    if not bot["ratings"]:
        console.print("  no rated matches yet")
    for rating in bot["ratings"]:
        _print_rating(rating)


def _print_rating(rating: dict[str, Any]) -> None:
    """A version's rating in one mode: rank, mu, sigma and results, its mu over its last games, head-to-head."""
    mus = [h["mu"] for h in rating["history"]]
    console.print(styled("\n[bold]{}[/bold]", rating["pool"]) + f": rank {rating['rank']}, mu {rating['mu']:.2f}, "
                  f"sigma {rating['sigma']:.2f}, score {rating['conservative']:.2f}; {rating['games']} games "
                  f"(+{rating['wins']} ={rating['draws']} -{rating['losses']})")
    if mus:
        console.print(f"  mu over its last {min(len(mus), 40)} games: {trend_sparkline(mus)}  "
                      f"({mus[max(0, len(mus) - 40)]:.2f} -> {mus[-1]:.2f})")
    table = Table(title="head-to-head", title_justify="left")
    for column in ("opponent", "games", "W", "D", "L", "score (95%)", "less luck (95%)"):
        table.add_column(column, justify="right" if column in ("games", "W", "D", "L") else "left")
    for h in rating["head_to_head"]:
        corrected = h["corrected"]
        table.add_row(h["opponent"], str(h["games"]), str(h["wins"]), str(h["draws"]), str(h["losses"]),
                      _score_cell(h), "not measured" if corrected is None else _score_cell(corrected))
    console.print(table)
    for why in dict.fromkeys(h.get("corrected_why") for h in rating["head_to_head"] if h.get("corrected_why")):
        console.print(f"  less luck: {why}", style="dim", markup=False, soft_wrap=True)


def _score_cell(figures: dict[str, Any]) -> str:
    """A score with its 95% interval, in %: '64.0% [52.1-75.3]', or '64.0% (1 game)' where it has none."""
    score = f"{100 * figures['score']:.1f}%"
    if figures["score_low"] is None or figures["score_high"] is None:
        return f"{score} ({figures['games']} game{'' if figures['games'] == 1 else 's'})"
    return f"{score} [{100 * figures['score_low']:.1f}-{100 * figures['score_high']:.1f}]"


@app.command("compare")
def compare(
    name: str = typer.Argument(..., metavar="NAME", help="A bot name."),
    first: str = typer.Argument(..., metavar="A", help="A version: its label (2 or v2) or a hash prefix."),
    second: str = typer.Argument(..., metavar="B", help="Another version, compared with A."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Is version B better than version A? Per game mode, against the opponents both met: each one's score and
    score less luck with their intervals, the difference B - A, and how many more games would settle it."""
    store = open_store(db, read_only=True)
    try:
        a, b = find_versions(store, name, first, second)
    except CompareError as error:
        fail(str(error))
    modes = compare_versions(store, a, b)
    if json_output:
        print_json(comparison_json(name, a, b, modes))
        return
    if not modes:
        console.print(f"neither v{a.version} nor v{b.version} of {name} has rated games yet", markup=False)
        return

    table = Table(title=f"{name}: v{b.version} against v{a.version}, on the opponents both met", title_justify="left")
    for column in ("mode", "opponents", f"v{a.version} games", f"v{a.version} score", f"v{b.version} games",
                   f"v{b.version} score", "B - A", "verdict"):
        table.add_column(column)
    for mode in modes:
        score_a, score_b = _score(mode.measured(mode.a)), _score(mode.measured(mode.b))
        verdict = mode.verdict + (f" (about {mode.more_games} more games each)" if mode.more_games else "")
        table.add_row(mode.pool, str(len(mode.opponents)), str(mode.a.games), score_a, str(mode.b.games), score_b,
                      _points(mode.difference), verdict)
    console.print(table)
    console.print("scores are a win 1, a draw 1/2, less the luck of the dice and draws where it was measured "
                  "(95% intervals); ratings mix in every opponent: "
                  + "; ".join(f"{mode.pool} mu v{a.version} {mode.a.mu if mode.a.mu is not None else '-'}, "
                              f"v{b.version} {mode.b.mu if mode.b.mu is not None else '-'}" for mode in modes),
                  markup=False, soft_wrap=True, style="dim")


def _score(figure: Interval | None) -> str:
    """A score as the bot's page shows it: '55.0% [50.2%–59.8%]'."""
    return "-" if figure is None else f"{100 * figure.value:.1f}% [{100 * figure.low:.1f}%–{100 * figure.high:.1f}%]"


def _points(figure: Interval | None) -> str:
    """A difference of scores as the bot's page shows it: '+14.7 points [4.1, 25.3]'."""
    return "-" if figure is None else (f"{100 * figure.value + 0.0:+.1f} points "
                                       f"[{100 * figure.low:.1f}, {100 * figure.high:.1f}]")


@app.command("submit")
def submit_command(
    path: Path = typer.Argument(..., metavar="PATH|ARCHIVE", help="The bot's folder, or a .zip or .tar.gz of it."),
    owner: Optional[str] = OWNER_OPTION,
    token: Optional[str] = TOKEN_OPTION,
    server: Optional[str] = SERVER_OPTION,
    tls_ca: Optional[Path] = SERVER_CA_OPTION,
    store_dir: Optional[Path] = BOT_STORE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Submit a bot: check every file, keep an immutable copy, and pre-flight it in the sandbox.

    A version that passes goes live (replacing the name's previous one, whose rating it starts from);
    one that fails is kept with its report and never plays. With --server, the bot is uploaded to a
    hosted Arena, which does all of this and reports back as it goes.
    """
    if server:
        _submit_to_server(path, server, owner, token, tls_ca, json_output)
        return
    settings = checked_sandbox(sandbox)
    store = open_store(db, create=True)
    where = store_dir or bot_store(results_dir())
    status = None if json_output else console.status("checking the files")

    def on_stage(text: str) -> None:
        if status is not None:
            status.update(text)

    steps = StepPrinter(status)

    def on_step(step: Step) -> None:
        steps.show(step)

    try:
        if status is not None:
            status.start()
        try:
            result = submit(path, store, where, owner=owner, token=token, sandbox=settings, on_step=on_step,
                            on_stage=on_stage)
        finally:
            if status is not None:
                status.stop()
    except SubmissionError as error:
        fail(str(error))
    if json_output:
        print_json(result.to_json())
    else:
        print_submission(result)
    if not result.ok:
        raise typer.Exit(1)


def _submit_to_server(path: Path, server: str, owner: Optional[str], token: Optional[str], tls_ca: Optional[Path],
                      json_output: bool) -> None:
    """Upload to a hosted Arena and follow the pre-flight there; the same output as a local submit."""
    if not path.exists():
        fail(f"no such file or folder {path}", code=2)
    status = None if json_output else console.status(f"uploading to {server}")
    try:
        client = _owner_client(server, owner, token, tls_ca)
        if status is not None:
            status.start()
        state = _upload_and_follow(client, path, status)
    except RemoteError as error:
        fail(str(error))
    document = dict(state.get("result") or {})
    document.setdefault("status", state.get("status"))
    document["submission"] = {"id": state.get("id"), "server": client.server}
    if json_output:
        print_json(document)
    else:
        print_submission(submission_from_json(document))
    if document.get("status") not in ("live", "duplicate"):
        raise typer.Exit(1)


def _owner_client(server: str, owner: Optional[str], token: Optional[str], tls_ca: Optional[Path]) -> OwnerClient:
    """A client of the hosted Arena with the owner's token; fails when the token is not --owner's."""
    client = OwnerClient(server, find_token(server, token), ca_file=str(tls_ca) if tls_ca else None)
    who = client.whoami()
    if owner and who.get("owner") != owner:
        fail(f"this token is {who.get('owner')!r}'s, not {owner!r}'s")
    return client


def _upload_and_follow(client: OwnerClient, path: Path, status: Any) -> dict[str, Any]:
    """Upload the bot as an archive and follow its submission to the end, showing its stages and steps on the
    (started) status line unless there is none; the submission's final state. Stops the status line."""
    steps = StepPrinter(status)

    def on_event(event: dict[str, Any]) -> None:
        if status is None:
            return
        if event.get("kind") == "stage":
            status.update(str(event.get("text", "")))
        elif event.get("kind") == "step":
            steps.show(Step.from_json(event.get("step", {})))

    try:
        with as_archive(path) as archive:
            submission_id = client.upload(archive)
        if status is not None:
            status.update(f"submission {submission_id} queued on {client.server}")
        return client.follow(submission_id, on_event)
    finally:
        if status is not None:
            status.stop()


@app.command("register")
def register_command(
    name: str = typer.Argument(..., metavar="NAME", help="The remote bot's name."),
    remote: bool = typer.Option(False, "--remote", help="A bot you run on your own computer (the only kind "
                                "registered this way: submitted bots come with `arena bot submit`)."),
    owner: Optional[str] = OWNER_OPTION,
    token: Optional[str] = TOKEN_OPTION,
    server: Optional[str] = SERVER_OPTION,
    tls_ca: Optional[Path] = SERVER_CA_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Register a remote bot: the ladder pairs it while it is connected to the ladder's referee with the
    token printed here (once)."""
    if not remote:
        fail("only remote bots are registered by name: pass --remote (a bot program is submitted with "
             "`arena bot submit PATH`)", code=2)
    if server:
        try:
            client = OwnerClient(server, find_token(server, token), ca_file=str(tls_ca) if tls_ca else None)
            document = client.call("POST", "/api/owner/remote-bots", json.dumps({"name": name}).encode(),
                                   {"Content-Type": "application/json"})
        except RemoteError as error:
            fail(str(error))
    else:
        store = open_store(db, create=True)
        try:
            who = authorize(store, name, owner, token)
            registered, remote_token = register_remote(store, who, name)
        except SubmissionError as error:
            fail(str(error))
        document = {"name": registered, "owner": who, "token": remote_token}
    if json_output:
        print_json(document)
        return
    console.print(f"remote bot {document['name']} registered; its token (shown once, keep it secret):")
    console.print(document["token"], markup=False, highlight=False)
    connect = document.get("connect")
    python = shlex.quote(sys.executable)  # this Python has Arena's SDK: the one to run the bot with here
    if connect:
        err_console.print("run it on your computer (it connects to the ladder, and again by itself if the "
                          "connection is lost):", markup=False, soft_wrap=True)
        console.print(f"ARENA_REMOTE={connect['remote']} {python} bot.py", markup=False, highlight=False,
                      soft_wrap=True)
    else:
        where = ("this server does not say where its ladder takes remote bots (arena web --remote-address): "
                 "ask its operator for HOST:PORT" if server else
                 "HOST:PORT: where `arena ladder serve --host ... --port ...` takes remote bots")
        err_console.print(f"run it on your computer: ARENA_REMOTE=arena://{document['name']}:TOKEN@HOST:PORT "
                          f"{python} bot.py ({where}; arenas:// when that port speaks TLS)", markup=False,
                          soft_wrap=True)
    err_console.print("docs/writing-a-bot.md, 'On a hosted ladder, from your own computer'", markup=False,
                      soft_wrap=True)


def _version_json(bot: BotRow, store: Store) -> dict[str, Any]:
    report = store.bots.report(bot.id) or {}
    preflight = report.get("ok"), report.get("seconds")
    return {"id": bot.id, "name": bot.name, "version": bot.version, "artifact_hash": bot.artifact_hash,
            "status": bot.status, "owner": bot.owner, "kind": bot.kind.value, "path": bot.spec,
            "games": list(bot.games) if bot.games is not None else None, "follows": bot.parent_id,
            "submitted_at": bot.created_at.isoformat(timespec="seconds") + "Z",
            "retired_at": bot.retired_at.isoformat(timespec="seconds") + "Z" if bot.retired_at else None,
            "preflight": {"ok": preflight[0], "seconds": preflight[1], "fix": report.get("fix", [])} if report
            else None}


@app.command("versions")
def versions(
    name: str = typer.Argument(..., metavar="NAME", help="A bot name."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Every version of a bot, oldest first: its status, hash, pre-flight and when it was retired."""
    store = open_store(db, read_only=True)
    name, found = _named_bots(store, name)
    rows = [_version_json(bot, store) for bot in found]
    if json_output:
        print_json(rows)
        return
    table = Table(title=f"{name}: versions")
    for column in ("version", "artifact", "status", "owner", "submitted", "pre-flight", "retired"):
        table.add_column(column)
    for bot, row in zip(found, rows):
        preflight = row["preflight"]
        checked = "" if preflight is None else (("passed" if preflight["ok"] else "failed") +
                                                (f" in {preflight['seconds']:.1f} s" if preflight["seconds"] else ""))
        colour = {"live": "green", "failed": "red", "retired": "dim", "pending": "yellow"}.get(bot.status, "")
        table.add_row(bot.version, bot.artifact_hash[:12], mark(bot.status, colour), bot.owner,
                      ago(bot.created_at), checked, ago(bot.retired_at) if bot.retired_at else "")
    console.print(table)


@app.command("retire")
def retire_command(
    target: str = typer.Argument(..., metavar="NAME[@VERSION]", help="A bot (its live version), or one version of "
                                                                    "it by version label or hash prefix."),
    owner: Optional[str] = OWNER_OPTION,
    token: Optional[str] = TOKEN_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Retire a bot version: it leaves the ladders at their next round; its matches and ratings stay."""
    store = open_store(db)
    try:
        bot = retire(store, target, owner=owner, token=token)
    except SubmissionError as error:
        fail(str(error))
    if json_output:
        print_json(_version_json(bot, store))
        return
    console.print(f"retired {bot.name} version {bot.version} ({bot.artifact_hash[:12]}); its history stays")


@app.command("test")
def test_command(
    path: Path = typer.Argument(..., metavar="PATH", help="The bot's folder (or its bot.toml)."),
    games: Optional[str] = typer.Option(None, "--games", help="Comma-separated games or modes to play (default: "
                                        "those bot.toml's games name; '*' = one mode of every family)."),
    matches: int = typer.Option(2, "--matches", min=1, max=20, help="Matches per game (seats in turn)."),
    move_time_ms: int = typer.Option(1000, "--move-time-ms", min=1, help="Time per decision."),
    bank_ms: int = typer.Option(10_000, "--bank-ms", min=0, help="Overage bank per match."),
    grace_ms: int = typer.Option(250, "--grace-ms", min=0, help="Transport grace per decision."),
    startup_s: float = typer.Option(30.0, "--startup-s", min=1.0, help="Time to start and say Hello."),
    seed: int = typer.Option(1, "--seed", min=0, max=MAX_SEED, help="Seed of the first match."),
    sandbox: Optional[str] = SANDBOX_OPTION,
    bot_env: Optional[list[str]] = BOT_ENV_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Check a bot program as the referee will run it: handshake, matches on each game it plays, and the
    protocol's edge cases. Exits 1 if any check fails; the report says what to fix."""
    manifest = checked_bot_folder(path)
    modes = _modes(manifest, games)
    settings = checked_sandbox(sandbox, bot_env)
    clock = clock_options(move_time_ms, bank_ms, grace_ms)
    ticker = CheckTicker(f"arena bot test {manifest.name}", len(plan_checks(manifest, modes, matches)),
                         quiet=json_output)
    with ticker:
        report = run_conformance(manifest, modes, matches_per_game=matches, sandbox=settings, clock=clock,
                                 startup_timeout_s=startup_s, seed=seed, on_check=ticker.on_check)
    if json_output:
        print_json(report.to_json())
    else:
        print_conformance(report)
    if not report.ok:
        raise typer.Exit(1)


def _modes(manifest: BotManifest, games: Optional[str]) -> list[str]:
    """The modes to play: those asked for (each one the bot must play), else those bot.toml declares."""
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
