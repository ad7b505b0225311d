"""The calibration: the search's optimism is looked up by the family and the budget (a number of simulations),
interpolated in the budget's logarithm between the budgets it was measured at, the nearest one's beyond them,
and 0 for a budget in seconds or a family never measured; the scale of a drop's standard error the same way (1
where it was never measured)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import arena.analysis.calibration as calibration
from arena.agents import make_agent
from arena.analysis import DEFAULT_BUDGET, Analysis, Budget, measure_noise, measure_optimism
from arena.analysis.calibration import budgets, measured, noise_scale, optimism
from arena.analysis.match import analyse_record
from arena.games.registry import load_game
from arena.referee.authority import play_match


def test_the_shipped_calibration_has_budgets_100_and_400_for_every_family() -> None:
    default = Budget.parse(DEFAULT_BUDGET).simulations
    shipped = measured()
    assert set(shipped) == {"major-general", "general-orders-wwii", "general-orders-sengoku",
                            "general-orders-wwii/island"}  # (the families, and the one mode measured on its own)
    for family, entry in shipped.items():
        at = dict(budgets(family))
        # (measured, not assumed: at 400 Major General's is within its noise of 0, and shipped as measured even
        # a hair below it; what a search flatters itself by is a few hundredths at most)
        assert {100, default} <= set(at) and all(abs(value) < 0.05 for value in at.values())
        assert optimism(family, default) == at[default] == optimism(family, Budget.parse(f"{default} sims").simulations)
        assert all("command" in row and row["low"] <= row["optimism"] <= row["high"]
                   for row in entry["budgets"] if "optimism" in row)  # (800 has the noise's scale alone)
        assert optimism(family, Budget.parse("0.5s").simulations) == 0.0
    for family in measure_optimism.MODES:  # (the noise's scale: every family's, at both budgets; Island takes WWII's)
        scales = [row for row in shipped[family]["budgets"] if "noise_scale" in row]
        assert {row["simulations"] for row in scales} == {int(budget) for budget in measure_noise.BUDGETS} >= {default}
        assert all(row["noise_low"] <= row["noise_scale"] <= row["noise_high"] and 0.5 < row["noise_scale"] < 2
                   and row["noise_decisions"] >= 100 for row in scales)
    wwii = "general-orders-wwii"
    assert noise_scale(wwii, 100, f"{wwii}/island") == noise_scale(wwii, 100)
    assert optimism("no-such-family", default) == 0.0


def test_between_budgets_the_optimism_is_interpolated_in_the_log_and_held_beyond(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"f": {"mode": "m", "budgets": [{"simulations": 400, "optimism": 0.01},
                                                                {"simulations": 100, "optimism": 0.03}]}}))
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    assert budgets("f") == [(100, 0.03), (400, 0.01)]
    assert optimism("f", 100) == 0.03 and optimism("f", 400) == 0.01
    assert optimism("f", 200) == pytest.approx(0.02) and math.isclose(optimism("f", 50), 0.03)
    assert optimism("f", 1600) == 0.01 and optimism("f", None) == 0.0 and optimism("g", 100) == 0.0


def test_a_mode_measured_on_its_own_takes_its_own_optimism_and_the_others_their_familys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"f": {"mode": "f/a", "budgets": [{"simulations": 100, "optimism": 0.02}]},
                                "f/b": {"mode": "f/b", "budgets": [{"simulations": 100, "optimism": 0.05}]}}))
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    assert optimism("f", 100, "f/b") == 0.05  # its own
    assert optimism("f", 100, "f/a") == optimism("f", 100, "f/c") == optimism("f", 100) == 0.02  # the family's
    assert optimism("g", 100, "g/a") == 0.0


def test_the_analysis_of_a_match_takes_off_its_modes_own_optimism(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """analyse_record shifts every chance by its mode's optimism where the mode has one, not its family's."""
    game = load_game("major-general/no-scenario")
    record = play_match(game, [make_agent("random"), make_agent("random")], seed=3)
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    raw = analyse_record(record, "10", seed=1, calibrated=False)
    for family_shift, mode_shift in ((0.0, 0.2), (0.2, 0.0)):
        entries = {"major-general": {"mode": "major-general", "budgets": [{"simulations": 10,
                                                                             "optimism": family_shift}]}}
        if mode_shift:
            entries[game.name] = {"mode": game.name, "budgets": [{"simulations": 10, "optimism": mode_shift}]}
        path.write_text(json.dumps(entries))
        shifted = analyse_record(record, "10", seed=1)
        searched = [(a, b) for a, b in zip(raw.entries, shifted.entries) if not a.forced and 0.3 < a.before < 0.7]
        assert searched and all(b.before == pytest.approx(a.before - 0.2, abs=1e-6) for a, b in searched)


def test_measure_optimism_writes_a_modes_own_entry_beside_the_families(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calibration.json"
    family_entry = {"mode": "major-general", "budgets": [{"simulations": 100, "optimism": 0.01}]}
    path.write_text(json.dumps({"major-general": family_entry}))
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    monkeypatch.setattr(measure_optimism, "CALIBRATION", path)
    assert measure_optimism.main(["--matches", "1", "--budget", "10", "--mode", "major-general/no-scenario"]) == 0
    written = json.loads(path.read_text())
    assert written["major-general"] == family_entry  # (only the mode asked for is measured)
    [row] = written["major-general/no-scenario"]["budgets"]
    assert row["simulations"] == 10 and row["pairs"] > 0 and row["low"] <= row["optimism"] <= row["high"]
    assert "--mode major-general/no-scenario" in row["command"]
    assert optimism("major-general", 10, "major-general/no-scenario") == row["optimism"]


@pytest.mark.parametrize("module", [measure_optimism, measure_noise])
@pytest.mark.parametrize("arguments, says", [(["--mode", "no-such-mode"], "--mode no-such-mode: unknown game"),
                                             (["--family", "no-such-family"], "--family no-such-family: one of"),
                                             (["--budget", "0.5s"], "--budget 0.5s: the calibration is measured at"),
                                             (["--matches", "0"], "--matches 0: at least 1")])
def test_measuring_refuses_what_it_cannot_measure_before_playing_and_writes_nothing(
        module: Any, arguments: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(module, "CALIBRATION", path)
    monkeypatch.setattr(measure_optimism, "matches_of", lambda *_: pytest.fail("a match was played"))
    monkeypatch.setattr(measure_noise, "drop_noise", lambda *_: pytest.fail("a match was played"))
    with pytest.raises(SystemExit) as ended:
        module.main(["--matches", "1", *arguments])
    assert ended.value.code == 2 and says in capsys.readouterr().err and not path.exists()


def test_the_noise_scale_is_interpolated_as_the_optimism_is_and_is_1_where_never_measured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({
        "f": {"mode": "f/a", "budgets": [{"simulations": 100, "optimism": 0.03, "noise_scale": 1.0},
                                         {"simulations": 400, "optimism": 0.01, "noise_scale": 1.4}]},
        "f/b": {"mode": "f/b", "budgets": [{"simulations": 100, "optimism": 0.05}]},  # (its own optimism only)
        "g": {"mode": "g", "budgets": [{"simulations": 100, "optimism": 0.02}]}}))
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    assert noise_scale("f", 100) == 1.0 and noise_scale("f", 400) == 1.4 and noise_scale("f", 1600) == 1.4
    assert noise_scale("f", 200) == pytest.approx(1.2) and noise_scale("f", 50) == 1.0
    assert noise_scale("f", 400, "f/b") == 1.4  # a mode with an optimism of its own, but no scale: its family's
    assert optimism("f", 100, "f/b") == 0.05 and budgets("f/b", "noise_scale") == []
    assert noise_scale("g", 100) == noise_scale("h", 100) == noise_scale("f", None) == 1.0


def _unscaled_and_scaled(rows: list[dict[str, Any]], tmp_path: Path,
                         monkeypatch: pytest.MonkeyPatch) -> tuple[Analysis, Analysis]:
    """A Major General match of greedy against random analysed at 40 uncalibrated, and calibrated by `rows` alone."""
    record = play_match(load_game("major-general/no-scenario"), [make_agent("greedy"), make_agent("random")], seed=5)
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    unscaled = analyse_record(record, "40", seed=2, calibrated=False)
    path.write_text(json.dumps({"major-general": {"mode": "major-general", "budgets": rows}}))
    return unscaled, analyse_record(record, "40", seed=2)


def test_the_analysis_states_each_drops_standard_error_scaled_to_the_noise(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The same searches, their standard errors times the scale; and a drop clear of its noise at the
    simulations' own error but not at the scaled one is no turning point any more."""
    unscaled, scaled = _unscaled_and_scaled([{"simulations": 40, "optimism": 0.0, "noise_scale": 3.0}], tmp_path,
                                            monkeypatch)
    searched = [(a, b) for a, b in zip(unscaled.entries, scaled.entries) if not a.forced]
    assert searched and all(b.uncertainty == pytest.approx(3 * a.uncertainty) and b.drop == pytest.approx(a.drop)
                            for a, b in searched)
    assert any(a.uncertainty > 0 for a, _ in searched)
    assert all(point.drop >= 2 * point.uncertainty for point in scaled.turning_points if point.judged_by == "search")
    gone = {entry.decision for entry, _ in searched if 2 * entry.uncertainty <= entry.drop < 6 * entry.uncertainty
            and entry.drop >= 0.08} & {point.decision for point in unscaled.turning_points}
    assert gone and not gone & {point.decision for point in scaled.turning_points}


