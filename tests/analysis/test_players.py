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
from arena.analysis.players import (
    EDGE_Z,
    MIN_DECISIONS,
    MIN_EDGE_MATCHES,
    WEAKER,
    PlayerForm,
    edge_of,
    expected_chances,
    form_of,
    seat_edge,
)
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


#: two players of like form (no gap between their drops): their chances by drops alone are the search's
LIKE = (PlayerForm(0.005, 200, 10, 10.0), PlayerForm(0.005, 200, 10, 10.0))


def _seat_zero_beats_its_chances(edge: float, decisions: int = 10) -> Analysis:
    """A match where seat 0 wins and its chance (players of like form: the search's) falls short of that by
    exactly `edge` times the share of the match's searched decisions still to come: its edge, read through zero
    at the end."""
    analysis = _match((0.0, 0.0), decisions=decisions)
    searched = sum(1 for entry in analysis.entries if not entry.forced)
    entries, made = [], 0
    for entry in analysis.entries:
        if not entry.forced:
            if entry.seat == 0:
                before = 1.0 - edge * (searched - made) / searched
                entry = replace(entry, before=before, after=before)
            made += 1
        entries.append(entry)
    return replace(analysis, entries=tuple(entries), players=LIKE)


def test_a_seats_edge_is_what_its_results_beat_its_chances_by_at_a_matchs_start_fading_to_its_end() -> None:
    match = _seat_zero_beats_its_chances(0.2)
    products, squares = match.edge_sums(0)
    assert squares > 0 and products / squares == pytest.approx(0.2)
    edge, error, matches = edge_of([match.edge_sums(0)] * MIN_EDGE_MATCHES)
    assert (edge, matches) == (pytest.approx(0.2), MIN_EDGE_MATCHES) and error == pytest.approx(0.0, abs=1e-12)
    assert edge_of([match.edge_sums(0)] * (MIN_EDGE_MATCHES - 1)) == (0.0, 0.0, MIN_EDGE_MATCHES - 1)  # too few
    # matches that disagree: the same mean, and an error over the matches (with n / (n - 1))
    mixed = [_seat_zero_beats_its_chances(0.1).edge_sums(0), _seat_zero_beats_its_chances(0.3).edge_sums(0)] * 4
    edge, error, _ = edge_of(mixed)
    assert edge == pytest.approx(0.2) and error == pytest.approx(0.1 / 8 ** 0.5 * (8 / 7) ** 0.5)
    # the other seat's sums read its own result against its chances: seat 1 lost, its chances were 1 - seat 0's
    products, squares = match.edge_sums(1)
    assert products / squares < 0
    # read against the chances by the forms' drops alone, never by an edge (it would read itself) ...
    edged = (replace(LIKE[0], edge=0.5, edge_error=0.01, edge_matches=20),
             replace(LIKE[1], edge=-0.5, edge_error=0.01, edge_matches=20))
    assert replace(match, players=edged).edge_sums(0) == match.edge_sums(0)
    # ... and not without them: the search's chances miss the gap between the forms, which the edge would count
    # again on top of the gap (such a match is left out of an edge, as one with no decision of the seat)
    assert replace(match, players=None).edge_sums(0) == (0.0, 0.0)
    assert edge_of([replace(match, players=None).edge_sums(0)] * 20) == (0.0, 0.0, 0)


def test_a_seats_edge_reads_its_result_against_the_chances_by_the_players_drops() -> None:
    """Seat 1 loses 4% a decision more than seat 0: by their drops seat 0 is far ahead from the start, as its win
    bore out, so less is left for an edge to tell than against the search's chance (0.5 all along)."""
    gapped = (PlayerForm(0.005, 200, 10, 10.0), PlayerForm(0.045, 200, 10, 10.0))
    match = replace(_match((0.0, 0.0), before=0.5), players=gapped)
    by_drops = match.expected() or []
    assert by_drops[0] == pytest.approx(0.9)
    searched = [entry for entry in match.entries if not entry.forced]
    left = {id(entry): (len(searched) - made) / len(searched) for made, entry in enumerate(searched)}
    products, squares = match.edge_sums(0)
    assert products == pytest.approx(sum(left[id(entry)] * (1.0 - chance) for entry, chance
                                         in zip(match.entries, by_drops) if entry.seat == 0 and not entry.forced))
    assert squares == pytest.approx(sum(left[id(entry)] ** 2 for entry in searched if entry.seat == 0))
    against_the_search = replace(match, players=LIKE).edge_sums(0)
    assert against_the_search == (pytest.approx(sum(left[id(entry)] * 0.5 for entry in searched if entry.seat == 0)),
                                  pytest.approx(squares))
    assert 0 < products < against_the_search[0] / 2


