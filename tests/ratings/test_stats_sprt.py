"""Wilson intervals, Elo conversions and the SPRT against hand-computed values; its minimum of pairs, its
pseudo-pairs, and its error rates on seeded synthetic pairs."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.sprt import (MIN_PAIRS, PENTANOMIAL_SCORES, PRIOR_PAIRS, Sprt, constrained_mle,
                                log_likelihood_ratio, pair_counts, pentanomial_variance, wald_bounds)
from arena.ratings.stats import elo_to_score, score_to_elo, wilson_interval


def test_wilson_hand_computed() -> None:
    # p = 0.5, n = 10, z = 1.96: centre 0.5, half-width 1.96/(1+0.38416)*sqrt(0.025+0.0096040) = 0.26340
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.5 - 0.263398, abs=1e-5) and high == pytest.approx(0.5 + 0.263398, abs=1e-5)
    # 0 of 10: lower bound 0, upper z^2/(n+z^2) = 3.8415/13.8415
    assert wilson_interval(0, 10) == pytest.approx((0.0, 3.841459 / 13.841459), abs=1e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_elo_conversions() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(10 / 11) == pytest.approx(400)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


def test_wald_bounds() -> None:
    assert wald_bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))


def test_llr_without_draws_is_the_binomial_ratio() -> None:
    # With only wins and losses the constrained MLE is (1 - s, s): LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0))
    s0, s1 = elo_to_score(0), elo_to_score(20)
    expected = 60 * math.log(s1 / s0) + 40 * math.log((1 - s1) / (1 - s0))
    assert log_likelihood_ratio([40, 0, 60], [0.0, 0.5, 1.0], 0, 20) == pytest.approx(expected, rel=1e-9)


def test_constrained_mle_meets_its_mean_and_keeps_a_matching_distribution() -> None:
    p = [0.1, 0.2, 0.4, 0.2, 0.1]
    assert constrained_mle(p, PENTANOMIAL_SCORES, 0.5) == pytest.approx(p)  # already has mean 0.5
    q = constrained_mle(p, PENTANOMIAL_SCORES, 0.55)
    assert sum(q) == pytest.approx(1.0) and sum(a * b for a, b in zip(q, PENTANOMIAL_SCORES)) == pytest.approx(0.55)


def test_llr_matches_the_gsprt_normal_approximation_for_small_elo() -> None:
    # For elo0, elo1 close together: LLR ~ N (s1 - s0)(2 s - s0 - s1) / (2 var)
    counts = [30, 200, 500, 240, 30]
    total = sum(counts)
    mean = sum(c * a for c, a in zip(counts, PENTANOMIAL_SCORES)) / total
    var = sum(c * (a - mean) ** 2 for c, a in zip(counts, PENTANOMIAL_SCORES)) / total
    s0, s1 = elo_to_score(0), elo_to_score(5)
    approximation = total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert log_likelihood_ratio(counts, PENTANOMIAL_SCORES, 0, 5) == pytest.approx(approximation, rel=0.02)


def test_decisions() -> None:
    test = Sprt(0, 10, 0.05, 0.05)
    assert test.pentanomial([0, 0, 0, 0, 0]).decision is None
    assert test.pentanomial([10, 60, 100, 200, 80]).decision == "H1"  # a clearly stronger A
    assert test.pentanomial([80, 200, 100, 60, 10]).decision == "H0"
    assert test.trinomial(300, 400, 300).decision is None or test.trinomial(300, 400, 300).llr < 0
    result = test.pentanomial([10, 60, 100, 200, 80])
    assert result.elo_interval[0] < result.elo < result.elo_interval[1]


def test_pair_counts_and_bad_settings() -> None:
    assert pair_counts([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError):
        Sprt(10, 0)
    with pytest.raises(ValueError):
        Sprt(0, 10, alpha=0.7)


def test_no_decision_before_the_minimum_of_pairs() -> None:
    wide = Sprt(0, 300, 0.05, 0.05, min_pairs=30)  # (its LLR is far over the bound at 29 pairs)
    assert wide.pentanomial([0, 0, 0, 10, 19]).llr > wald_bounds(0.05, 0.05)[1]
    assert wide.pentanomial([0, 0, 0, 10, 19]).decision is None
    assert wide.pentanomial([0, 0, 0, 10, 20]).decision == "H1"
    assert wide.trinomial(0, 0, 59).decision is None and wide.trinomial(0, 0, 60).decision == "H1"  # (games)
    test = Sprt(0, 10, 0.05, 0.05, min_pairs=30)  # two equal pair scores: once a decision at 4 games
    assert test.normal([0.75, 0.75]).decision is None and test.normal([0.75] * 29).decision is None
    assert test.normal([0.75] * 30).decision == "H1"
    assert Sprt(min_pairs=1).normal([0.75, 0.75]).decision == "H1"  # (the old test: two pairs)
    assert Sprt().min_pairs == MIN_PAIRS == 30
    with pytest.raises(ValueError):
        Sprt(min_pairs=0)


def test_pseudo_pairs_keep_the_normal_variance_off_zero() -> None:
    reference = pentanomial_variance([1, 2, 4, 2, 1])
    assert reference == pytest.approx(0.075, rel=1e-3)
    # 30 equal scores have no variance of their own: PRIOR_PAIRS pseudo-pairs at the reference give it one
    guarded = Sprt(min_pairs=30).normal([0.52] * 30, reference)
    s0, s1 = elo_to_score(0), elo_to_score(10)
    variance = PRIOR_PAIRS * reference / (30 + PRIOR_PAIRS)
    assert guarded.llr == pytest.approx(30 * (s1 - s0) * (2 * 0.52 - s0 - s1) / (2 * variance))
    assert guarded.decision is None  # (without the reference the variance is 1e-6 and it says H1)
    assert Sprt(min_pairs=30).normal([0.52] * 30).decision == "H1"
    many = [0.25, 0.75] * 500  # with many pairs the reference (here the largest a pair score has) hardly counts
    assert Sprt().normal(many, 0.25).llr == pytest.approx(Sprt().normal(many).llr, rel=0.01)


def _runs(test: Sprt, probabilities: list[float], guarded: bool, runs: int, seed: int) -> list[str | None]:
    """Decisions of `runs` normal-test runs on pair scores drawn from a pentanomial distribution."""
    rng = random.Random(seed)
    decisions: list[str | None] = []
    for _ in range(runs):
        counts, total, squares, decision = [0] * 5, 0.0, 0.0, None
        for n in range(1, 3001):
            index = rng.choices(range(5), probabilities)[0]
            score = PENTANOMIAL_SCORES[index]
            counts[index] += 1
            total, squares = total + score, squares + score * score
            mean = total / n
            decision = test.normal_moments(n, mean, max(squares / n - mean * mean, 0.0),
                                           pentanomial_variance(counts) if guarded else None).decision
            if decision is not None:
                break
        decisions.append(decision)
    return decisions


def test_the_normal_test_holds_its_error_rates_on_synthetic_pairs() -> None:
    """Seeded runs: at Elo 0 (a symmetric distribution) H1 is accepted, and at about +50 Elo H0 is, no more
    often than 5% as far as 200 runs tell (the Wilson interval's lower end); the old test (from 2 pairs, no
    pseudo-pairs) is shown to go wrong more often at Elo 0, so these runs can tell."""
    equal, stronger = [0.1, 0.2, 0.4, 0.2, 0.1], [0.05, 0.15, 0.4, 0.25, 0.15]  # +52 Elo
    test, old = Sprt(0, 30, 0.05, 0.05), Sprt(0, 30, 0.05, 0.05, min_pairs=2)
    false_h1 = _runs(test, equal, True, 200, 1).count("H1")
    false_h0 = _runs(test, stronger, True, 200, 2).count("H0")
    assert wilson_interval(false_h1, 200)[0] <= 0.05 and wilson_interval(false_h0, 200)[0] <= 0.05
    assert wilson_interval(_runs(old, equal, False, 200, 1).count("H1"), 200)[0] > 0.05