def test_a_confirming_search_has_its_error_scaled_at_its_own_budget_before_the_two_are_pooled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A drop searched again by a whole budget pools two judges: the analysis' at 40 (scale 1 here) and one that
    values each move as an analysis at 80 does (scale 3): only the confirmed entries' errors grow, and by less
    than 3 times."""
    unscaled, scaled = _unscaled_and_scaled([{"simulations": 40, "optimism": 0.0, "noise_scale": 1.0},
                                             {"simulations": 80, "noise_scale": 3.0}], tmp_path, monkeypatch)
    pairs = [(a, b) for a, b in zip(unscaled.entries, scaled.entries) if not a.forced]
    grown = [(a, b) for a, b in pairs if b.uncertainty != pytest.approx(a.uncertainty)]
    assert grown and all(a.uncertainty < b.uncertainty < 3 * a.uncertainty and a.drop >= 0.03 for a, b in grown)
    assert all(b.simulations > 40 for _, b in grown)  # (the confirming search's 40 came on top)


def test_with_playouts_a_drop_the_scale_leaves_unclear_is_checked_by_them(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The playouts' candidates are picked with the scaled errors: a seat with checks to spare has every move the
    search rates PLAYOUT_DROP under its best either a turning point by the search or checked."""
    from arena.analysis.match import PLAYOUT_CHECKS, PLAYOUT_DROP, TURNING_DROP, _by_search
    game = load_game("major-general/no-scenario")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=5)
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(calibration, "CALIBRATION", path)
    path.write_text(json.dumps({"major-general": {"mode": "major-general", "budgets": [
        {"simulations": 40, "optimism": 0.0, "noise_scale": 3.0}]}}))
    analysis = analyse_record(record, "40", seed=2, playouts=2)
    for seat in (0, 1):
        mine = [entry for entry in analysis.entries if entry.seat == seat and not entry.forced]
        if sum(entry.playout_cost is not None for entry in mine) < PLAYOUT_CHECKS:
            wide = [entry for entry in mine if entry.played != entry.best and entry.drop >= PLAYOUT_DROP]
            assert wide and all(_by_search(entry, TURNING_DROP) or entry.playout_cost is not None for entry in wide)


