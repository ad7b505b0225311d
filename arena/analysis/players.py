"""The players' model: a match's chances as its two players really play, not as the search would.

An analysis' chance is the mover's expected score if both sides played on like Arena's search. Against a
clearly weaker player that is far off (a random mover's chance is read as if it would play on well), and the
analysis' own drops say by how much: a player whose moves, over its other analysed matches of the game at the
same budget, lost `drop` of a game each on average (its *form*) will go on losing about that at each decision
it has left. What both sides lose alike (the search's own noise is in every drop) cancels; what one loses more
than the other does not. So, at every decision, the mover's expected score as these players play is

    expected = before - (drop(mover) - drop(other)) / 2 * (left(mover) + left(other))     (clamped to [0, 1])

where `left` is a seat's decisions still to come, this one included, out of a typical match's (the mean of the
two players' over the same matches). Only where one player is clearly weaker (its moves lose WEAKER or more a
decision than the other's) does it differ from the search's chance: between players of like form the drops
tell strength less well than the search does (Alpine's scripted player loses more than greedy by the search's
judgement, and beats it). Nothing is fitted: the forms and the typical length come from other matches, never
the match itself (its own later moves would tell its result). Measured against results by
bench/analysis_quality.py's "players_model" (docs/writing-a-bot.md, "Why did it lose?").

A form also has an *edge*: what the player's results in the seat it holds now beat its chances (by the drops
above) in its other analysed matches in that seat (those analysed with both players' forms), as a shift of its
chance at a match's start that fades linearly to nothing by a typical match's end, both seats' decisions counted
(fitted through zero over those decisions, its standard error over the matches). Drops miss what a player does
wrong across many moves, none of them costly to the search's eye: greedy players play General Orders' Island far
better as its first side than as its second, each move losing the search about as much, so the search (playing
both sides alike) reads the second side's chances too high.
Where both seats' edges are known, half their difference is the first seat's shift (each side's edge counts
for half, as the gap above), taken only where it stands EDGE_Z standard errors clear of zero (half the sum of
the two errors: the two are measured on the same matches when the same pair met before).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

MIN_DECISIONS = 20  # a player's form is measured on at least this many of its searched decisions
WEAKER = 0.01  # a player is weaker when its moves lose this much of a game more a decision than the other's
MIN_EDGE_MATCHES = 8  # a seat's edge is measured on at least this many of the player's matches in that seat
EDGE_Z = 2.0  # the seats' edge is taken where it stands this many standard errors clear of zero

#: One analysed match as a seat's edge reads it: over the seat's searched decisions, the sum of (the share of the
#: match's searched decisions still to come, this one included) times (the seat's result less its chance as the
#: players play by their drops alone), and the sum of that share squared
EdgeSums = tuple[float, float]


@dataclass(frozen=True)
class PlayerForm:
    """How a player's moves fared in its other analysed matches of a game: the mean drop of its searched
    decisions, over how many decisions and matches, and the mean of its searched decisions a match."""

    drop: float
    decisions: int
    matches: int
    per_match: float
    edge: float = 0.0  # in the seat it holds: its results over its chances at a match's start (see the module)
    edge_error: float = 0.0  # the edge's standard error
    edge_matches: int = 0  # the matches in that seat it was measured on (0: not measured)

    def to_json(self) -> dict[str, Any]:
        # (to 6 places: the chances read back from the JSON are the ones written, to their 4)
        return {"drop": round(self.drop, 6), "decisions": self.decisions, "matches": self.matches,
                "per_match": round(self.per_match, 6), "edge": round(self.edge, 6),
                "edge_error": round(self.edge_error, 6), "edge_matches": self.edge_matches}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayerForm:
        return cls(float(data["drop"]), int(data["decisions"]), int(data["matches"]), float(data["per_match"]),
                   float(data.get("edge", 0.0)), float(data.get("edge_error", 0.0)), int(data.get("edge_matches", 0)))


def form_of(matches: Iterable[Sequence[float]], edge_sums: Iterable[EdgeSums] = ()) -> PlayerForm | None:
    """A player's form from its analysed matches: each match's drops of its searched decisions
    (`Analysis.searched_drops`), and for its edge each of its matches in the seat it holds now as `edge_sums`
    reads it; None where the drops are fewer than MIN_DECISIONS."""
    counts = []
    drops: list[float] = []
    for own in matches:
        drops += own
        counts.append(len(own))
    if len(drops) < MIN_DECISIONS:
        return None
    return PlayerForm(statistics.fmean(drops), len(drops), len(counts), statistics.fmean(counts), *edge_of(edge_sums))


def edge_of(matches: Iterable[EdgeSums]) -> tuple[float, float, int]:
    """(edge, its standard error, matches) from a seat's matches (see EdgeSums; those with no decision of the seat
    left out): the least-squares shift at a match's start of a line through zero at its end, its error over the
    matches (each match's decisions go together; with the small-sample factor n / (n - 1)); (0, 0, n) on fewer
    than MIN_EDGE_MATCHES."""
    sums = [(products, squares) for products, squares in matches if squares > 0]
    weight = sum(squares for _, squares in sums)
    if len(sums) < MIN_EDGE_MATCHES:
        return 0.0, 0.0, len(sums)
    edge = sum(products for products, _ in sums) / weight
    spread = sum((products - edge * squares) ** 2 for products, squares in sums) * len(sums) / (len(sums) - 1)
    return edge, math.sqrt(spread) / weight, len(sums)


def match_edge_sums(decisions: Sequence[tuple[int, float, bool]], chances: Sequence[float], seat: int,
                    result: float) -> EdgeSums:
    """One analysed match as `seat`'s edge reads it (see EdgeSums): its decisions as `expected_chances` takes
    them, the movers' chances as the players play by their drops alone (or the search's), the seat's result."""
    searched = sum(1 for _, _, forced in decisions if not forced)
    products = squares = 0.0
    made = 0
    for (mover, _, forced), chance in zip(decisions, chances):
        if forced:
            continue
        if mover == seat:
            left = (searched - made) / searched
            products += left * (result - chance)
            squares += left * left
        made += 1
    return products, squares


