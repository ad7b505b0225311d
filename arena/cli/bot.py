"""`arena bot list` and `arena bot show NAME`: identity, versions, ratings per mode, rating history,
head-to-head (submitting, listing versions and retiring are in arena.cli.submissions)."""

from __future__ import annotations

from typing import Any, Optional

import typer
from rich.table import Table

from arena.cli.common import console, fail, print_json, styled
from arena.cli.leaderboard import pools_for
from arena.cli.runs import DB_OPTION, JSON_OPTION, ago, open_store
from arena.ratings.reports import bot_ratings, iso
from arena.store import BotRow, Store

app = typer.Typer(rich_markup_mode=None, help="Bots in the database: who they are and how they do.",
                  no_args_is_help=True)

SPARK = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float], width: int = 40) -> str:
    """A one-line chart of the last `width` values."""
    values = values[-width:]
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    return "".join(SPARK[min(len(SPARK) - 1, int((v - low) / span * (len(SPARK) - 1) + 0.5))] for v in values)


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


def show(
    name: str = typer.Argument(..., metavar="NAME", help="A bot name (every version of it is shown)."),
    game: Optional[str] = typer.Option(None, "--game", help="Only this game or mode."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """A bot's versions, with their ratings in each game mode, rating history and head-to-head results."""
    store = open_store(db, read_only=True)
    bots = store.bots.find(name)
    if not bots:  # a built-in agent by its base name ("mcts"): the one stored with settings ("mcts(30)")
        names = sorted({b.name for b in store.bots.find()})
        variants = [known for known in names if known.startswith(f"{name}(")]
        if len(variants) == 1:
            name, bots = variants[0], store.bots.find(variants[0])
        else:
            hint = f" (with its settings: {', '.join(variants)})" if variants else ""
            fail(f"no bot named {name!r}{hint}; known bots: {', '.join(names[:20]) or 'none yet'}")
    pools = pools_for(store, game) if game else store.ratings.pools()
    data = [_bot_json(store, bot, pools) for bot in bots]
    if json_output:
        print_json(data if len(data) > 1 else data[0])
        return
    for bot in data:
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
            mus = [h["mu"] for h in rating["history"]]
            console.print(styled("\n[bold]{}[/bold]", rating["pool"]) + f": rank {rating['rank']}, mu {rating['mu']:.2f}, "
                          f"sigma {rating['sigma']:.2f}, score {rating['conservative']:.2f}; {rating['games']} games "
                          f"(+{rating['wins']} ={rating['draws']} -{rating['losses']})")
            if mus:
                console.print(f"  mu over its last {min(len(mus), 40)} games: {sparkline(mus)}  "
                              f"({mus[max(0, len(mus) - 40)]:.2f} -> {mus[-1]:.2f})")
            table = Table(title="head-to-head", title_justify="left")
            for column in ("opponent", "games", "W", "D", "L", "score (95%)", "less luck (95%)"):
                table.add_column(column, justify="right" if column in ("games", "W", "D", "L") else "left")
            for h in rating["head_to_head"]:
                corrected = h["corrected"]
                table.add_row(h["opponent"], str(h["games"]), str(h["wins"]), str(h["draws"]), str(h["losses"]),
                              f"{100 * h['score']:.1f}% [{100 * h['score_low']:.1f}-{100 * h['score_high']:.1f}]",
                              "-" if corrected is None else
                              f"{100 * corrected['score']:.1f}% [{100 * corrected['score_low']:.1f}-"
                              f"{100 * corrected['score_high']:.1f}]")
            console.print(table)


def compare(
    name: str = typer.Argument(..., metavar="NAME", help="A bot name."),
    first: str = typer.Argument(..., metavar="A", help="A version: its label (2 or v2) or a hash prefix."),
    second: str = typer.Argument(..., metavar="B", help="Another version, compared with A."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Is version B better than version A? Per game mode, against the opponents both met: each one's score and
    score less luck with their intervals, the difference B - A, and how many more games would settle it."""
    from arena.ratings.compare import CompareError, Interval, compare_versions, comparison_json, find_versions

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

    def cell(figure: Interval | None) -> str:
        return "-" if figure is None else f"{figure.value:.3f} [{figure.low:.3f}, {figure.high:.3f}]"

    table = Table(title=f"{name}: v{b.version} against v{a.version}, on the opponents both met", title_justify="left")
    for column in ("mode", "opponents", f"v{a.version} games", f"v{a.version} score", f"v{b.version} games",
                   f"v{b.version} score", "B - A", "verdict"):
        table.add_column(column)
    for mode in modes:
        score_a, score_b = cell(mode.measured(mode.a)), cell(mode.measured(mode.b))
        verdict = mode.verdict + (f" (about {mode.more_games} more games each)" if mode.more_games else "")
        table.add_row(mode.pool, str(len(mode.opponents)), str(mode.a.games), score_a, str(mode.b.games), score_b,
                      cell(mode.difference), verdict)
    console.print(table)
    console.print("scores are a win 1, a draw 1/2, less the luck of the dice and draws where it was measured "
                  "(95% intervals); ratings mix in every opponent: "
                  + "; ".join(f"{mode.pool} mu v{a.version} {mode.a.mu if mode.a.mu is not None else '-'}, "
                              f"v{b.version} {mode.b.mu if mode.b.mu is not None else '-'}" for mode in modes),
                  markup=False, soft_wrap=True, style="dim")


def register(main: typer.Typer) -> None:
    app.command("list")(list_bots)
    app.command("show")(show)
    app.command("compare")(compare)
    main.add_typer(app, name="bot")
