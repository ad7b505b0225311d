"""Match analysis (arena analyse): it searches from the mover's information set only, finds a planted
blunder, its curve ends at the result, it is deterministic for a seed and a simulation budget, it is stored
with the match and shown by `arena replay`, the JSON API and `arena replay --html`, and a tournament run
analyses its matches in the background."""

from __future__ import annotations

import gzip
import json
import math
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.agents import make_agent
from arena.analysis import AnalysisError, Budget, analyse_decision, analyse_record
from arena.cli.main import app
from arena.games.general_orders.core import PASS
from arena.games.registry import load_game
from arena.referee.authority import play_match
from arena.referee.record import MatchRecord
from arena.store import Store
from tests.games.general_orders.helpers import ALPINE, build_position, deploy

SMALL = Budget(simulations=24)


def _states_at_decisions(record: MatchRecord, every: int) -> list[tuple[object, int, int]]:
    """(state before the decision, the move played, decision index) at every `every`-th decision."""
    game = load_game(record.game, record.options)
    state = game.new_initial_state()
    found, decision = [], 0
    for step in record.steps:
        if not step.is_chance:
            if decision % every == 0:
                found.append((state.clone(), step.action, decision))
            decision += 1
        state.apply_action(step.action)
    return found


@pytest.mark.parametrize("name", ["major-general", "general-orders-wwii/island", "general-orders-sengoku/rivers"])
def test_the_analysis_reads_only_the_movers_information_set(name: str) -> None:
    """Worlds that agree on what the mover sees but differ in the hidden cards give the same analysis."""
    game = load_game(name)
    record = play_match(game, [make_agent("greedy"), make_agent("scripted")], seed=21)
    differed = 0
    for state, played, decision in _states_at_decisions(record, every=6):
        mover = state.current_player()
        seen = state.observation(mover)
        other = game.determinize(seen, random.Random(decision))  # the same view, the hidden cards resampled
        assert other.observation(mover) == seen and other.legal_actions() == state.legal_actions()
        differed += other.observation(1 - mover) != state.observation(1 - mover)
        assert (analyse_decision(game, state, played, SMALL, 5, decision=decision)
                == analyse_decision(game, other, played, SMALL, 5, decision=decision))
    assert differed, "no resampled world differed from the truth: the test would prove nothing"


def test_a_planted_blunder_is_found() -> None:
    """Both HQs can be taken this turn; Blue moves first and passes instead of advancing on Yellow's HQ."""
    troops = {"B-HQ": (1, 0), "B-C1": (1, 0), "B-C2": (1, 0), "M-CW": (1, 0), "Y-C2": (1, 0), "Y-C1": (5, 0),
              "Y-HQ": (0, 1), "Y-W1": (0, 1), "Y-W2": (0, 1), "M-W": (0, 1), "B-W2": (0, 1), "B-W1": (0, 5)}
    state = build_position(ALPINE, troops=troops)
    blunder = analyse_decision(ALPINE, state.clone(), PASS, Budget(simulations=200), 1)
    assert blunder.played == "Blue: pass" and blunder.best == "Blue: deploy a commander to Advance Y-HQ"
    assert blunder.before > 0.9 and blunder.drop > 0.15
    good = analyse_decision(ALPINE, state.clone(), deploy(ALPINE, "advance", "Y-HQ"), Budget(simulations=200), 1)
    assert good.drop == 0 and good.played == good.best


def test_one_entry_per_decision_the_curve_ends_at_the_result_and_a_seed_repeats_it() -> None:
    game = load_game("general-orders-wwii/alpine")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=4)
    analysis = analyse_record(record, SMALL, seed=3)
    decisions = [i for i, step in enumerate(record.steps) if not step.is_chance]
    assert [entry.step for entry in analysis.entries] == decisions
    assert all(record.steps[e.step].seat == e.seat and record.steps[e.step].label == e.played
               for e in analysis.entries)
    assert all(0 <= e.after <= 1 and 0 <= e.before <= 1 for e in analysis.entries)
    curve = analysis.curve()
    assert record.result is not None and record.result.winners == (0,)
    assert curve[0][-1] == 1.0 and curve[1][-1] == 0.0 and len(curve[0]) == len(decisions) + 1
    assert curve[0][0] == pytest.approx(analysis.entries[0].before)  # Blue moves first
    again = analyse_record(record, SMALL, seed=3)
    assert {**again.to_json(), "seconds": 0} == {**analysis.to_json(), "seconds": 0}
    assert all(p.drop >= 0.08 and p.played != p.best for p in analysis.turning_points)


