"""`arena ladder run`: the open-ended ladder of a game mode, paired by TrueSkill match quality."""

from __future__ import annotations

import random
from typing import Optional

import typer

from arena.cli.common import console, fail, open_game, print_json
from arena.cli.leaderboard import pool_json, print_leaderboard
from arena.cli.runs import (
    BROKER_OPTION,
    DB_OPTION,
    JSON_OPTION,
    QUEUE_OPTION,
    SANDBOX_OPTION,
    StopRequest,
    open_store,
    parse_duration,
)
from arena.cli.tournament import display_for, play_settings, resolve_bots
from arena.ratings.pools import pool_name
from arena.tournament.bots import builtin_bots
from arena.tournament.formats import FormatError, get_format
from arena.tournament.runner import create_tournament, entrant_kinds
from arena.tournament.service import TournamentError, play

app = typer.Typer(help="The ladder: bots of a game mode paired continuously by match quality.", no_args_is_help=True)


def run(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode (see `arena games`)."),
    duration: Optional[str] = typer.Option(None, "--for", help="How long to run, e.g. 90s, 10m, 1h "
                                                               "(default: until Ctrl-C or --matches)."),
    matches: Optional[int] = typer.Option(None, "--matches", min=1, help="Stop after this many matches."),
    bots: Optional[str] = typer.Option(None, "--bots", help="Bots to add to the ladder (default for a new ladder: "
                                                            "every built-in agent)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Seed of a new ladder (default: random)."),
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Run the game mode's ladder: it continues from where it last stopped, with the ratings it has."""
    game = open_game(game_name)
    store = open_store(db)
    pool = pool_name(game)
    name = f"ladder:{pool}"
    existing = store.tournament(name)
    entrants = resolve_bots(bots, game) if bots else None
    if existing is None:
        entrants = entrants or builtin_bots(game)
        try:
            ladder_id = create_tournament(store, game=game, bots=entrants, format="ladder", rounds=1,
                                          seed=seed if seed is not None else random.SystemRandom().randrange(2**31),
                                          name=name)
        except FormatError as error:
            fail(str(error), code=2)
    else:
        ladder_id = existing.id
        if entrants:
            store.add_entries(ladder_id, [store.bot_id(bot.identity()) for bot in entrants])
        try:
            get_format("ladder").check(len(store.entries(ladder_id)), game.num_seats, 1)
        except FormatError as error:
            fail(str(error), code=2)
    budget = parse_duration(duration) if duration else None
    if budget is None and matches is None and not json_output:
        console.print("running until Ctrl-C (or pass --for 1h / --matches N)")
    settings = play_settings(concurrency, broker, queue, sandbox, entrant_kinds(store, ladder_id))
    stop = StopRequest()
    try:
        with stop.installed():
            [summary] = play(store, [ladder_id], settings, budget_s=budget, max_matches=matches,
                             display=display_for(json_output, seconds=budget, title=f"ladder {pool}"),
                             should_stop=stop)
    except TournamentError as error:
        fail(f"ladder: {error}")
    except KeyboardInterrupt:
        fail("aborted; the ladder's stored matches are kept", code=130)
    if json_output:
        print_json({"ladder": {"id": ladder_id, "pool": pool, "played": summary.played, "stored": summary.stored,
                               "seconds": round(summary.seconds, 3), "stopped_by": summary.stopped_by},
                    "pools": [pool_json(store, pool)]})
        return
    console.print(f"{summary.played} ladder match(es) in {summary.seconds:.1f}s; {summary.stored} in this ladder.")
    print_leaderboard(store, pool)


def register(main: typer.Typer) -> None:
    app.command("run")(run)
    main.add_typer(app, name="ladder")
