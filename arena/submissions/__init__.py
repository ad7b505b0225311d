"""Bot submissions: safe unpacking, checks with line numbers, content-addressed versions, the pre-flight."""

from arena.submissions.archive import DEFAULT_SUBMISSION_LIMITS, Problem, SubmissionLimits, unpack
from arena.submissions.checks import check_folder, declared_games
from arena.submissions.preflight import PreflightReport, Step, preflight
from arena.submissions.submit import (
    BOT_STORE_ENV,
    Submission,
    SubmissionError,
    authorize,
    bot_store,
    content_hash,
    find_version,
    hash_token,
    retire,
    submit,
)

__all__ = ["BOT_STORE_ENV", "DEFAULT_SUBMISSION_LIMITS", "PreflightReport", "Problem", "Step", "Submission",
           "SubmissionError", "SubmissionLimits", "authorize", "bot_store", "check_folder", "content_hash",
           "declared_games", "find_version", "hash_token", "preflight", "retire", "submit", "unpack"]
