"""Ratings: TrueSkill per game mode, Bradley-Terry cross-checks, Wilson intervals, SPRT."""

from arena.ratings.bradley_terry import StrengthEstimate, fit
from arena.ratings.sprt import Sprt, SprtResult
from arena.ratings.stats import elo_to_score, score_to_elo, wilson_interval
from arena.ratings.trueskill_env import DEFAULT_SYSTEM, RatingSystem, conservative

__all__ = ["DEFAULT_SYSTEM", "RatingSystem", "Sprt", "SprtResult", "StrengthEstimate", "conservative",
           "elo_to_score", "fit", "score_to_elo", "wilson_interval"]