def test_the_chance_as_they_play_moves_by_the_seats_edges_where_they_are_clear() -> None:
    analysis = _match((0.0, 0.0), before=0.5)
    first, second = PlayerForm(0.005, 200, 10, 10.0, 0.15, 0.02, 12), PlayerForm(0.005, 200, 10, 10.0, -0.05, 0.02, 9)
    assert seat_edge((first, second)) == pytest.approx(0.1)
    chances = expected_chances(_moves(analysis), (first, second))
    assert chances[0] == pytest.approx(0.6)  # seat 0 at the start: the whole edge
    assert chances[1] == pytest.approx(0.5 - 0.1 * 19 / 20)  # seat 1 next, one decision made
    seat0 = [chance for entry, chance in zip(analysis.entries, chances) if entry.seat == 0]
    assert seat0 == sorted(seat0, reverse=True) and seat0[-1] > 0.5  # fading as the match goes on
    assert expected_chances(_moves(analysis), (second, first))[0] == pytest.approx(0.4)  # the mirror
    assert expected_chances(_moves(analysis), (first, second), edges=False) == [0.5] * len(chances)
    # clear: EDGE_Z standard errors, each seat's error counting half (the two may be measured on the same matches)
    errors = (0.04, 0.04)
    for edge, taken in ((EDGE_Z * 0.04 + 0.001, True), (EDGE_Z * 0.04 - 0.001, False)):
        pair = (replace(first, edge=edge, edge_error=errors[0]), replace(second, edge=-edge, edge_error=errors[1]))
        assert seat_edge(pair) == (pytest.approx(edge) if taken else 0.0)
    # not measured on enough matches: the search's chance stands
    assert seat_edge((first, replace(second, edge_matches=MIN_EDGE_MATCHES - 1))) == 0.0
    assert expected_chances(_moves(analysis), (first, replace(second, edge_matches=0))) == [0.5] * len(chances)


def test_the_edge_fades_with_the_whole_match_where_one_seat_decides_more() -> None:
    """Seat 1 makes three decisions to seat 0's one: the edge fades with both seats' decisions made, as it is
    read, to nothing at a typical match's end (the gap's part counts each seat's own decisions left)."""
    entries = tuple(DecisionEntry(n, n, 0 if n % 4 == 0 else 1, "a move", "a better move", 0.5, 0.5, 4, 24)
                    for n in range(40))
    analysis = Analysis("m", "major-general", {}, "400", 0, ("Yellow", "Red"), entries, (1.0, 0.0))
    forms = (PlayerForm(0.005, 200, 10, 10.0, 0.2, 0.01, 10), PlayerForm(0.005, 200, 10, 30.0, -0.2, 0.01, 10))
    chances = replace(analysis, players=forms).expected() or []
    seat0 = [chance if entry.seat == 0 else 1.0 - chance for entry, chance in zip(entries, chances)]
    assert seat0[0] == pytest.approx(0.7)
    assert seat0[20] == pytest.approx(0.5 + 0.2 * 20 / 40) and seat0[-1] == pytest.approx(0.5 + 0.2 / 40)


def test_a_players_edge_is_measured_in_the_seat_it_holds_from_its_matches_there() -> None:
    """Seat 0's side wins every match of the history though the search gave it even chances: the next match's
    forms carry that, each player's in its seat, and its chances as they play lean to seat 0 at the start."""
    history = [replace(_match((0.0, 0.0), decisions=12, result=(1.0, 0.0)), players=LIKE)
               for _ in range(MIN_EDGE_MATCHES)]
    forms = tuple(form_of((match.searched_drops(seat) for match in history),
                          (match.edge_sums(seat) for match in history)) for seat in (0, 1))
    assert forms[0] is not None and forms[1] is not None
    assert forms[0].edge > 0.4 and forms[1].edge < -0.4 and forms[0].edge_matches == MIN_EDGE_MATCHES
    assert forms[0].edge_error == pytest.approx(0.0, abs=1e-12)
    chances = replace(_match((0.0, 0.0)), players=(forms[0], forms[1])).expected() or []
    assert chances[0] > 0.9 and chances[1] < 0.1
    unseated = form_of(match.searched_drops(0) for match in history)
    assert unseated is not None and unseated.edge_matches == 0  # no matches in its seat given: no edge


