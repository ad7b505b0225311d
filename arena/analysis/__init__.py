"""Match analysis: where a match was won and lost.

- `match`: one record analysed, decision by decision (`arena analyse`; see its docstring for what a chance, a
  turning point and luck mean);
- `background`: a run's stored matches analysed in a low-priority process (`--analyse BUDGET`);
- `playouts`: paired playouts of greedy players, what one move costs against another (the analysis' second judge,
  `--playouts`, and bench/analysis_quality.py's outside truth).
"""

from arena.analysis.match import (
    DEFAULT_BUDGET,
    PLAYOUT_PAIRS,
    Analysis,
    AnalysisError,
    Budget,
    DecisionEntry,
    TurningPoint,
    analyse_decision,
    analyse_record,
    turning_points,
)

__all__ = ["DEFAULT_BUDGET", "PLAYOUT_PAIRS", "Analysis", "AnalysisError", "Budget", "DecisionEntry", "TurningPoint",
           "analyse_decision", "analyse_record", "turning_points"]
