"""`arena sprt GAME BOT_A BOT_B`: play seat-swapped pairs until the SPRT decides whether A is stronger."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Optional

import typer

from arena.cli.options import BROKER_OPTION, DB_OPTION, JSON_OPTION, MAX_SEED, QUEUE_OPTION, SANDBOX_OPTION, given_name
from arena.cli.settings import StopRequest, open_game, open_store, play_settings, resolve_bots
from arena.cli.show import console, display_for, fail, print_json, said
from arena.games.base import Game
from arena.games.registry import UnknownGameError, resolve
from arena.ratings.sprt import MIN_PAIRS, Sprt, SprtResult, pair_counts, pentanomial_variance
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.tournament.bots import BotSpec
from arena.tournament.formats import DUPLICATE_REFUSED
from arena.tournament.runner import RunProgress, create_tournament, entrant_kinds, points_by_seat
from arena.tournament.service import TournamentError, check_same, play
from arena.referee.seeds import new_seed


def pair_points(store: Store, tournament_id: int, bot_a: int) -> list[tuple[float, float | None]]:
    """A's points in every complete seat-swapped pair of the tournament, raw and corrected for luck (None where a
    game of the pair has no luck measured)."""
    pairs: dict[tuple[int, int], list[tuple[float, float | None]]] = {}
    for match in store.matches.of_tournament(tournament_id):
        pairs.setdefault((match.round, match.pairing), []).append(_points(match.bots, match.ranking, match.luck, bot_a))
    return [_pair(games) for games in pairs.values() if len(games) == 2]


def _points(bots: Sequence[int], ranking: Sequence[int], luck: Sequence[float] | None,
            bot_a: int) -> tuple[float, float | None]:
    """A's points in one game, raw and less its luck."""
    seat = list(bots).index(bot_a)
    points = points_by_seat(list(ranking))[seat]
    return points, None if luck is None else points - luck[seat]


def _pair(games: list[tuple[float, float | None]]) -> tuple[float, float | None]:
    adjusted = [value for _raw, value in games]
    return (sum(raw for raw, _value in games),
            None if any(value is None for value in adjusted) else sum(value for value in adjusted if value is not None))


def verdict(test: Sprt, pairs: list[tuple[float, float | None]]) -> tuple[SprtResult, SprtResult]:
    """(the test that decides, the raw pentanomial one): on luck-corrected pair scores where every pair has them
    (the normal GSPRT, its variance with pseudo-pairs at the raw pairs' pentanomial variance), else the raw
    pentanomial. Neither decides before the test's minimum of pairs."""
    counts = pair_counts([points for points, _adjusted in pairs])
    raw = test.pentanomial(counts)
    if pairs and all(adjusted is not None for _points, adjusted in pairs):
        return test.normal([adjusted / 2 for _points, adjusted in pairs if adjusted is not None],
                           pentanomial_variance(counts)), raw
    return raw, raw


def _game_first(game_name: str, bot_a: str, bot_b: str) -> None:
    """The game comes first, as in every command: say so when it came last (the order this command once had)."""
    try:
        resolve(game_name)
    except UnknownGameError:
        try:
            resolve(bot_b)
        except UnknownGameError:
            return
        fail(f"the game comes first, as in every arena command: arena sprt {bot_b} {game_name} {bot_a}", code=2)