def test_budgets_are_simulations_or_seconds() -> None:
    assert Budget.parse("400") == Budget(simulations=400) and Budget.parse("0.5s") == Budget(seconds=0.5)
    for bad in ("1", "fast", "0s", "2.5"):
        with pytest.raises(AnalysisError):
            Budget.parse(bad)


@pytest.fixture
def stored(tmp_path: Path) -> tuple[str, Store]:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    runner = CliRunner()
    result = runner.invoke(app, ["tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "1",
                                 "--db", url, "--no-standings", "--seed", "2"])
    assert result.exit_code == 0, result.output
    return url, Store.open(url)


def test_arena_analyse_stores_the_analysis_and_replay_shows_it(stored: tuple[str, Store], tmp_path: Path) -> None:
    url, store = stored
    runner = CliRunner()
    result = runner.invoke(app, ["analyse", "1", "--db", url, "--budget", "30", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    row = store.matches.get(1)
    assert row is not None and len(document["decisions"]) == row.decisions
    assert {"before", "after", "best", "played", "seat"} <= set(document["decisions"][0])
    stored_data = store.analyses.get(1)
    assert stored_data is not None and json.loads(gzip.decompress(stored_data))["decisions"] == document["decisions"]
    shown = runner.invoke(app, ["replay", "1", "--db", url])
    assert shown.exit_code == 0 and "Red" in shown.output and "->" in shown.output
    page = tmp_path / "match.html"
    assert runner.invoke(app, ["replay", "1", "--db", url, "--html", str(page)]).exit_code == 0
    assert '"turning_points"' in page.read_text()
    record_file = tmp_path / "match.jsonl.gz"
    found = store.matches.get(2)
    assert found is not None
    record_file.write_bytes(store.matches.record(found))
    from_file = runner.invoke(app, ["analyse", str(record_file), "--budget", "30", "--json"])
    assert from_file.exit_code == 0 and store.analyses.get(2) is None  # a file is analysed, not stored
    refused = runner.invoke(app, ["analyse", "1", "--db", url, "--budget", "1"])
    assert refused.exit_code != 0 and "a whole number of simulations" in str(refused.exception)


def test_a_tournament_run_analyses_its_matches_in_the_background(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    result = CliRunner().invoke(app, ["tournament", "run", "major-general", "--bots", "random,greedy,scripted",
                                      "--rounds", "1", "--db", url, "--no-standings", "--analyse", "16"])
    assert result.exit_code == 0, result.output
    store = Store.open(url)
    assert store.analyses.unanalysed([1]) == [] and len(store.matches.of_tournament(1)) == 6
    assert all(store.analyses.get(match.id) is not None for match in store.matches.of_tournament(1))


def test_arena_analyse_catches_up_with_a_tournament(stored: tuple[str, Store]) -> None:
    url, store = stored
    runner = CliRunner()
    first = runner.invoke(app, ["analyse", "--tournament", "1", "--db", url, "--budget", "16", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout) == {"analysed": 2, "not_analysed": []}
    assert store.analyses.unanalysed([1]) == []
    again = runner.invoke(app, ["analyse", "--tournament", "1", "--db", url, "--json"])
    assert json.loads(again.stdout)["analysed"] == 0  # nothing left
    neither = runner.invoke(app, ["analyse", "--db", url])
    assert neither.exit_code != 0 and "one of the two" in str(neither.exception)


def test_forced_moves_are_not_searched_and_take_the_next_positions_chance() -> None:
    game = load_game("general-orders-wwii/alpine")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=4)
    analysis = analyse_record(record, SMALL, seed=3)
    forced = [entry for entry in analysis.entries if entry.moves == 1]
    assert forced, "no forced decision in this match: the test would prove nothing"
    assert all(entry.forced and entry.simulations == 0 and entry.before == entry.after for entry in forced)
    assert all(not entry.forced and entry.simulations > 0 for entry in analysis.entries if entry.moves > 1)
    by_index = analysis.entries
    for index, entry in enumerate(by_index[:-1]):  # the next position's chance, from this mover's side
        following = by_index[index + 1]
        if entry.forced and not following.forced and record.steps[entry.step + 1] is record.steps[following.step]:
            mine = following.before if following.seat == entry.seat else 1 - following.before
            assert entry.before == pytest.approx(mine)


def test_turning_points_are_clear_of_the_searchs_noise_and_say_how_sure() -> None:
    game = load_game("major-general")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=9)
    analysis = analyse_record(record, Budget(simulations=100), seed=1)
    assert all(entry.uncertainty >= 0 and entry.static is not None and 0 <= entry.static <= 1
               for entry in analysis.entries)
    for point in analysis.turning_points:
        assert point.drop >= 0.08 and point.drop >= 2 * point.uncertainty
        assert point.confidence == ("clear" if point.drop >= 3 * point.uncertainty else "likely")
    noisy = [e for e in analysis.entries if e.drop >= 0.08 and e.drop < 2 * e.uncertainty and e.played != e.best]
    points = {p.decision: p.judged_by for p in analysis.turning_points}
    assert all(points.get(e.decision, "playouts") == "playouts" for e in noisy)  # (its playouts may find it)


def test_the_json_is_the_same_every_time_without_timings_and_old_analyses_still_load() -> None:
    from arena.analysis import Analysis

    record = play_match(load_game("major-general"), [make_agent("greedy"), make_agent("random")], seed=6)
    first = json.dumps(analyse_record(record, SMALL, seed=2).to_json(timings=False))
    assert json.dumps(analyse_record(record, SMALL, seed=2).to_json(timings=False)) == first
    assert "seconds" not in json.loads(first) and "if both sides played on like Arena's search" in first
    old = json.loads(first)
    for entry in old["decisions"]:  # an analysis stored before these fields existed
        for key in ("uncertainty", "static", "forced"):
            entry.pop(key)
    for point in old["turning_points"]:
        point.pop("uncertainty"), point.pop("confidence")
    assert len(Analysis.from_json(old).entries) == len(old["decisions"])


def test_arena_analyse_as_a_bot_tells_it_from_its_side(tmp_path: Path) -> None:
    record = play_match(load_game("major-general"), [make_agent("greedy"), make_agent("random")], seed=6)
    path = tmp_path / "match.jsonl"
    record.write(path)
    runner = CliRunner()
    shown = runner.invoke(app, ["analyse", str(path), "--budget", "24", "--as", "random"])
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    assert "Yellow (random)" in text.split("static")[0] or "Red (random)" in text  # its seat named first
    assert "if both sides played on like Arena's search" in text and "static" in text
    assert re.search(r"\((random)\) (won|lost|drew): (gained|lost) [\d.]+ of a game to the dice and draws", text), text
    refused = runner.invoke(app, ["analyse", str(path), "--budget", "24", "--as", "nobody"])
    assert refused.exit_code != 0
    assert "'nobody' did not play" in str(refused.exception) + refused.output
    as_json = runner.invoke(app, ["analyse", str(path), "--budget", "24", "--as", "greedy", "--json"])
    assert json.loads(as_json.output)["as"] == {"bot": "greedy", "seat": 0} and "seconds" not in as_json.output
    assert json.loads(as_json.output)["playouts"] == 0
    checked = json.loads(runner.invoke(app, ["analyse", str(path), "--budget", "24", "--playouts", "2",
                                             "--json"]).output)
    assert checked["playouts"] == 2 and any(entry["playout_cost"] is not None for entry in checked["decisions"])
    assert runner.invoke(app, ["analyse", str(path), "--playouts", "-1"]).exit_code == 2


def _slid(seat_drops: list[float], result: tuple[float, float]) -> "Analysis":
    """An analysis where seat 0 moves every other decision, losing `seat_drops[i]` of its chance each time,
    never enough for a turning point."""
    from arena.analysis import Analysis
    from arena.analysis.match import DecisionEntry
    from arena.luck import MatchLuck

    entries, chance = [], 0.7
    for n, drop in enumerate(seat_drops):
        entries.append(DecisionEntry(2 * n, 2 * n, 0, "a move", "a better move", chance, chance - drop, 5, 24))
        chance -= drop
        entries.append(DecisionEntry(2 * n + 1, 2 * n + 1, 1, "a reply", "a reply", 1 - chance, 1 - chance, 5, 24))
    return Analysis("m1", "major-general", {}, "400", 0, ("Red", "Blue"), tuple(entries), result,
                    luck=MatchLuck(seats=(-0.1, 0.1), events=(), model="", beta=1.0))


def test_a_loss_without_a_turning_point_is_told_as_a_slide_and_a_closer_budget_named() -> None:
    analysis = _slid([0.05] * 10, (0.0, 1.0))
    [slide] = analysis.slides()  # 70% -> 0% with no move losing more than 5%
    assert slide.seat == 0 and slide.start == pytest.approx(0.7) and slide.end == 0.0
    assert slide.own_moves == pytest.approx(0.5) and slide.costly_moves == 10 and slide.largest == pytest.approx(0.05)
    assert slide.luck == pytest.approx(-0.1)
    assert analysis.closer_budget() == "2000"
    document = analysis.to_json(timings=False)
    assert document["slides"] == [slide.to_json()] and document["closer_budget"] == "2000"
    assert not _slid([0.01] * 3, (0.5, 0.5)).slides()  # a small fall is no slide
    from dataclasses import replace
    assert replace(analysis, budget="0.5s").closer_budget() == "2.5s"


def test_arena_analyse_says_how_a_slide_was_lost(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.show import show_analysis

    show_analysis(_slid([0.05] * 10, (0.0, 1.0)), source="42")
    out = " ".join(capsys.readouterr().out.split())
    assert "no turning point" in out and "Red slid from 70% to 0% with no single turning point" in out
    assert "its own moves cost 50% in all (10 of them lost some, at most 5% at once), chance -10%" in out
    assert "out-played a little at a time" in out and "arena analyse 42 --budget 2000" in out


def test_a_slide_whose_own_moves_gained_says_so_without_a_double_negative(capsys: pytest.CaptureFixture[str],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat can slide while its own moves gained a little by the search's reading: "gained 3%", never "cost -3%",
    and "none of them lost any" where none did."""
    from dataclasses import replace

    from arena.analysis import Analysis
    from arena.analysis.match import Slide
    from arena.cli.show import show_analysis

    analysis = _slid([0.05] * 10, (0.0, 1.0))
    gained = Slide(0, 0.7, 0.0, -0.03, 0, -0.001, None)
    monkeypatch.setattr(Analysis, "slides", lambda self: [gained])
    show_analysis(analysis, source="42")
    out = " ".join(capsys.readouterr().out.split())
    assert "its own moves gained 3% in all (none of them lost any); the rest" in out, out
    assert "cost -" not in out and "-0%" not in out
    monkeypatch.setattr(Analysis, "slides", lambda self: [replace(gained, own_moves=0.04, costly_moves=2,
                                                                  largest=0.02)])
    show_analysis(analysis, source="42")
    assert "its own moves cost 4% in all (2 of them lost some, at most 2% at once)" in " ".join(
        capsys.readouterr().out.split())


def test_a_turning_point_is_named_as_the_match_numbers_its_moments(capsys: pytest.CaptureFixture[str]) -> None:
    """One numbering (issue 45): `arena analyse` and its JSON name a turning point "decision 14 (step 28)", the
    decision counted over the match from 1 and the step as `arena replay` and the page number it (chance steps
    counted); the JSON keeps its indexes (from 0) beside it."""
    from arena.analysis import Analysis
    from arena.analysis.match import DecisionEntry, turning_points
    from arena.cli.show import show_analysis

    record = play_match(load_game("major-general"), [make_agent("random"), make_agent("random")], seed=5)
    at = record.step_of_decision(14)
    assert at is not None and at > 14  # (chance steps came before it: the two numbers differ)
    entries = []
    for index, (step, decision) in enumerate(zip(record.steps, record.decision_numbers())):
        if decision is not None:
            after = 0.2 if decision == 14 else 0.5
            entries.append(DecisionEntry(decision - 1, index, step.seat, step.label, "a better move" if decision == 14
                                         else step.label, 0.5 if decision != 14 else 0.8, after, 5, 24, 0.01))
    analysis = Analysis(record.match_id, record.game, {}, "24", 0, ("Yellow", "Red"), tuple(entries), (1.0, 0.0),
                        turning_points=tuple(turning_points(entries)))
    [point] = analysis.turning_points
    assert point.moment == f"decision 14 (step {at})"
    document = analysis.to_json(timings=False)
    [shown] = document["turning_points"]
    assert shown["moment"] == f"decision 14 (step {at})" and shown["decision"] == 13 and shown["step"] == at - 1
    assert document["decisions"][13]["moment"] == f"decision 14 (step {at})"
    show_analysis(analysis, source="m")
    out = " ".join(capsys.readouterr().out.split())
    assert f"decision 14 (step {at})" in out and f"at decision 14 (step {at}) (its largest turning point)" in out


def test_the_analysers_share_rests_only_when_the_machine_is_busy() -> None:
    """CpuShare: while the process gets a core whole it never rests; once it had to wait for one (CPU time
    behind wall time), it rests until its use is back to its share, and no further."""
    from arena.analysis.background import CpuShare

    now = {"cpu": 0.0, "wall": 0.0}
    rests: list[float] = []

    def rest(seconds: float) -> None:
        rests.append(seconds)
        now["wall"] += seconds

    share = CpuShare(0.2, cpu=lambda: now["cpu"], clock=lambda: now["wall"], sleep=rest)
    for _ in range(10):  # a free core: a second of CPU per second of wall time
        now["cpu"] += 1.0
        now["wall"] += 1.0
        share()
    assert rests == []
    for _ in range(10):  # a busy machine: a third of a core got
        now["cpu"] += 1 / 3
        now["wall"] += 1.0
        share(1, 10)
    assert rests and all(value == pytest.approx(1 / 3 / 0.2 - 1.0) for value in rests)  # back to a fifth, exactly
    busy_cpu, busy_wall = 10 / 3, 10.0 + sum(rests)
    assert busy_cpu / busy_wall == pytest.approx(0.2)


def test_a_drops_standard_error_comes_from_the_spread_of_its_own_simulations() -> None:
    """The search reports each searched move's simulations apart from the prior's virtual visits, and their
    value variance (their spread); the analysis builds a drop's standard error from those, floored at
    MIN_VARIANCE."""
    from arena.agents.base import DecisionRequest
    from arena.agents.mcts import MCTSAgent
    from arena.analysis.match import MIN_VARIANCE, _judged

    game = load_game("general-orders-wwii/alpine")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=4)
    state, played, _ = next((s, a, d) for s, a, d in _states_at_decisions(record, every=1)
                            if len(s.legal_actions()) >= 3)
    seat, legal = state.current_player(), state.legal_actions()
    searcher = MCTSAgent(iterations=60, keep_tree=False)
    searcher.reset(game, seat, 3)
    valued = searcher.move_values(DecisionRequest(seat, legal, state.observation(seat)), include=(played,))
    assert set(valued.variances) == set(valued.simulated) == set(valued.values)
    assert all(0 <= v <= 1 for v in valued.variances.values())
    assert all(valued.simulated[a][1] == visits - searcher.prior_visits for a, (_, visits) in valued.values.items())
    best = valued.best if valued.best != played else next(a for a in legal if a != played)
    judge = MCTSAgent(iterations=60, keep_tree=False, turn_aware=True)  # (the judge's own search, as _judged's)
    judge.reset(game, seat, 3)
    valued = judge.value_moves(DecisionRequest(seat, legal, state.observation(seat)), (best, played), 30)
    _, _, error, _ = _judged(game, seat, legal, state.observation(seat), played, best, Budget(simulations=60), 3)
    (_, visits_best), (_, visits_played) = valued.simulated[best], valued.simulated[played]
    assert visits_best == visits_played == 30  # (each move half the judge's budget, however it rates)
    expected = math.sqrt(max(MIN_VARIANCE, valued.variances[best]) / visits_best
                         + max(MIN_VARIANCE, valued.variances[played]) / visits_played) / 2
    assert error == pytest.approx(expected) and 0 < error < math.sqrt(1 / visits_best + 1 / visits_played) / 2


def test_turn_sums_add_each_sides_estimate_on_its_own_turn_with_the_drops_between_accounted() -> None:
    from arena.analysis import Analysis
    from arena.analysis.match import DecisionEntry

    def entry(decision: int, seat: int, before: float, after: float, turn: bool) -> DecisionEntry:
        return DecisionEntry(decision, decision, seat, "m", "m", before, after, 5, 24, turn=turn)

    # seat 0 starts a turn at 0.6 (flattered by 0.05), loses 0.02 on a choice, seat 1 gains nothing on one,
    # then seat 1 starts its turn at 0.47 (flattered by 0.05 too): 0.6 - 0.02 + 0.47 = 1.05
    entries = (entry(0, 0, 0.6, 0.6, True), entry(1, 0, 0.57, 0.55, False), entry(2, 1, 0.46, 0.46, False),
               entry(3, 1, 0.47, 0.47, True), entry(4, 1, 0.5, 0.5, True))  # (the same seat again: no pair)
    analysis = Analysis("m1", "major-general", {}, "400", 0, ("Yellow", "Red"), entries, (0.0, 1.0))
    assert analysis.turn_sums() == pytest.approx([1.05])
    assert all("turn" in decision for decision in analysis.to_json()["decisions"])
    assert Analysis.from_json(analysis.to_json()).entries == entries


def test_a_decision_knows_whether_it_starts_a_turn() -> None:
    game = load_game("major-general")
    record = play_match(game, [make_agent("greedy"), make_agent("greedy")], seed=3)
    analysis = analyse_record(record, "10", seed=0)
    turns = [entry for entry in analysis.entries if entry.turn]
    assert turns and len(turns) < len(analysis.entries)  # (card placements start turns; command choices do not)
    assert all(value > 0 for value in analysis.turn_sums())


def test_a_move_the_search_rates_well_is_a_turning_point_when_its_playouts_clearly_cost() -> None:
    from arena.analysis.match import DecisionEntry, turning_points

    def entry(decision: int, drop: float, cost: float | None, error: float) -> DecisionEntry:
        return DecisionEntry(decision, 2 * decision, 0, f"move {decision}", "searched best", 0.6, 0.6 - drop, 5, 100,
                             uncertainty=0.02, playout_cost=cost, playout_error=error, playout_best="greedy's pick")

    points = turning_points([entry(0, 0.01, 0.30, 0.05),  # the search saw nothing, the playouts a clear cost
                             entry(1, 0.01, 0.30, 0.20),  # ... a cost within their noise
                             entry(2, 0.20, 0.30, 0.05),  # the search's own turning point
                             entry(3, 0.01, None, 0.0)])  # not checked
    assert [(p.decision, p.judged_by) for p in points] == [(0, "playouts"), (2, "search")]
    by_playouts, by_search = points
    assert by_playouts.best == "greedy's pick" and by_playouts.drop == 0.30 and by_playouts.uncertainty == 0.05
    assert by_playouts.kept == pytest.approx(0.59 + 0.30) and by_playouts.confidence == "clear"
    assert by_search.best == "searched best" and by_search.drop == pytest.approx(0.20) and by_search.kept == 0.6


def test_the_playout_check_reads_only_the_movers_information_set() -> None:
    """Its playouts start from worlds sampled from the mover's view: a world with the same view but other hidden
    cards is checked alike."""
    from arena.analysis.match import _playout_check

    game = load_game("major-general")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=21)
    checked = differed = 0
    for state, played, decision in _states_at_decisions(record, every=4):
        mover = state.current_player()
        seen = state.observation(mover)
        other = game.determinize(seen, random.Random(decision))
        entry = analyse_decision(game, state, played, SMALL, 5, decision=decision)
        others = [action for action in state.legal_actions() if action != played]
        if entry.forced or not others:
            continue
        differed += other.observation(1 - mover) != state.observation(1 - mover)
        found = _playout_check(game, state, entry, played, others[0], 4, 7)
        assert found.playout_cost is not None and found.playout_best
        assert _playout_check(game, other, entry, played, others[0], 4, 7) == found
        checked += 1
    assert checked and differed, "nothing checked, or no resampled world differed from the truth"


def test_asked_for_the_playouts_check_at_most_a_few_candidates_a_seat_and_repeat_with_the_seed() -> None:
    from arena.analysis.match import PLAYOUT_CHECKS

    record = play_match(load_game("major-general"), [make_agent("random"), make_agent("greedy")], seed=3)
    plain = analyse_record(record, SMALL, seed=1)
    assert all(entry.playout_cost is None for entry in plain.entries) and plain.to_json()["playouts"] == 0
    analysis = analyse_record(record, SMALL, seed=1, playouts=8)
    assert analysis.to_json()["playouts"] == 8
    assert [replace(entry, playout_cost=None, playout_error=0.0, playout_best="") for entry in analysis.entries] == \
        list(plain.entries)  # the search's chances are the same: the playouts only find turning points
    checked = [entry for entry in analysis.entries if entry.playout_cost is not None]
    assert checked and all(sum(entry.seat == seat for entry in checked) <= PLAYOUT_CHECKS for seat in (0, 1))
    assert all(entry.playout_best and entry.playout_best != entry.played and entry.playout_error >= 0
               for entry in checked)
    for point in analysis.turning_points:
        if point.judged_by == "playouts":
            entry = analysis.entries[point.decision]
            assert point.drop == entry.playout_cost and point.drop >= 2 * point.uncertainty
    again = analyse_record(record, SMALL, seed=1, playouts=8)  # the same, playouts and all
    assert again.to_json(timings=False) == analysis.to_json(timings=False)