def test_a_budget_where_no_decision_was_measured_keeps_its_scale(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calibration.json"
    row = {"simulations": 10, "optimism": 0.01, "noise_scale": 1.3, "noise_low": 1.1, "noise_high": 1.5}
    path.write_text(json.dumps({"major-general": {"mode": "major-general", "budgets": [row]}}))
    for module in (calibration, measure_noise):
        monkeypatch.setattr(module, "CALIBRATION", path)
    monkeypatch.setattr(measure_noise, "drop_noise", lambda *_: [])
    assert measure_noise.main(["--matches", "1", "--budget", "10", "--family", "major-general"]) == 0
    assert json.loads(path.read_text())["major-general"]["budgets"] == [row]
    assert noise_scale("major-general", 10) == 1.3


def test_measure_noise_writes_its_scale_beside_the_optimism_and_measure_optimism_keeps_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"major-general": {"mode": "major-general", "budgets": [
        {"simulations": 10, "optimism": 0.01, "command": "earlier"}]}}))
    for module in (calibration, measure_optimism, measure_noise):
        monkeypatch.setattr(module, "CALIBRATION", path)
    assert measure_noise.main(["--matches", "2", "--budget", "10", "--budget", "16", "--family", "major-general"]) == 0
    rows = {row["simulations"]: row for row in json.loads(path.read_text())["major-general"]["budgets"]}
    assert rows[10]["optimism"] == 0.01 and rows[10]["command"] == "earlier"  # (kept)
    assert "optimism" not in rows[16]  # (measured for the noise alone: no optimism made up)
    for row in rows.values():
        assert row["noise_decisions"] > 0 and row["noise_low"] <= row["noise_scale"] <= row["noise_high"]
        assert "--family major-general" in row["noise_command"] and row["noise_matches"] == 2
    assert noise_scale("major-general", 10) == rows[10]["noise_scale"] and optimism("major-general", 16) == 0.01
    assert measure_optimism.main(["--matches", "1", "--budget", "10", "--family", "major-general"]) == 0
    again = {row["simulations"]: row for row in json.loads(path.read_text())["major-general"]["budgets"]}
    assert again[10]["noise_scale"] == rows[10]["noise_scale"] and again[10]["command"] != "earlier"
    assert again[16] == rows[16]
