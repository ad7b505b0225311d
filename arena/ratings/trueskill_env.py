"""TrueSkill ratings (the trueskill package), with an exact closed-form path for two-seat matches.

For two players the factor graph has a single comparison and the package's message passing reduces
to Herbrich et al.'s closed-form update; we compute that directly with the package's own v/w
functions (about 20 times faster than `TrueSkill.rate_1vs1`, equal to it within 1e-9, which a test
checks). Free-for-all matches of three or more seats go through `TrueSkill.rate` with ranks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import trueskill

MU = trueskill.MU
SIGMA = trueskill.SIGMA
BETA = trueskill.BETA
TAU = trueskill.TAU
DRAW_PROBABILITY = trueskill.DRAW_PROBABILITY

Pair = tuple[float, float]  # (mu, sigma)


def conservative(mu: float, sigma: float) -> float:
    """The score the leaderboards rank by: mu - 3 sigma (about 99% sure the skill is at least this)."""
    return mu - 3.0 * sigma


@dataclass(frozen=True)
class RatingSystem:
    """A TrueSkill environment: the same constants rate every match of a pool."""

    mu: float = MU
    sigma: float = SIGMA
    beta: float = BETA
    tau: float = TAU
    draw_probability: float = DRAW_PROBABILITY
    # made from the constants above by __post_init__
    env: trueskill.TrueSkill = field(init=False, repr=False, compare=False)
    accurate_env: trueskill.TrueSkill = field(init=False, repr=False, compare=False)
    _margin_2: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        env = trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                  draw_probability=self.draw_probability)
        object.__setattr__(self, "env", env)
        # The package's default erfc is a 1e-7 approximation that breaks down far in the tails (a
        # huge upset raises FloatingPointError); those rare updates are redone with math.erfc.
        accurate = trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                       draw_probability=self.draw_probability,
                                       backend=(_accurate_cdf, _accurate_pdf, env.ppf))
        object.__setattr__(self, "accurate_env", accurate)
        object.__setattr__(self, "_margin_2", trueskill.calc_draw_margin(self.draw_probability, 2, env))

    @property
    def initial(self) -> Pair:
        """A new bot's rating."""
        return (self.mu, self.sigma)

    def rate(self, ratings: Sequence[Pair], ranking: Sequence[int]) -> list[Pair]:
        """New (mu, sigma) per seat after a match; `ranking` gives each seat's rank (0 first, equal = draw)."""
        if len(ratings) != len(ranking):
            raise ValueError(f"{len(ratings)} ratings but {len(ranking)} ranks")
        if len(ratings) == 2:
            return self.rate_two(ratings[0], ratings[1], ranking[0], ranking[1])
        groups = [(trueskill.Rating(mu, sigma),) for mu, sigma in ratings]
        try:
            rated = self.env.rate(groups, ranks=list(ranking))
        except FloatingPointError:
            rated = self.accurate_env.rate(groups, ranks=list(ranking))
        return [(group[0].mu, group[0].sigma) for group in rated]

    def rate_two(self, first: Pair, second: Pair, rank_first: int, rank_second: int) -> list[Pair]:
        """The closed-form two-player update (equal ranks are a draw)."""
        try:
            return self._rate_two(self.env, first, second, rank_first, rank_second)
        except FloatingPointError:
            return self._rate_two(self.accurate_env, first, second, rank_first, rank_second)

    def _rate_two(self, env: trueskill.TrueSkill, first: Pair, second: Pair, rank_first: int,
                  rank_second: int) -> list[Pair]:
        tau2 = self.tau * self.tau
        if rank_second < rank_first:
            second_new, first_new = self._rate_two(env, second, first, 0, 1)
            return [first_new, second_new]
        mu_a, var_a = first[0], first[1] * first[1] + tau2
        mu_b, var_b = second[0], second[1] * second[1] + tau2
        c = math.sqrt(2.0 * self.beta * self.beta + var_a + var_b)
        t = (mu_a - mu_b) / c
        epsilon = self._margin_2 / c
        if rank_first == rank_second:
            v, w = env.v_draw(t, epsilon), env.w_draw(t, epsilon)
        else:
            v, w = env.v_win(t, epsilon), env.w_win(t, epsilon)
        c2 = c * c
        return [
            (mu_a + var_a / c * v, math.sqrt(var_a * max(1.0 - var_a / c2 * w, 1e-12))),
            (mu_b - var_b / c * v, math.sqrt(var_b * max(1.0 - var_b / c2 * w, 1e-12))),
        ]

    def quality(self, first: Pair, second: Pair) -> float:
        """TrueSkill's match quality of a two-seat pairing: the draw probability's share, 0 to 1 (the
        package's `quality_1vs1` in closed form, equal to it within 1e-12, about 50 times faster)."""
        spread = 2.0 * self.beta * self.beta
        total = spread + first[1] * first[1] + second[1] * second[1]
        gap = first[0] - second[0]
        return math.sqrt(spread / total) * math.exp(-gap * gap / (2.0 * total))

    def win_probability(self, first: Pair, second: Pair) -> float:
        """Chance that `first` outperforms `second` (ignoring draws)."""
        env = self.env
        spread = math.sqrt(2.0 * self.beta * self.beta + first[1] ** 2 + second[1] ** 2)
        return float(env.cdf((first[0] - second[0]) / spread))


def _accurate_cdf(x: float, mu: float = 0.0, sigma: float = 1.0) -> float:
    return 0.5 * math.erfc(-(x - mu) / (sigma * math.sqrt(2.0)))


def _accurate_pdf(x: float, mu: float = 0.0, sigma: float = 1.0) -> float:
    return math.exp(-(((x - mu) / sigma) ** 2) / 2.0) / (math.sqrt(2.0 * math.pi) * abs(sigma))


DEFAULT_SYSTEM = RatingSystem()
