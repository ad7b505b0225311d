"""`arena owner` (add, token, list): who may submit and retire which bot names on a shared server; and
`arena login`: an owner's token for a hosted server, kept for `arena bot submit --server`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from arena.cli.options import DB_OPTION, JSON_OPTION, SERVER_CA_OPTION
from arena.cli.settings import open_store
from arena.cli.show import ago, console, err_console, fail, print_json
from arena.rpc.manifest import BOT_NAME
from arena.rpc.pool import new_token
from arena.submissions import hash_token
from arena.submissions.remote import OwnerClient, RemoteError, normal_server, save_token

app = typer.Typer(rich_markup_mode=None,
                  help="Owners: who may submit and retire which bot names on a shared server.", no_args_is_help=True)


@app.command("add")
def add_owner(
    name: str = typer.Argument(..., metavar="NAME", help="The owner's name (letters, digits, - _ .)."),
    operator: bool = typer.Option(False, "--operator", help="Also sees every bot's fault evidence (the last "
                                                           "output lines) on the web's match pages."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Register an owner and print their token (shown once: only its hash is kept)."""
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


@app.command("token")
def new_owner_token(
    name: str = typer.Argument(..., metavar="NAME", help="An owner's name."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Give an owner a new token (the old one stops working) and print it."""
    store = open_store(db)
    token = new_token()
    if not store.owners.set_token(name, hash_token(token)):
        fail(f"no owner {name!r} (see `arena owner list`)")
    if json_output:
        print_json({"owner": name, "token": token})
        return
    console.print(f"new token of {name} (the old one no longer works):")
    console.print(token, markup=False, highlight=False)


@app.command("list")
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


def login_command(
    server: str = typer.Option(..., "--server", help="The hosted Arena, e.g. https://arena.example.org."),
    token: Optional[str] = typer.Option(None, "--token", help="Your owner token (asked for when not given)."),
    tls_ca: Optional[Path] = SERVER_CA_OPTION,
) -> None:
    """Keep your owner token for a server (a file only you may read), for `arena bot submit --server`."""
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
