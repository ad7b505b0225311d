"""`arena leaderboard` (ranked by mu - 3 sigma, Bradley-Terry beside on request) and `arena rerate`."""

from __future__ import annotations

from typing import Optional

import typer

from arena.cli.options import DB_OPTION, JSON_OPTION
from arena.cli.settings import open_store, pools_for
from arena.cli.show import RunDisplay, console, pool_json, print_json, print_leaderboard
from arena.ratings.rerate import rerate as rerate_pool


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
