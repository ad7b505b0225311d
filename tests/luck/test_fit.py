"""The value models' files and their fit: every feature named (the names stand where the knowledge module puts
each feature, and the shipped models carry them), and a fit that cannot be made is an error the command turns into
its exit status, not an exit from inside the library."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.agents.knowledge import knowledge_for
from arena.games.base import CHANCE
from arena.games.registry import load_game
from arena.luck.features import INPUTS, MAJOR_GENERAL_HAND_DECK, feature_names
from arena.luck.fit import FitError, fit, main, named_features
from arena.luck.model import ValueModel, clear_model_cache, model_for, model_path

MODES = {"major-general": "major-general", "general-orders-wwii": "general-orders-wwii/alpine",
         "general-orders-sengoku": "general-orders-sengoku/rivers"}


@pytest.mark.parametrize("family", sorted(MODES))
def test_every_value_feature_is_named_and_the_shipped_model_says_the_names(family: str) -> None:
    game = load_game(MODES[family])
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.chance_outcomes()[0][0])
    features = knowledge_for(game).value_features
    assert features is not None
    names = named_features(family)
    assert names == feature_names(game) and len(names) == len(features(state)) == len(set(names))
    assert all(name.isidentifier() and not re.fullmatch(r"f\d+", name) for name in names)  # words, not f0, f1...
    shipped = json.loads(model_path(family).read_text())
    assert tuple(shipped["features"]) == names and len(shipped["weights"]) == len(names) + 1
    clear_model_cache()  # (read afresh: the same model)
    model = model_for(game)
    assert model is not None and model.features == names


def test_an_unknown_family_is_an_error_and_the_command_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(FitError, match="no game family 'chess'"):
        fit("chess", games=1, validation=1, jobs=1)
    assert main(["chess", "--games", "1", "--validation", "1", "-j", "1"]) == 2
    assert "no game family 'chess'" in capsys.readouterr().err


def test_a_candidate_is_written_where_asked_with_its_lookahead_and_the_shipped_model_is_left_alone(
        tmp_path: Path) -> None:
    shipped = model_path("major-general").read_text()
    out = tmp_path / "candidate.json"
    assert main(["major-general", "--games", "4", "--validation", "4", "--lookahead", "40", "--out", str(out),
                 "-j", "1"]) == 0
    assert model_path("major-general").read_text() == shipped
    written = json.loads(out.read_text())
    assert written["lookahead"] == 40 and written["fit"]["command"].endswith(f"--lookahead 40 --out {out}")
    assert written["version"] == json.loads(shipped)["version"] + 1 and 0.0 <= written["beta"] <= 1.0


def test_a_model_fitted_to_rollout_values_reads_its_inputs_and_says_how_it_was_labelled(tmp_path: Path) -> None:
    """`--rollouts K --inputs hand_deck`: every chance outcome's position labelled by the scripted players' own
    rollouts, the model reading Major General's hands and decks; the file keeps both, and its luck is still zero in
    expectation (the value is a function of the position)."""
    out = tmp_path / "rollouts.json"
    assert main(["major-general", "--games", "1", "--validation", "2", "--players", "scripted", "--rollouts", "1",
                 "--inputs", "hand_deck", "--l2", "100", "--out", str(out), "-j", "1"]) == 0
    written = json.loads(out.read_text())
    assert written["inputs"] == "hand_deck" and written["features"] == list(MAJOR_GENERAL_HAND_DECK)
    assert len(written["weights"]) == len(MAJOR_GENERAL_HAND_DECK) + 1
    assert written["fit"]["corpus"]["labels"] == "1 scripted rollouts per chance outcome"
    assert "--rollouts 1 --l2 100 --inputs hand_deck" in written["fit"]["command"]
    model = ValueModel.from_json(written)
    game = load_game("major-general")
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.chance_outcomes()[0][0])
    assert len(INPUTS["hand_deck"][1](state)) == len(MAJOR_GENERAL_HAND_DECK) == len(set(MAJOR_GENERAL_HAND_DECK))
    assert 0.0 < model.chance(game, state) < 1.0
    with pytest.raises(FitError, match="no inputs"):
        fit("major-general", 1, 1, 1, ("scripted",), inputs="nothing", out=tmp_path / "x.json")


def test_a_model_file_without_inputs_reads_the_family_value_features() -> None:
    shipped = json.loads(model_path("major-general").read_text())
    assert "inputs" not in shipped and ValueModel.from_json(shipped).inputs == "value"
    assert "inputs" not in ValueModel.from_json(shipped).to_json()  # (written as before)



@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_the_validation_games_luck_is_measured_with_the_model_just_fitted_however_the_pool_starts(
        method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fit's pool starts from a fork server where this process runs other threads (a fork copies only the
    forking thread; a pool worker forked beside gRPC's threads crashed and the fit waited for ever), and such a
    worker shares none of this process' globals: the model the validation games' luck is measured with travels
    in each task. A flat model (every chance 1/2) gives every game no luck at all; the shipped one does not."""
    from arena.luck import fit as fitting

    names = named_features("major-general")
    flat = ValueModel("major-general", 99, names, (0.0,) * (len(names) + 1), 1.0)
    monkeypatch.setattr(fitting, "worker_start_method", lambda: method)
    games = fitting._play(["major-general"], fitting.VALIDATION_KEY, 4, 2, ("random", "greedy"), flat)
    assert len(games) == 4 and all(abs(luck) < 1e-12 for _, _, _, luck in games)
    unmeasured = fitting._play(["major-general"], fitting.VALIDATION_KEY, 2, 2, ("random", "greedy"))
    assert all(luck != luck for _, _, _, luck in unmeasured)  # (nan: no model, no luck)
    shipped = model_for(load_game("major-general"))
    assert shipped is not None
    task = ("major-general", fitting.VALIDATION_KEY, 0, shipped, ("random", "greedy"), 0)
    assert abs(fitting._game_task(task)[3]) > 1e-3  # (the test has teeth: a real model's luck is not zero)