def sprt(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode (see `arena games`)."),
    bot_a: str = typer.Argument(..., metavar="BOT_A", help="The bot under test (an agent spec or name=spec)."),
    bot_b: str = typer.Argument(..., metavar="BOT_B", help="The baseline."),
    elo0: float = typer.Option(0.0, "--elo0", help="H0: A is this many Elo stronger (logistic)."),
    elo1: float = typer.Option(10.0, "--elo1", help="H1: A is this many Elo stronger."),
    alpha: float = typer.Option(0.05, "--alpha", help="False-positive rate."),
    beta: float = typer.Option(0.05, "--beta", help="False-negative rate."),
    max_pairs: int = typer.Option(5000, "--max-pairs", min=1, help="Give up undecided after this many pairs."),
    min_pairs: int = typer.Option(MIN_PAIRS, "--min-pairs", min=1,
                                  help="Decide nothing before this many pairs (bench/sprt_check.py measures why)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED),
    duplicate: bool = typer.Option(False, "--duplicate",
                                   help="Play both games of a pair on one deal and the same dice: the deal's luck "
                                        "cancels within the pair (Major General, scripted players 40 Elo apart: "
                                        "3.7x fewer pairs to a decision). Built-in agents only, which cannot "
                                        "remember; refused with bot programs."),
    name: Optional[str] = typer.Option(None, "--name", callback=given_name,
                                       help="Name the test; the same name again resumes it."),
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Is A stronger than B? A GSPRT over seat-swapped pairs (pentanomial), as fishtest runs it.

    Where the game has a value model it decides on luck-corrected pair scores (the normal GSPRT, the raw
    pentanomial beside). It decides nothing before --min-pairs pairs (30): `python bench/sprt_check.py` measures
    its error rates on resampled real pairs (docs/fair-play.md has the figures).
    """
    try:
        test = Sprt(elo0, elo1, alpha, beta, min_pairs)
    except ValueError as error:
        fail(str(error), code=2)
    _game_first(game_name, bot_a, bot_b)
    game = open_game(game_name)
    if game.num_seats != 2:
        fail(f"the SPRT compares two bots; {game.name} has {game.num_seats} seats", code=2)
    bots = resolve_bots(f"{bot_a},{bot_b}")
    if duplicate and {bot.kind for bot in bots} != {PlayerKind.AGENT}:
        fail(DUPLICATE_REFUSED, code=2)
    store = open_store(db, create=True)
    tournament_id = _test_of(store, name, game, bots, max_pairs, seed, duplicate,
                             {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "min_pairs": min_pairs})
    a_id, _ = store.tournaments.entries(tournament_id)
    points = pair_points(store, tournament_id, a_id)
    pending: dict[tuple[int, int], list[tuple[float, float | None]]] = {}

    def decided() -> bool:
        return verdict(test, points)[0].decision is not None

    def on_progress(state: RunProgress) -> None:
        progress_bar[0](state)
        outcome = state.last
        if outcome is None or outcome.uid in seen:  # progress is reported more than once per match
            return
        seen.add(outcome.uid)
        key = (outcome.round, outcome.pairing)
        pending.setdefault(key, []).append(_points(outcome.bot_ids, outcome.ranking, outcome.luck, a_id))
        if len(pending[key]) == 2:
            points.append(_pair(pending.pop(key)))

    seen: set[str] = set()
    stop = StopRequest()
    settings = play_settings(concurrency, broker, queue, sandbox, entrant_kinds(store, tournament_id))
    display = display_for(json_output, title=f"sprt {bots[0].name} vs {bots[1].name}")

    progress_bar: list[Callable[[RunProgress], None]] = [lambda state: None]  # the bar `shown` opens

    @contextlib.contextmanager
    def shown(tournament: Any) -> Iterator[Callable[[RunProgress], None]]:
        with display(tournament) as update:
            progress_bar[0] = update
            yield on_progress
    try:
        with stop.installed():
            if not decided():
                play(store, [tournament_id], settings, display=shown, should_stop=lambda: stop() or decided())
    except TournamentError as error:
        fail(f"sprt: {said(error, db)}")
    except KeyboardInterrupt:
        fail("aborted; the test's stored pairs are kept: run it again with the same --name to resume", code=130)
    result, raw = verdict(test, pair_points(store, tournament_id, a_id))
    _report(result, raw, bots[0].name, bots[1].name, test, tournament_id, json_output, duplicate)


def _test_of(store: Store, name: str | None, game: Game, bots: list[BotSpec], max_pairs: int, seed: int | None,
             duplicate: bool, sprt_settings: dict[str, Any]) -> int:
    """The stored test named `name`, resumed as it was started, or a new one: a gauntlet of `max_pairs` pairs."""
    existing = store.tournaments.get(name) if name else None
    if existing is None:
        return create_tournament(store, game=game, bots=bots, format="gauntlet", rounds=max_pairs,
                                 seed=seed if seed is not None else new_seed(), name=name,
                                 settings={"sprt": sprt_settings, **({"duplicate": True} if duplicate else {})})
    if existing.settings.get("sprt") is None:
        fail(f"{name!r} is a tournament, not an SPRT", code=2)
    try:  # (the game, the bots, one deal a pair or not, and a --seed given: as it was started)
        check_same(store, existing, game, [bot.name for bot in bots], "gauntlet", None, duplicate, seed)
    except TournamentError as error:
        fail(str(error), code=2)
    return existing.id


def _report(result: SprtResult, raw: SprtResult, a: str, b: str, test: Sprt, tournament_id: int,
            json_output: bool, duplicate: bool) -> None:
    verdict_text = {"H1": f"{a} is stronger: H1 (elo >= {test.elo1:g}) accepted",
                    "H0": f"{a} is not stronger: H0 (elo <= {test.elo0:g}) accepted",
                    None: "undecided"}[result.decision]
    pairs = int(sum(raw.counts))
    if pairs < test.min_pairs:
        verdict_text += f" (no decision before {test.min_pairs} pairs: --min-pairs)"
    luck = result is not raw  # decided on luck-corrected scores
    if json_output:
        data: dict[str, Any] = {
            "bot_a": a, "bot_b": b, "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
            "model": result.model, "luck_corrected": luck, "pairs": pairs, "min_pairs": test.min_pairs,
            "games": 2 * pairs, "duplicate": duplicate,
            "pentanomial": list(raw.counts), "llr": round(result.llr, 4), "lower": round(result.lower, 4),
            "upper": round(result.upper, 4), "decision": result.decision, "elo": _finite(result.elo),
            "elo_low": _finite(result.elo_interval[0]), "elo_high": _finite(result.elo_interval[1]),
            "raw": {"model": raw.model, "llr": round(raw.llr, 4), "decision": raw.decision, "elo": _finite(raw.elo),
                    "elo_low": _finite(raw.elo_interval[0]), "elo_high": _finite(raw.elo_interval[1])},
            "tournament": tournament_id,
        }
        print_json(data)
        return
    how = ("on luck-corrected scores (GSPRT, normal approximation over seat-swapped pairs)" if luck
           else "GSPRT, pentanomial over seat-swapped pairs")
    console.print(f"SPRT {a} vs {b}: elo0 {test.elo0:g}, elo1 {test.elo1:g}, alpha {test.alpha:g}, "
                  f"beta {test.beta:g}, at least {test.min_pairs} pairs ({how})")
    console.print(f"pairs {pairs} ({2 * pairs} games{', each pair on one deal' if duplicate else ''}), "
                  f"pentanomial {list(raw.counts)}")
    console.print(f"LLR {result.llr:.3f} in [{result.lower:.3f}, {result.upper:.3f}]; "
                  f"Elo {result.elo:+.1f} [{result.elo_interval[0]:+.1f}, {result.elo_interval[1]:+.1f}]")
    if luck:
        console.print(f"raw results: LLR {raw.llr:.3f}; Elo {raw.elo:+.1f} "
                      f"[{raw.elo_interval[0]:+.1f}, {raw.elo_interval[1]:+.1f}]")
    console.print(verdict_text, style="bold")


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded Elo end (a perfect score) becomes null."""
    return round(value, 2) if math.isfinite(value) else None

