"""Bradley-Terry maximum likelihood against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from arena.ratings.bradley_terry import fit
from arena.ratings.stats import ELO_PER_NAT


def test_three_players_in_a_chain() -> None:
    # A beat B 2-1 and B beat C 2-1; A and C never met. The likelihood splits into two independent
    # pairs, so p_A/p_B = 2 and p_B/p_C = 2: centred log-strengths ln2 * (1, 0, -1).
    # Information: each pair contributes 3 * (2/9) = 2/3 on a path Laplacian; its pseudo-inverse
    # is (1/9)[[5,-1,-4],[-1,2,-1],[-4,-1,5]] times 3/2, so the variances are 5/6, 1/3, 5/6.
    estimates = {e.player: e for e in fit([("A", "B", 2, 0, 1), ("B", "C", 2, 0, 1)])}
    assert estimates["A"].theta == pytest.approx(math.log(2), abs=1e-8)
    assert estimates["B"].theta == pytest.approx(0.0, abs=1e-8)
    assert estimates["C"].theta == pytest.approx(-math.log(2), abs=1e-8)
    assert estimates["A"].stderr ** 2 == pytest.approx(5 / 6, abs=1e-8)
    assert estimates["B"].stderr ** 2 == pytest.approx(1 / 3, abs=1e-8)
    assert estimates["C"].stderr ** 2 == pytest.approx(5 / 6, abs=1e-8)
    assert estimates["A"].elo == pytest.approx(ELO_PER_NAT * math.log(2))
    low, high = estimates["A"].elo_interval
    assert (high - low) / 2 == pytest.approx(1.959964 * ELO_PER_NAT * math.sqrt(5 / 6), rel=1e-6)


def test_draws_count_half_each_way() -> None:
    # 1 win, 2 draws, 1 loss is an even score: equal strengths
    estimates = fit([("A", "B", 1, 2, 1)])
    assert [e.theta for e in estimates] == pytest.approx([0.0, 0.0], abs=1e-9)
    # 3 wins and 2 draws against 1 loss: A scores 4 of 6, so p_A / p_B = 4 / 2
    a, b = fit([("A", "B", 3, 2, 1)])
    assert a.theta - b.theta == pytest.approx(math.log(2), abs=1e-8)


def test_full_triangle_satisfies_the_likelihood_equations() -> None:
    comparisons = [("A", "B", 7, 1, 2), ("B", "C", 4, 2, 4), ("A", "C", 6, 0, 4)]
    estimates = {e.player: e for e in fit(comparisons)}
    strength = {player: math.exp(e.theta) for player, e in estimates.items()}
    observed = {player: 0.0 for player in strength}
    expected = {player: 0.0 for player in strength}
    for a, b, won, drawn, lost in comparisons:
        n = won + drawn + lost
        observed[a] += won + drawn / 2
        observed[b] += lost + drawn / 2
        expected[a] += n * strength[a] / (strength[a] + strength[b])
        expected[b] += n * strength[b] / (strength[a] + strength[b])
    for player in strength:  # at the maximum, every player's expected score equals its actual score
        assert expected[player] == pytest.approx(observed[player], abs=1e-7)
    assert sum(e.theta for e in estimates.values()) == pytest.approx(0.0, abs=1e-9)


def test_prior_keeps_an_unbeaten_player_finite() -> None:
    estimates = {e.player: e for e in fit([("A", "B", 5, 0, 0), ("B", "C", 3, 0, 2)], prior=1.0)}
    assert math.isfinite(estimates["A"].theta) and estimates["A"].theta > estimates["B"].theta > estimates["C"].theta
    assert all(math.isfinite(e.stderr) and e.stderr > 0 for e in estimates.values())


def test_empty() -> None:
    assert fit([]) == []
