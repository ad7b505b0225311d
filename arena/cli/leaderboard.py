"""`arena leaderboard` (ranked by mu - 3 sigma, Bradley-Terry beside on request) and `arena rerate`."""

from __future__ import annotations

from typing import Any, Optional

import typer
from rich.table import Table
from rich.text import Text

from arena.cli.common import console, fail, mark, print_json, versioned
from arena.cli.runs import DB_OPTION, JSON_OPTION, RunDisplay, ago, open_store
from arena.games.registry import UnknownGameError
from arena.ratings.bradley_terry import ConvergenceError
from arena.ratings.leaderboard import bradley_terry_fit
from arena.ratings.leaderboard import leaderboard as pool_leaderboard
from arena.ratings.pools import pool_for
from arena.ratings.reports import standings_json
from arena.ratings.rerate import rerate as rerate_pool
from arena.store import Store


def pools_for(store: Store, game: str | None) -> list[str]:
    """The pools a GAME argument names (all stored pools when absent)."""
    if game is None:
        return store.ratings.pools()
    if game in store.ratings.pools():
        return [game]
    try:
        return [pool_for(game)]
    except UnknownGameError as error:
        fail(str(error), code=2)


def pool_json(store: Store, pool: str, bradley_terry: bool = False, live_only: bool = True) -> dict[str, Any]:
    """A pool's leaderboard as JSON."""
    try:
        rows = standings_json(store, pool, live_only, bradley_terry)
    except ConvergenceError as error:
        fail(f"{pool}: {error}")
    return {"pool": pool, "matches": store.ratings.match_count(pool), "standings": rows}


def _fit(store: Store, pool: str) -> dict[int, Any]:
    try:
        return bradley_terry_fit(store, pool)
    except ConvergenceError as error:
        fail(f"{pool}: {error}")


DISPLAY_WIDTH = 26  # the longest bot name a table shows whole


def display_name(name: str, width: int = DISPLAY_WIDTH) -> str:
    """A bot's name cut to `width` with an ellipsis (the whole name is in --json and `arena bot show`)."""
    return name if len(name) <= width else name[:width - 1] + "…"


def print_leaderboard(store: Store, pool: str, bradley_terry: bool = False, live_only: bool = True) -> None:
    """A pool's leaderboard as a table."""
    standings = pool_leaderboard(store, pool, live_only)
    table = Table(title=f"{pool}: {store.ratings.match_count(pool)} rated match(es)", title_justify="left")
    for column in ("#", "bot", "mu", "sigma", "score", "games", "win rate (95%)", "last played"):
        table.add_column(column, justify="left" if column in ("bot", "win rate (95%)", "last played") else "right",
                         no_wrap=True, overflow="ellipsis")
    estimates = _fit(store, pool) if bradley_terry else {}
    if bradley_terry:
        table.add_column("Bradley-Terry Elo (95%)")
    for s in standings:
        low, high = s.win_rate_interval
        name = display_name(s.bot)
        cells: list[str | Text] = [str(s.rank), name if s.version in ("", "1") else versioned(name, s.version), f"{s.mu:.2f}",
                 f"{s.sigma:.2f}", mark(f"{s.score:.2f}", "bold"), str(s.games),
                 f"{100 * s.win_rate:.1f}% [{100 * low:.1f}-{100 * high:.1f}]", ago(s.last_played)]
        if bradley_terry:
            estimate = estimates.get(s.bot_id)
            cells.append("-" if estimate is None else
                         f"{estimate.elo:+.0f} [{estimate.elo_interval[0]:+.0f}, {estimate.elo_interval[1]:+.0f}]")
        table.add_row(*cells)
    console.print(table)


def leaderboard(
    game: Optional[str] = typer.Argument(None, metavar="[GAME]", help="A game or mode (default: every pool)."),
    bt: bool = typer.Option(False, "--bt", help="Add Bradley-Terry Elo with 95% intervals over all stored results."),
    all_versions: bool = typer.Option(False, "--all-versions", help="Show retired bot versions too (by default "
                                                                    "each bot's live version only)."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Bots ranked by TrueSkill's conservative score mu - 3 sigma, one table per game mode."""
    store = open_store(db, read_only=True)
    pools = pools_for(store, game)
    live_only = not all_versions
    if json_output:
        print_json({"pools": [pool_json(store, pool, bt, live_only) for pool in pools]})
        return
    if not pools or all(not store.ratings.of_pool(pool) for pool in pools):
        console.print("no rated matches yet; play some with: arena tournament run GAME --bots a,b,c")
        return
    for pool in pools:
        print_leaderboard(store, pool, bt, live_only)


def rerate(
    game: Optional[str] = typer.Argument(None, metavar="[GAME]", help="A game or mode (default: every pool)."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Recompute TrueSkill ratings and their history from every stored result, in the order played."""
    store = open_store(db)
    summaries = []
    for pool in pools_for(store, game):
        with RunDisplay(f"rerate {pool}", quiet=json_output) as display:
            summaries.append(rerate_pool(store, pool, on_progress=display.advance))
    if json_output:
        print_json([{"pool": s.pool, "matches": s.matches, "bots": s.bots, "seconds": round(s.seconds, 3)}
                    for s in summaries])
        return
    for s in summaries:
        console.print(f"{s.pool}: {s.matches} match(es), {s.bots} bot(s) rerated in {s.seconds:.2f}s")


def register(main: typer.Typer) -> None:
    main.command("leaderboard")(leaderboard)
    main.command("rerate")(rerate)
