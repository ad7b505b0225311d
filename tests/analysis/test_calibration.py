"""The calibration: the search's optimism is looked up by the family and the budget (a number of simulations),
interpolated in the budget's logarithm between the budgets it was measured at, the nearest one's beyond them,
and 0 for a budget in seconds or a family never measured."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import arena.analysis.calibration as calibration
from arena.agents import make_agent
from arena.analysis import DEFAULT_BUDGET, Budget, measure_optimism
from arena.analysis.calibration import budgets, measured, optimism
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
        assert all("command" in row and row["low"] <= row["optimism"] <= row["high"] for row in entry["budgets"])
        assert optimism(family, Budget.parse("0.5s").simulations) == 0.0
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


@pytest.mark.parametrize("arguments, says", [(["--mode", "no-such-mode"], "--mode no-such-mode: unknown game"),
                                             (["--family", "no-such-family"], "--family no-such-family: one of"),
                                             (["--budget", "0.5s"], "--budget 0.5s: the optimism is measured at")])
def test_measure_optimism_refuses_what_it_cannot_measure_before_playing_and_writes_nothing(
        arguments: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(measure_optimism, "CALIBRATION", path)
    monkeypatch.setattr(measure_optimism, "matches_of", lambda *_: pytest.fail("a match was played"))
    with pytest.raises(SystemExit) as ended:
        measure_optimism.main(["--matches", "1", *arguments])
    assert ended.value.code == 2 and says in capsys.readouterr().err and not path.exists()