def test_the_forms_travel_with_the_analysis_and_old_analyses_have_none() -> None:
    forms = (PlayerForm(0.004, 120, 6, 20.0, 0.1, 0.01, 9), PlayerForm(0.035, 90, 6, 15.0, -0.02, 0.03, 8))
    analysis = replace(_match((0.0, 0.03)), players=forms)
    document = analysis.to_json(timings=False)
    assert document["players"] == [form.to_json() for form in forms]
    assert document["seat_edge"] == 0.06 and document["players"][1]["edge_matches"] == 8
    assert [entry["expected"] for entry in document["decisions"]] == [round(c, 4) for c in analysis.expected() or []]
    again = Analysis.from_json(json.loads(json.dumps(document)))
    assert again.players == forms and again.to_json(timings=False) == document
    plain = _match((0.0, 0.03)).to_json(timings=False)
    assert plain["players"] is None and all(entry["expected"] is None for entry in plain["decisions"])
    del plain["players"]  # an analysis stored before the players' model
    assert Analysis.from_json(plain).players is None
    for form in document["players"]:  # ... and one stored before the edges: none measured
        del form["edge"], form["edge_error"], form["edge_matches"]
    assert Analysis.from_json(document).seat_edge() == 0.0


def test_arena_analyse_says_the_chance_as_they_play(capsys: pytest.CaptureFixture[str]) -> None:
    forms = (PlayerForm(0.004, 120, 6, 20.0), PlayerForm(0.035, 90, 6, 15.0))
    show_analysis(replace(_match((0.0, 0.03)), players=forms))
    out = " ".join(capsys.readouterr().out.split())
    assert "as they play 100% at the start" in out and "as they play 0% at the start" in out
    assert "Yellow's moves lose 0.4% of a game each (6 match(es), 120 decisions)" in out
    assert "Red's moves lose 3.5% of a game each (6 match(es), 90 decisions)" in out
    assert "fared in its seat" not in out  # no edge measured
    show_analysis(replace(_match((0.0, 0.03)), players=(replace(forms[0], drop=-0.01), forms[1])))
    out = " ".join(capsys.readouterr().out.split())  # a player the search underrates: its moves gain
    assert "Yellow's moves gain 1.0% of a game each" in out and "lose -" not in out, out
    edged = (replace(forms[0], edge=0.12, edge_error=0.02, edge_matches=12),
             replace(forms[1], edge=-0.04, edge_error=0.02, edge_matches=10))
    show_analysis(replace(_match((0.0, 0.0)), players=edged))
    out = " ".join(capsys.readouterr().out.split())
    assert ("and as each has fared in its seat (its results over its chances at a match's start, fading by the "
            "end): Yellow's +12.0% (12 matches); Red's -4.0% (10 matches), so Yellow +8.0% at the start") in out


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
        # its edge: from its matches in this seat alone, those analysed with their players' forms (the first ones
        # were not: their chances by drops are not known)
        in_this_seat = [match for match in matches[:-1] for one in match.seats
                        if one.bot == by_seat[seat] and one.seat == seat]
        with_forms = [match for match in in_this_seat
                      if Analysis.from_compressed(store.analyses.get(match.id) or b"").players is not None]
        assert form["edge_matches"] == len(with_forms) and 0 < len(with_forms) < len(in_this_seat) < 5, form
    assert all(entry["expected"] is not None for entry in document["decisions"])
    stored = store.analyses.get(last.id)
    assert stored is not None and Analysis.from_compressed(stored).players is not None
    history = store.analyses.of_bot(last.seats[0].bot_id, last.game, "12", leave_out=last.id)
    assert [match_id for match_id, _, _ in history] == sorted((m.id for m in matches[:-1]), reverse=True)
    assert store.analyses.of_bot(last.seats[0].bot_id, last.game, "400") == []  # at the analysis' own budget only
