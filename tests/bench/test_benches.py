"""Every bench in bench/ that plays or computes runs here at its smallest size, so that none rots: a smoke test
each, asserting the keys of its --json output, never its figures (a busy machine makes timings mean nothing).
The benches that start servers are in test_bench_servers.py (a file each runs on a worker of its own)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from arena.analysis.players import PlayerForm
from arena.games.major_general import knowledge
from arena.games.major_general.data import SCENARIO_IDS
from tests.bench.run import REPO, has_keys, run_bench

MODE = "major-general"


def test_engine() -> None:
    has_keys(run_bench("engine.py", "--seconds", "0.05", "--game", MODE)[MODE], "games_per_s decisions_per_s")


def test_match_loop() -> None:
    has_keys(run_bench("match_loop.py", "--seconds", "0.05", "--game", MODE)[MODE], "matches_per_s steps_per_s matches")


def test_platform() -> None:
    figures = run_bench("platform.py", "--smoke")
    has_keys(figures, "loop_over_engine main_cpu_per_match_us worker_cpu_per_match_us ratio_vs_against")
    assert figures["ratio_vs_against"] is None  # (no --against)
    assert figures["modes"][MODE]["same_games"]  # the engine's games are the loop's


def test_platform_against_a_second_checkout() -> None:
    figures = run_bench("platform.py", "--smoke", "--against", str(REPO))  # (this one again: the keys)
    has_keys(figures["ratio_vs_against"], "match_loop main worker")
    has_keys(figures["against"], "modes loop_over_engine tournament")


def test_agents() -> None:
    figures = run_bench("agents.py", "--games", "1", "--modes", MODE, "--players", "random", "-j", "1", "--seed", "1")
    has_keys(figures, "seed games players goals failures ok")
    has_keys(figures["players"]["random"][MODE], "decisions median_s p99_s max_s max_over_median worst")


def test_balance() -> None:
    figures = run_bench("balance.py", "--games", "2", "--modes", MODE, "-j", "1")[MODE]
    has_keys(figures, "games first_seat_win_rate interval draw_rate decisions_mean steps_mean endings flags")


def test_luck() -> None:
    figures = run_bench("luck.py", "--games", "2", "--modes", MODE, "--pairs", "random:greedy", "--resamples", "2",
                        "-j", "1")
    has_keys(figures, "seed games modes goal_met goal_47_met failures_47 command")
    row = figures["modes"][MODE]["random:greedy"]
    has_keys(row, "games variance_raw variance_corrected ratio ratio_interval sprt_games_raw sprt_games_corrected "
             "sprt_ratio sprt_games_pentanomial luck_per_event events_off_zero luck_result_correlation match_cpu_ms "
             "luck_cpu_ms model")
    has_keys(row["luck_per_event"], "events mean low high")
    has_keys(row["events_off_zero"], "off of")
    has_keys(row["luck_result_correlation"], "r low high")


def test_sprt_check() -> None:
    figures = run_bench("sprt_check.py", "--smoke")
    has_keys(figures, "populations false_h1_at_elo0 false_h0_at_gap min_pairs_at_decision tests goal_met command")
    for key in ("false_h1_at_elo0", "false_h0_at_gap", "min_pairs_at_decision"):
        has_keys(figures[key], "count runs rate low high")
    has_keys(figures["min_pairs_at_decision"], "pairs minimum")
    assert figures["min_pairs_at_decision"]["count"] == 0  # (none before the minimum, at any size)
    has_keys(figures["tests"], "corrected raw corrected_unguarded raw_unguarded")
    assert figures["false_h1_at_elo0"] == figures["tests"]["corrected"]["false_h1_at_elo0"]  # what `arena sprt` runs
    has_keys(figures["populations"]["gap"], "pairs elo_raw elo_corrected variance_raw variance_corrected")
    assert figures["duplicate"] is False
    assert run_bench("sprt_check.py", "--smoke", "--duplicate")["duplicate"] is True


def test_strength() -> None:
    figures = run_bench("strength.py", "--games", "2", "--game", MODE, "--bots", "random,greedy", "--anchor", "none",
                        "--jobs", "1")
    has_keys(figures[MODE]["random vs greedy"], "games win_rate_a low high")


def test_mcts() -> None:
    has_keys(run_bench("mcts.py", "--iterations", "10", "--repeat", "1", "--game", MODE)[MODE],
             "arena_sims_per_s openspiel_sims_per_s ratio")


def test_analysis() -> None:
    has_keys(run_bench("analysis.py", "--budget", "10", "--game", MODE)[MODE],
             "decisions seconds ms_per_decision turning_points")


def test_analysis_quality_says_an_edge_it_did_not_measure_as_null_not_as_zero() -> None:
    """At the bench's default --matches a player has too few matches in a seat for an edge: null, not 0.0 (which
    is also what a measured edge of nothing reads)."""
    from bench.analysis_quality import _edge

    assert _edge(PlayerForm(0.02, 40, 4, 10.0)) is None
    assert _edge(PlayerForm(0.02, 40, 9, 10.0, edge=0.0, edge_error=0.01, edge_matches=8)) == 0.0
    assert _edge(PlayerForm(0.02, 40, 9, 10.0, edge=-0.123456, edge_error=0.01, edge_matches=9)) == -0.1235


def test_analysis_quality() -> None:
    figures = run_bench("analysis_quality.py", "--smoke", "--game", MODE)[MODE]
    has_keys(figures, "equal unequal planted first_position")
    has_keys(figures["equal"], "decisions brier brier_static bias sum jaccard continuity")
    has_keys(figures["equal"]["continuity"], "early early_pairs later later_pairs")
    assert set(figures["equal"]["per_budget"]) == {"10", "12"}  # (--smoke's --budgets)
    has_keys(figures["equal"]["per_budget"]["10"],
             "decisions sums turning_points_per_match bias bias_low bias_high sum sum_low sum_high "
             "turn_sums turn_sum turn_sum_low turn_sum_high")
    has_keys(figures["noise"], "decisions seeds spread_over_error raw_spread_over_error confirmed_spread_over_error "
                               "noise_scale spread error")
    has_keys(figures["unequal"]["players_model"], "brier bias decisions form edge seat_edge")
    has_keys(figures["planted"], "costly recall turning_points precision playouts costly_by_playouts "
             "playout_noise recall_vs_playouts precision_vs_playouts missed_drops mistakes")
    has_keys(figures["planted"]["recall_vs_playouts"], "hits of rate low high")
    has_keys(figures["planted"]["recall_vs_playouts_by_search"], "hits of rate low high")
    by_search, found = figures["planted"]["recall_vs_playouts_by_search"], figures["planted"]["recall_vs_playouts"]
    assert by_search["of"] == found["of"] and by_search["hits"] <= found["hits"]  # (the search's finds are among all)
    has_keys(figures["first_position"], "games first_mover_score low high analysed analysis_chance analysis_low "
             "analysis_high difference difference_low difference_high analysis_after after_difference")
    assert figures["first_position"]["games"] == 2 and figures["planted"]["playouts"] == 2  # (--smoke's sizes)
    first = figures["first_position"]  # (two games analysed: their intervals are measured)
    assert first["analysis_low"] <= first["analysis_chance"] <= first["analysis_high"]
    assert first["difference_low"] <= first["difference"] <= first["difference_high"]


def test_tournament() -> None:
    has_keys(run_bench("tournament.py", "--matches", "10", "--results", "100", "--repeat", "1"),
             "matches_per_s_c1 matches_per_s_c2 scaling rerate_100k_s cpu_ms_per_match_main cpu_ms_per_match_workers "
             "host_scaling command")


def test_luck_rollouts() -> None:
    figures = run_bench("luck_rollouts.py", "--games", "2", "--rollouts", "1", "--bootstrap", "5", "-j", "1")
    has_keys(figures, "mode games rollouts variance_raw variance_luck beta ratio_beta1 ratio_best ratio_best_interval "
             "correlation luck_per_event cpu_s_per_game command")
    has_keys(figures["correlation"], "r low high")
    has_keys(figures["luck_per_event"], "events mean low high")


def test_luck_par() -> None:
    figures = run_bench("luck_par.py", "--games", "4", "--replays", "1", "--bootstrap", "5", "-j", "1")
    has_keys(figures, "mode games replays proxies pairs command")
    assert set(figures["pairs"]) == {"scripted:scripted", "greedy:greedy"}
    for row in figures["pairs"].values():
        has_keys(row, "games mean_raw mean_corrected correlation ratio_beta1 pair_ratio pair_ratio_interval bias "
                 "match_cpu_ms par_cpu_ms")
        has_keys(row["correlation"], "r low high")
        has_keys(row["bias"], "mean low high")


def test_mg_tempo() -> None:
    figures = run_bench("mg_tempo.py", "--games", "6")
    has_keys(figures, "game games seed turn_starts shipped all greedy_vs_greedy by_scenario")
    has_keys(figures["all"], "turn_starts tempo_first tempo_second mse mse_without error_without error_shipped "
             "error_fitted error_shipped_by_turn")
    assert len(figures["all"]["error_shipped_by_turn"]) == 16
    has_keys(figures["all"], "tempo_by_turn error_fitted_by_turn")
    assert len(figures["all"]["tempo_by_turn"]) == 16
    assert set(figures["by_scenario"]) <= set(SCENARIO_IDS) and figures["by_scenario"]


def test_mg_tempo_writes_each_cards_tempos_by_turn_beside_the_others(tmp_path: Path) -> None:
    """--write FILE puts the card played in place of its own tempos and keeps every other card's."""
    target = tmp_path / "tempos.json"
    shutil.copy(knowledge.TEMPOS_FILE, target)
    before = json.loads(target.read_text())
    figures = run_bench("mg_tempo.py", "--game", "major-general/breakthrough", "--games", "6", "--write", str(target))
    assert figures["written"] == str(target)
    after = json.loads(target.read_text())
    assert set(after["cards"]) == set(before["cards"])
    for card, tempos in after["cards"].items():
        if card == "breakthrough":
            assert len(tempos) == 16 and "--game major-general/breakthrough" in after["fitted_by"][card]
        else:
            assert tempos == before["cards"][card]
