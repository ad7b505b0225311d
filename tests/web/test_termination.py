"""One termination from the referee to the page: a seat's illegal move ends a match, and the same `Termination`
is found in the result, the record's JSON, the stored match, the web's JSON API and the replay the page draws,
each read back through the enum (never by its spelling); the verdict the page shows is the server's."""

from __future__ import annotations

import gzip
import json
from datetime import datetime
from pathlib import Path

from fastapi.testclient import TestClient

from arena.agents import Agent, DecisionRequest, RandomAgent
from arena.games import load_game
from arena.ratings.policy import DEFAULT_POLICY
from arena.referee.authority import play_match
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord, MatchResult, Termination, reason_of
from arena.store import BotIdentity, Store
from arena.tournament.jobs import MatchJob, SeatBot, played_from_record
from arena.web.app import create_app

GAME = "major-general"


class IllegalAgent(Agent):
    """Answers every decision with an action no game has."""

    name = "illegal"

    def act(self, request: DecisionRequest) -> int:
        return 10_000


def test_a_termination_travels_as_the_enum_from_the_referee_to_the_web(tmp_path: Path) -> None:
    game = load_game(GAME)
    record = play_match(game, [RandomAgent(), IllegalAgent()], seed=3)
    assert record.result is not None and record.result.termination is Termination.ILLEGAL_ACTION
    assert record.result.offender == 1

    written = MatchRecord.from_jsonl(record.to_jsonl())  # the record's JSON, read back
    assert written.result is not None and written.result.termination is Termination.ILLEGAL_ACTION

    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        bots = [store.bots.register(BotIdentity(name, "1", name, PlayerKind.AGENT, name)) for name in ("random", "illegal")]
        tournament = store.tournaments.create(name=None, game=GAME, pool=GAME, options={}, format="round-robin",
                                               seed=1, rounds=1, settings={}, bot_ids=bots)
        seats = tuple(SeatBot(bot, name, "1", PlayerKind.AGENT, name) for bot, name in zip(bots, ("random", "illegal")))
        job = MatchJob(tournament, 0, 0, 0, GAME, {}, 3, seats, pool=GAME)
        played = played_from_record(job, record, datetime(2026, 1, 1), 1.0)
        assert reason_of(played.reason) is Termination.ILLEGAL_ACTION
        [match_id] = store.matches.save([played], DEFAULT_POLICY)

        [row] = store.matches.of_tournament(tournament)  # the stored match, read back
        assert reason_of(row.reason) is Termination.ILLEGAL_ACTION
        stored = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(row)).decode())
        assert stored.result is not None and stored.result.termination is Termination.ILLEGAL_ACTION

        with TestClient(create_app(store)) as client:
            shown = client.get(f"/api/matches/{match_id}").json()
            assert reason_of(shown["reason"]) is Termination.ILLEGAL_ACTION and shown["offender"] == 1
            listed = client.get("/api/matches").json()["matches"]
            assert [reason_of(match["reason"]) for match in listed] == [Termination.ILLEGAL_ACTION]
            pieces = [json.loads(line) for line in client.get(f"/api/matches/{match_id}/replay").text.splitlines()]
        end = pieces[-1]["result"]
        assert reason_of(end["reason"]) is Termination.ILLEGAL_ACTION
        # the page is told who won and how, in the words MatchResult.verdict chose (its only author)
        names = game.info.seat_names
        assert end["verdict"] == stored.result.verdict(names, ["random", "illegal"])
        assert end["verdict"] == (f"{names[0]} (random) wins ({names[1]} (illegal)'s "
                                  f"{Termination.ILLEGAL_ACTION.replace('_', ' ')})")
    finally:
        store.close()


def test_an_unknown_reason_of_an_old_record_is_the_rules_word() -> None:
    """A reason no Termination names (a rule's ending, or a word of an older referee) is kept as it is, read as the
    rules', and said as it is."""
    result = MatchResult.from_json({"type": "result", "ranking": [0, 1], "reason": "resigned", "scores": [],
                                    "offender": None})
    assert result.reason == "resigned" and result.termination is None and not result.is_fault
    assert result.to_json()["reason"] == "resigned"
    assert result.verdict(["Yellow", "Red"], ["ann", "bob"]) == "Yellow (ann) wins (resigned)"
    known = MatchResult.from_json({**result.to_json(), "reason": "max_length", "ranking": [0, 0]})
    assert known.termination is Termination.MAX_LENGTH and known.verdict(["Yellow", "Red"]) == "draw (max length)"
