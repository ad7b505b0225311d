"""The players' model (arena.analysis.players): a match's chances as its players play, from their forms in their
other analysed matches; stored with a stored match's analysis, in the JSON, said by `arena analyse`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.analysis import Analysis
from arena.analysis.match import DecisionEntry
from arena.analysis.players import MIN_DECISIONS, WEAKER, PlayerForm, expected_chances, form_of
from arena.cli.main import app
from arena.cli.show import show_analysis
from arena.store import Store


def _match(drops: tuple[float, float], decisions: int = 10, before: float = 0.5,
           result: tuple[float, float] = (1.0, 0.0)) -> Analysis:
    """Seats moving in turn, `decisions` each, each of seat s's moves losing drops[s]; every third of seat 1's
    forced (not searched: it does not count in a form)."""
    entries = []
    for n in range(2 * decisions):
        seat = n % 2
        forced = seat == 1 and n % 3 == 0
        drop = 0.0 if forced else drops[seat]
        entries.append(DecisionEntry(n, n, seat, "a move", "a better move", before, before - drop, 4, 24,
                                     forced=forced))
    return Analysis("m", "major-general", {}, "400", 0, ("Yellow", "Red"), tuple(entries), result)


def _moves(analysis: Analysis) -> list[tuple[int, float, bool]]:
    return [(entry.seat, entry.before, entry.forced) for entry in analysis.entries]


def test_a_form_is_the_mean_drop_of_a_players_searched_decisions_in_its_other_matches() -> None:
    form = form_of([_match((0.02, 0.0), decisions=15).searched_drops(0),
                    _match((0.0, 0.04), decisions=15).searched_drops(1)])
    assert form is not None and form.matches == 2
    searched_of_seat_1 = sum(1 for entry in _match((0.0, 0.04), decisions=15).entries
                             if entry.seat == 1 and not entry.forced)
    assert form.decisions == 15 + searched_of_seat_1 and searched_of_seat_1 < 15
    assert form.drop == pytest.approx((15 * 0.02 + searched_of_seat_1 * 0.04) / form.decisions)
    assert form.per_match == pytest.approx((15 + searched_of_seat_1) / 2)
    assert form_of([_match((0.02, 0.0), decisions=MIN_DECISIONS - 1).searched_drops(0)]) is None  # too little to tell
    assert form_of([]) is None


def test_the_chance_as_they_play_takes_off_what_the_weaker_side_will_go_on_losing() -> None:
    analysis = _match((0.0, 0.0), before=0.5)
    strong, weak = PlayerForm(0.005, 200, 10, 10.0), PlayerForm(0.005 + 4 * WEAKER, 200, 10, 10.0)
    chances = expected_chances(_moves(analysis), (strong, weak))
    # at the start both have 10 decisions left: seat 0 gains half the gap times 20 decisions
    assert chances[0] == pytest.approx(min(1.0, 0.5 + 2 * WEAKER * 20))
    assert chances[1] == pytest.approx(max(0.0, 0.5 - 2 * WEAKER * 19))  # seat 1 to move: the same, from its side
    seat0 = [chance for entry, chance in zip(analysis.entries, chances) if entry.seat == 0]
    assert seat0 == sorted(seat0, reverse=True) and seat0[-1] > 0.5  # less to come as the match goes on
    assert all(0.0 <= chance <= 1.0 for chance in chances)
    assert expected_chances(_moves(analysis), (weak, strong))[0] == pytest.approx(1 - chances[0])  # the mirror
    like = PlayerForm(strong.drop + WEAKER / 2, 200, 10, 10.0)  # not clearly weaker: the search's chance stands
    assert expected_chances(_moves(analysis), (strong, like)) == [entry.before for entry in analysis.entries]


def test_the_forms_travel_with_the_analysis_and_old_analyses_have_none() -> None:
    forms = (PlayerForm(0.004, 120, 6, 20.0), PlayerForm(0.035, 90, 6, 15.0))
    analysis = replace(_match((0.0, 0.03)), players=forms)
    document = analysis.to_json(timings=False)
    assert document["players"] == [form.to_json() for form in forms]
    assert [entry["expected"] for entry in document["decisions"]] == [round(c, 4) for c in analysis.expected() or []]
    again = Analysis.from_json(json.loads(json.dumps(document)))
    assert again.players == forms and again.to_json(timings=False) == document
    plain = _match((0.0, 0.03)).to_json(timings=False)
    assert plain["players"] is None and all(entry["expected"] is None for entry in plain["decisions"])
    del plain["players"]  # an analysis stored before the players' model
    assert Analysis.from_json(plain).players is None


def test_arena_analyse_says_the_chance_as_they_play(capsys: pytest.CaptureFixture[str]) -> None:
    forms = (PlayerForm(0.004, 120, 6, 20.0), PlayerForm(0.035, 90, 6, 15.0))
    show_analysis(replace(_match((0.0, 0.03)), players=forms))
    out = " ".join(capsys.readouterr().out.split())
    assert "as they play 100% at the start" in out and "as they play 0% at the start" in out
    assert "Yellow's moves lose 0.4% of a game each (6 match(es), 120 decisions)" in out
    assert "Red's moves lose 3.5% of a game each (6 match(es), 90 decisions)" in out


def test_a_stored_match_is_analysed_with_its_players_forms_from_their_other_matches(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    runner = CliRunner()
    played = runner.invoke(app, ["tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "3",
                                 "--db", url, "--no-standings", "--seed", "5"])
    assert played.exit_code == 0, played.output
    store = Store.open(url)
    matches = store.matches.of_tournament(1)
    assert len(matches) == 6
    first = runner.invoke(app, ["analyse", str(matches[0].id), "--db", url, "--budget", "12", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["players"] is None  # nobody's other matches analysed yet
    caught_up = runner.invoke(app, ["analyse", "--tournament", "1", "--db", url, "--budget", "12", "--json"])
    assert caught_up.exit_code == 0, caught_up.output
    last = matches[-1]
    again = runner.invoke(app, ["analyse", str(last.id), "--db", url, "--budget", "12", "--json"])
    document = json.loads(again.stdout)
    by_seat = {seat.seat: seat.bot for seat in last.seats}
    assert document["players"] is not None, document
    for seat, form in enumerate(document["players"]):  # measured on that bot's other five matches
        assert form["matches"] == 5, (by_seat[seat], form)
    assert all(entry["expected"] is not None for entry in document["decisions"])
    stored = store.analyses.get(last.id)
    assert stored is not None and Analysis.from_compressed(stored).players is not None
    history = store.analyses.of_bot(last.seats[0].bot_id, last.game, "12", leave_out=last.id)
    assert [match_id for match_id, _, _ in history] == sorted((m.id for m in matches[:-1]), reverse=True)
    assert store.analyses.of_bot(last.seats[0].bot_id, last.game, "400") == []  # at the analysis' own budget only