def seat_edge(forms: tuple[PlayerForm, PlayerForm]) -> float:
    """Seat 0's shift at a match's start from both seats' edges (0 unless both are measured and clear)."""
    if not (forms[0].edge_matches >= MIN_EDGE_MATCHES and forms[1].edge_matches >= MIN_EDGE_MATCHES):
        return 0.0
    edge = (forms[0].edge - forms[1].edge) / 2
    return edge if abs(edge) >= EDGE_Z * (forms[0].edge_error + forms[1].edge_error) / 2 else 0.0


def expected_chances(decisions: Sequence[tuple[int, float, bool]], forms: tuple[PlayerForm, PlayerForm],
                     edges: bool = True) -> list[float]:
    """Per analysed decision, given as (its mover's seat, the mover's chance before it, whether it was forced),
    the mover's expected score as these two players play (see the module); without `edges`, by their drops
    alone."""
    gap = forms[0].drop - forms[1].drop  # what seat 0's moves lose a decision more than seat 1's
    gap = gap if abs(gap) >= WEAKER else 0.0
    edge = seat_edge(forms) if edges else 0.0
    if not gap and not edge:
        return [before for _, before, _ in decisions]
    typical = statistics.fmean(form.per_match for form in forms)
    made = [0, 0]  # each seat's searched decisions so far
    chances = []
    for seat, before, forced in decisions:
        left = max(0.0, typical - made[0]) + max(0.0, typical - made[1])  # both seats' decisions to come
        share = max(0.0, 2 * typical - made[0] - made[1]) / (2 * typical)  # of the match's (as its edge is read)
        fall = gap / 2 * left - edge * share  # what seat 0's chance loses to the forms
        chances.append(min(1.0, max(0.0, before - fall if seat == 0 else before + fall)))
        made[seat] += not forced
    return chances
