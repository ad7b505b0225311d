"""Luck: how much of a result the chance events (deals, draws, dice) decided, and the result without it.

The referee knows every chance event's outcome and its alternatives with their probabilities. With a value
function V fixed in advance (`ValueModel`: seat 0's chance to win, read off a position by a small model of
the family's features, versioned and fitted on a corpus of its own, never on the games it judges), the luck
of a chance event for seat 0 is

    luck = V(after the outcome) - sum over outcomes o of p(o) * V(after o)

(seat 1's is its negation). Its expectation is zero at every chance node, whatever V is: so a result less
the summed luck (times a coefficient fixed with the model) is an unbiased estimate of the result, with
less variance as V sees more of what chance changes (a control variate: AIVAT, Burch et al. 2018; GNU
Backgammon's luck rate). `measure_luck(record)` gives a match's luck, event by event; a `LuckMeter` measures it
while the match is played (no replay).
"""

from arena.luck.measure import LuckMeter, MatchLuck, attach_luck, keep_luck, measure_luck
from arena.luck.model import ValueModel, model_for

__all__ = ["LuckMeter", "MatchLuck", "ValueModel", "attach_luck", "keep_luck", "measure_luck", "model_for"]
