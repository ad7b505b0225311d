"""`arena bot submit`, `arena bot versions`, `arena bot retire` and `arena owner`: bots as submitted versions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.text import Text
from rich.table import Table

from arena.cli.common import console, err_console, fail, mark, print_json, results_dir, styled
from arena.cli.runs import DB_OPTION, JSON_OPTION, SANDBOX_OPTION, ago, open_store
from arena.referee.evidence import shown
from arena.store import BotRow, Store
from arena.submissions import (
    BOT_STORE_ENV,
    Step,
    Submission,
    SubmissionError,
    bot_store,
    hash_token,
    retire,
    submit,
)

OWNER_OPTION = typer.Option(None, "--owner", envvar="ARENA_OWNER",
                            help="Who answers for the bot (needed on a server with owners; default: $ARENA_OWNER).")
TOKEN_OPTION = typer.Option(None, "--token", envvar="ARENA_OWNER_TOKEN",
                            help="The owner's token from `arena owner add` (default: $ARENA_OWNER_TOKEN).")
BOT_STORE_OPTION = typer.Option(None, "--bot-store", envvar=BOT_STORE_ENV,
                                help="Where submitted versions are kept (default: $ARENA_BOT_STORE or results/bots).")

owners = typer.Typer(rich_markup_mode=None,
                     help="Owners: who may submit and retire which bot names on a shared server.", no_args_is_help=True)

_MARK = {True: mark("✓", "green"), False: mark("✗", "red"), None: mark("-", "dim")}


SERVER_OPTION = typer.Option(None, "--server", envvar="ARENA_WEB_SERVER",
                             help="A hosted Arena (`arena web`, e.g. https://arena.example.org): upload there "
                                  "instead of into a local database.")
CA_OPTION = typer.Option(None, "--tls-ca", help="The CA certificate that signs the server's, for a private CA.")


def submit_command(
    path: Path = typer.Argument(..., metavar="PATH|ARCHIVE", help="The bot's folder, or a .zip or .tar.gz of it."),
    owner: Optional[str] = OWNER_OPTION,
    token: Optional[str] = TOKEN_OPTION,
    server: Optional[str] = SERVER_OPTION,
    tls_ca: Optional[Path] = CA_OPTION,
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
    from arena.cli.serve import check_sandbox_here, sandbox_settings

    settings = sandbox_settings(sandbox)
    check_sandbox_here(settings)
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
        _print_submission(result)
    if not result.ok:
        raise typer.Exit(1)


def _submit_to_server(path: Path, server: str, owner: Optional[str], token: Optional[str], tls_ca: Optional[Path],
                      json_output: bool) -> None:
    """Upload to a hosted Arena and follow the pre-flight there; the same output as a local submit."""
    from arena.submissions.remote import OwnerClient, RemoteError, as_archive, find_token
    from arena.submissions.submit import submission_from_json

    if not path.exists():
        fail(f"no such file or folder {path}", code=2)
    status = None if json_output else console.status(f"uploading to {server}")
    try:
        client = OwnerClient(server, find_token(server, token), ca_file=str(tls_ca) if tls_ca else None)
        who = client.whoami()
        if owner and who.get("owner") != owner:
            fail(f"this token is {who.get('owner')!r}'s, not {owner!r}'s")
        if status is not None:
            status.start()

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
            state = client.follow(submission_id, on_event)
        finally:
            if status is not None:
                status.stop()
    except RemoteError as error:
        fail(str(error))
    document = dict(state.get("result") or {})
    document.setdefault("status", state.get("status"))
    document["submission"] = {"id": state.get("id"), "server": client.server}
    if json_output:
        print_json(document)
    else:
        _print_submission(submission_from_json(document))
    if document.get("status") not in ("live", "duplicate"):
        raise typer.Exit(1)


def login_command(
    server: str = typer.Option(..., "--server", help="The hosted Arena, e.g. https://arena.example.org."),
    token: Optional[str] = typer.Option(None, "--token", help="Your owner token (asked for when not given)."),
    tls_ca: Optional[Path] = CA_OPTION,
) -> None:
    """Keep your owner token for a server (a file only you may read), for `arena bot submit --server`."""
    from arena.submissions.remote import OwnerClient, RemoteError, normal_server, save_token

    try:
        address = normal_server(server)
    except RemoteError as error:
        fail(str(error), code=2)
    if not token:
        token = typer.prompt("owner token", hide_input=True).strip()
    try:
        who = OwnerClient(address, token, ca_file=str(tls_ca) if tls_ca else None).whoami()
    except RemoteError as error:
        fail(str(error))
    path = save_token(address, str(who["owner"]), token)
    console.print(f"signed in to {address} as {who['owner']}; the token is kept in {path} (mode 0600)")


def register_command(
    name: str = typer.Argument(..., metavar="NAME", help="The remote bot's name."),
    remote: bool = typer.Option(False, "--remote", help="A bot you run on your own computer (the only kind "
                                "registered this way: submitted bots come with `arena bot submit`)."),
    owner: Optional[str] = OWNER_OPTION,
    token: Optional[str] = TOKEN_OPTION,
    server: Optional[str] = SERVER_OPTION,
    tls_ca: Optional[Path] = CA_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Register a remote bot: the ladder pairs it while it is connected to the ladder's referee with the
    token printed here (once)."""
    if not remote:
        fail("only remote bots are registered by name: pass --remote (a bot program is submitted with "
             "`arena bot submit PATH`)", code=2)
    if server:
        from arena.submissions.remote import OwnerClient, RemoteError, find_token

        try:
            client = OwnerClient(server, find_token(server, token), ca_file=str(tls_ca) if tls_ca else None)
            document = client.call("POST", "/api/owner/remote-bots", json.dumps({"name": name}).encode(),
                                   {"Content-Type": "application/json"})
        except RemoteError as error:
            fail(str(error))
    else:
        from arena.submissions.submit import authorize, register_remote

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
    if connect:
        err_console.print("run it on your computer (it connects to the ladder, and again by itself if the "
                          "connection is lost):", markup=False, soft_wrap=True)
        console.print(connect["command"], markup=False, highlight=False, soft_wrap=True)
    else:
        where = ("this server does not say where its ladder takes remote bots (arena web --remote-address): "
                 "ask its operator for HOST:PORT" if server else
                 "HOST:PORT: where `arena ladder serve --host ... --port ...` takes remote bots")
        err_console.print(f"run it on your computer: ARENA_REMOTE=arena://{document['name']}:TOKEN@HOST:PORT "
                          f"python bot.py ({where}; arenas:// when that port speaks TLS)", markup=False,
                          soft_wrap=True)
    err_console.print("docs/writing-a-bot.md, 'On a hosted ladder, from your own computer'", markup=False,
                      soft_wrap=True)


