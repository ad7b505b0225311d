"""TrueSkill: the package's documented examples, and the two-seat fast path against the package itself."""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.ratings.trueskill_env import RatingSystem, conservative

SYSTEM = RatingSystem()


def test_documented_one_on_one_win() -> None:
    # trueskill.org: rate_1vs1(Rating(), Rating()) -> (29.396, 7.171), (20.604, 7.171)
    (winner, loser) = SYSTEM.rate([SYSTEM.initial, SYSTEM.initial], [0, 1])
    assert winner == pytest.approx((29.396, 7.171), abs=5e-4)
    assert loser == pytest.approx((20.604, 7.171), abs=5e-4)


def test_documented_one_on_one_draw() -> None:
    # trueskill.org: rate_1vs1(r1, r2, drawn=True) -> (25.000, 6.458) each
    first, second = SYSTEM.rate([SYSTEM.initial, SYSTEM.initial], [0, 0])
    assert first == pytest.approx((25.0, 6.458), abs=5e-4)
    assert second == pytest.approx((25.0, 6.458), abs=5e-4)


def test_documented_quality() -> None:
    # trueskill.org: quality_1vs1(Rating(), Rating()) -> 0.447
    assert SYSTEM.quality(SYSTEM.initial, SYSTEM.initial) == pytest.approx(0.447, abs=5e-4)


def test_two_seat_quality_equals_the_package() -> None:
    rng = random.Random(9)
    for _ in range(500):
        a = (rng.uniform(-10, 60), rng.uniform(0.1, 9))
        b = (rng.uniform(-10, 60), rng.uniform(0.1, 9))
        expected = trueskill.quality_1vs1(trueskill.Rating(*a), trueskill.Rating(*b), env=SYSTEM.env)
        assert SYSTEM.quality(a, b) == pytest.approx(expected, abs=1e-12)


def test_seat_order_does_not_matter() -> None:
    a, b = (30.0, 4.0), (22.0, 6.0)
    assert SYSTEM.rate([a, b], [1, 0]) == list(reversed(SYSTEM.rate([b, a], [0, 1])))


def test_two_seat_path_equals_the_package() -> None:
    env = trueskill.TrueSkill()
    rng = random.Random(5)
    compared = 0
    for _ in range(500):
        a = (rng.uniform(0, 50), rng.uniform(0.5, 9))
        b = (rng.uniform(0, 50), rng.uniform(0.5, 9))
        drawn = rng.random() < 0.3
        try:
            expected = trueskill.rate_1vs1(trueskill.Rating(*a), trueskill.Rating(*b), drawn=drawn, env=env)
        except FloatingPointError:
            continue
        got = SYSTEM.rate([a, b], [0, 0] if drawn else [0, 1])
        for (mu, sigma), rating in zip(got, expected):
            assert mu == pytest.approx(rating.mu, abs=1e-9)
            assert sigma == pytest.approx(rating.sigma, abs=1e-9)
        compared += 1
    assert compared > 400


def test_free_for_all_goes_through_the_package() -> None:
    ratings = [(25.0, 8.333), (30.0, 5.0), (20.0, 3.0)]
    got = SYSTEM.rate(ratings, [1, 2, 0])
    expected = trueskill.TrueSkill().rate([(trueskill.Rating(*r),) for r in ratings], ranks=[1, 2, 0])
    assert got == [pytest.approx((g[0].mu, g[0].sigma)) for g in expected]
    assert got[2][0] > ratings[2][0] and got[1][0] < ratings[1][0]  # the winner rises, the last falls


def test_huge_upset_does_not_crash() -> None:
    # the package's approximate erfc raises FloatingPointError here; we redo it with math.erfc
    underdog, favourite = SYSTEM.rate([(0.0, 0.5), (50.0, 0.5)], [0, 1])
    assert underdog[0] > 0.0 and favourite[0] < 50.0
    three = SYSTEM.rate([(0.0, 0.5), (50.0, 0.5), (25.0, 1.0)], [0, 2, 1])
    assert three[0][0] > 0.0


def test_conservative_score() -> None:
    assert conservative(25.0, 25.0 / 3) == pytest.approx(0.0)
