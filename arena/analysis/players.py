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
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

MIN_DECISIONS = 20  # a player's form is measured on at least this many of its searched decisions
WEAKER = 0.01  # a player is weaker when its moves lose this much of a game more a decision than the other's


@dataclass(frozen=True)
class PlayerForm:
    """How a player's moves fared in its other analysed matches of a game: the mean drop of its searched
    decisions, over how many decisions and matches, and the mean of its searched decisions a match."""

    drop: float
    decisions: int
    matches: int
    per_match: float

    def to_json(self) -> dict[str, Any]:
        # (to 6 places: the chances read back from the JSON are the ones written, to their 4)
        return {"drop": round(self.drop, 6), "decisions": self.decisions, "matches": self.matches,
                "per_match": round(self.per_match, 6)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayerForm:
        return cls(float(data["drop"]), int(data["decisions"]), int(data["matches"]), float(data["per_match"]))


def form_of(matches: Iterable[Sequence[float]]) -> PlayerForm | None:
    """A player's form from its analysed matches: each match's drops of its searched decisions
    (`Analysis.searched_drops`); None where they hold fewer than MIN_DECISIONS."""
    counts = []
    drops: list[float] = []
    for own in matches:
        drops += own
        counts.append(len(own))
    if len(drops) < MIN_DECISIONS:
        return None
    return PlayerForm(statistics.fmean(drops), len(drops), len(counts), statistics.fmean(counts))


def expected_chances(decisions: Sequence[tuple[int, float, bool]],
                     forms: tuple[PlayerForm, PlayerForm]) -> list[float]:
    """Per analysed decision, given as (its mover's seat, the mover's chance before it, whether it was forced),
    the mover's expected score as these two players play (see the module)."""
    gap = forms[0].drop - forms[1].drop  # what seat 0's moves lose a decision more than seat 1's
    if abs(gap) < WEAKER:
        return [before for _, before, _ in decisions]
    typical = statistics.fmean(form.per_match for form in forms)
    made = [0, 0]  # each seat's searched decisions so far
    chances = []
    for seat, before, forced in decisions:
        left = [max(0.0, typical - made[one]) for one in (0, 1)]
        shift = (gap if seat == 0 else -gap) / 2 * (left[0] + left[1])
        chances.append(min(1.0, max(0.0, before - shift)))
        if not forced:
            made[seat] += 1
    return chances