class StepPrinter:
    """The pre-flight's steps as they finish, under a heading said first (the running step in the status line)."""

    def __init__(self, status: Any) -> None:
        self.status = status
        self.headed = False

    def show(self, step: Step) -> None:
        if self.status is None:
            return
        if step.ok is None:
            self.status.update(f"pre-flight: {step.title}")
            return
        if not self.headed:
            self.headed = True
            console.print("pre-flight in the sandbox, step by step:")
        console.print(_step_line(step))


def _step_line(step: Step) -> Text:
    if step.skipped:
        return Text("  ").append_text(_MARK[None]).append_text(styled(" {}: [dim]{}[/dim]", step.title, step.detail))
    return Text("  ").append_text(_MARK[bool(step.ok)]).append_text(
        styled(" {}: {} [dim]({} s)[/dim]", step.title, step.detail, f"{step.seconds:.2f}"))


def _print_submission(result: Submission) -> None:
    if result.problems:
        console.print(styled("[bold red]{} problem(s)[/bold red] in {}:", len(result.problems), result.source))
        for problem in result.problems:
            console.print(styled("  [bold]{}[/bold]: {}{}", problem.where, problem.message,
                                 f"\n      fix: {problem.fix}" if problem.fix else ""), highlight=False)
    if result.skipped:
        left_out = ", ".join(result.skipped[:5]) + (f" and {len(result.skipped) - 5} more"
                                                    if len(result.skipped) > 5 else "")
        console.print(f"left out: {left_out}", style="dim")
    report = result.preflight
    if report is not None:
        console.print(f"pre-flight of {result.name} v{result.version} ({(result.artifact_hash or '')[:12]}): "
                      f"{report.seconds:.1f} s in all")
        for step in report.steps:
            if step.skipped:
                console.print(_step_line(step))
        usage = report.usage
        facts = [f"{usage.get('launches', 0)} launch(es)"]
        if usage.get("memory_peak_mb") is not None:
            facts.append(f"peak memory {usage['memory_peak_mb']} MB of {report.limits.get('memory_mb')} MB")
        if usage.get("processes_peak") is not None:
            facts.append(f"peak {usage['processes_peak']} processes of {report.limits.get('processes')}")
        if usage.get("cpu_seconds") is not None:
            facts.append(f"CPU {usage['cpu_seconds']} s")
        if usage.get("memory_peak_mb") is None:
            facts.append("memory and processes not measured here (no cgroup to count them in; the limits still "
                         "hold per process)")
        console.print("  " + ", ".join(facts))
        if report.output_tail.strip():
            lines = report.output_tail.rstrip().splitlines()[-15:]
            console.print("  the bot's last output:")
            for line in lines:
                console.print(f"    {shown(line)}", markup=False, highlight=False)
        for fix in report.fix:
            console.print(styled("  [bold]fix:[/bold] {}", fix))
    for retired in result.retired:
        console.print(f"retired {retired} (its rating carries over)")
    style = "green" if result.ok else "red"
    console.print(result.message, style=style)


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


def versions(
    name: str = typer.Argument(..., metavar="NAME", help="A bot name."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Every version of a bot, oldest first: its status, hash, pre-flight and when it was retired."""
    store = open_store(db, read_only=True)
    found = store.bots.find(name)
    if not found:
        known = ", ".join(sorted({b.name for b in store.bots.find()})[:20]) or "none yet"
        fail(f"no bot named {name!r}; known bots: {known}")
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
        table.add_row(bot.version, bot.artifact_hash[:12], f"[{colour}]{bot.status}[/{colour}]" if colour else
                      bot.status, bot.owner, ago(bot.created_at), checked, ago(bot.retired_at) if bot.retired_at
                      else "")
    console.print(table)


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


@owners.command("add")
def add_owner(
    name: str = typer.Argument(..., metavar="NAME", help="The owner's name (letters, digits, - _ .)."),
    operator: bool = typer.Option(False, "--operator", help="Also sees every bot's fault evidence (the last "
                                                           "output lines) on the web's match pages."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Register an owner and print their token (shown once: only its hash is kept)."""
    from arena.rpc.manifest import BOT_NAME
    from arena.rpc.pool import new_token

    if not BOT_NAME.match(name):
        fail(f"bad owner name {name!r}: lowercase letters, digits, '-', '_' or '.', at most 64", code=2)
    store = open_store(db, create=True)
    token = new_token()
    if not store.owners.add(name, hash_token(token), operator=operator):
        fail(f"owner {name!r} exists; give them a new token with `arena owner token {name}`")
    if json_output:
        print_json({"owner": name, "token": token, "operator": operator})
        return
    console.print(f"{'operator' if operator else 'owner'} {name} added; their token (shown once, keep it secret):")
    console.print(token, markup=False, highlight=False)
    err_console.print("submit with: arena bot submit PATH --owner NAME --token TOKEN "
                      "(or ARENA_OWNER / ARENA_OWNER_TOKEN)", markup=False)


@owners.command("token")
def new_owner_token(
    name: str = typer.Argument(..., metavar="NAME", help="An owner's name."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Give an owner a new token (the old one stops working) and print it."""
    from arena.rpc.pool import new_token

    store = open_store(db)
    token = new_token()
    if not store.owners.set_token(name, hash_token(token)):
        fail(f"no owner {name!r} (see `arena owner list`)")
    if json_output:
        print_json({"owner": name, "token": token})
        return
    console.print(f"new token of {name} (the old one no longer works):")
    console.print(token, markup=False, highlight=False)


@owners.command("list")
def list_owners(db: Optional[str] = DB_OPTION, json_output: bool = JSON_OPTION) -> None:
    """Every owner and the bot names they hold."""
    store = open_store(db, read_only=True)
    held: dict[str, set[str]] = {}
    for bot in store.bots.find():
        if bot.owner:
            held.setdefault(bot.owner, set()).add(bot.name)
    registered = store.owners.all()
    operators = store.owners.operators()
    if json_output:
        print_json([{"owner": name, "since": since.isoformat(timespec="seconds") + "Z", "operator": name in operators,
                     "bots": sorted(held.get(name, ()))} for name, since in registered])
        return
    if not registered:
        console.print("no owners: anyone with this database may submit (add one with `arena owner add NAME`)")
        return
    table = Table(title="Owners")
    for column in ("owner", "since", "bots"):
        table.add_column(column)
    for name, since in registered:
        table.add_row(name + (" (operator)" if name in operators else ""), ago(since),
                      ", ".join(sorted(held.get(name, ()))))
    console.print(table)


def register(main: typer.Typer) -> None:
    from arena.cli.bot import app as bots

    bots.command("submit")(submit_command)
    bots.command("register")(register_command)
    bots.command("versions")(versions)
    bots.command("retire")(retire_command)
    main.command("login")(login_command)
    main.add_typer(owners, name="owner")
