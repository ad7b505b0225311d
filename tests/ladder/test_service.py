"""The ladder service in process: rounds and their state in the database, the field following versions,
the webhook, and a stalling bot that cannot hold a round up."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from arena.games.registry import load_game
from arena.ladder import LadderService, LadderSettings, Schedule, ladder_status
from arena.store import Store
from arena.submissions import retire, submit
from arena.tournament import parse_bots
from arena.tournament.service import PlaySettings
from tests.submissions.test_submit import GOOD_BOT, make_bot

GAME = load_game("major-general")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    yield opened
    opened.close()


def _service(store: Store, builtins: str, logs: list[str] | None = None, concurrency: int = 2,
             **changes: object) -> LadderService:
    settings = LadderSettings(games=(GAME,), schedule=Schedule.parse(str(changes.pop("every", "200ms"))),
                              builtins={GAME.name: tuple(parse_bots(builtins)) if builtins else ()}, seed=3,
                              **changes)  # type: ignore[arg-type]
    service = LadderService(store, settings, PlaySettings(concurrency=concurrency),
                            log=(logs.append if logs is not None else lambda _line: None))
    service.prepare()
    return service


def test_rounds_run_on_schedule_and_keep_their_state_in_the_database(store: Store) -> None:
    logs: list[str] = []
    service = _service(store, "a=random,b=greedy,c=scripted", logs, matches_per_round=6)
    started = time.monotonic()
    try:
        assert service.run(max_rounds=3) == 3
    finally:
        service.close()
    assert time.monotonic() - started >= 0.35  # two waits of the 200 ms schedule
    assert len(logs) == 3 and all(line.startswith("ladder: major-general round ") for line in logs)
    assert "round 3: 6 stored, 3 bots" in logs[-1] and "next round at" in logs[-1]  # counted from 1
    [status] = ladder_status(store)
    assert status.matches == 18 and status.pending == 0 and status.service.running is False
    assert status.last_round is not None and status.last_round.round == 2 and status.next_round_at
    assert status.schedule == "every 200ms" and status.to_json()["last_round"]["stored"] == 6
    assert {bot.bot for bot in status.bots} == {"a", "b", "c"} and all(b.games > 0 for b in status.bots)
    matches = store.matches.of_tournament(status.ladder)
    assert len({(m.round, m.pairing, m.rotation) for m in matches}) == 18


def _owned_builtins(store: Store, owners: dict[str, str], specs: str) -> None:
    """Register built-in players under owners (as if two owners had submitted two bots each)."""
    for spec in parse_bots(specs):
        store.bots.register(replace(spec.identity(), owner=owners[spec.name]))


@pytest.mark.parametrize("same_owner", [False, True])
def test_the_ladder_never_seats_two_bots_of_one_owner_together(store: Store, same_owner: bool) -> None:
    """Issue 46: an owner's bots could feed each other (a thrown game is +0.11 mu). Two owners with two bots
    each, rounds played: no stored match seats two bots of one owner, unless the operator allows it
    (`--same-owner`), and then they do meet."""
    specs = "ann1=random,ann2=greedy,bob1=scripted,bob2=random"
    owners = {"ann1": "ann", "ann2": "ann", "bob1": "bob", "bob2": "bob"}
    _owned_builtins(store, owners, specs)
    service = _service(store, specs, matches_per_round=8, same_owner=same_owner)
    try:
        assert service.run(max_rounds=3) == 3
    finally:
        service.close()
    owner_of = {bot.id: bot.owner for bot in store.bots.find()}
    matches = store.matches.of_tournament(service.ladders[GAME.name][1])
    assert len(matches) == 24
    siblings = [m for m in matches if len({owner_of[bot] for bot in m.bots}) < len(m.bots)]
    assert bool(siblings) is same_owner


def test_new_versions_join_at_the_next_round_and_retired_ones_leave(tmp_path: Path, store: Store) -> None:
    logs: list[str] = []
    service = _service(store, "random", logs, matches_per_round=4, max_pending=4)
    area = tmp_path / "bots"
    try:
        service.play_round()
        assert service.play_round().pools[0].note == "waiting for bots (1 live, 2 needed)"
        first = submit(make_bot(tmp_path / "v1", "ann-bot"), store, area)
        report = service.play_round()  # joins without a restart
        assert report.pools[0].stored == 4 and report.pools[0].bots == 2
        [row] = [r for r in store.ratings.of_pool(GAME.name) if r.bot_id == first.bot_id]
        assert row.games == 4
        second = submit(make_bot(tmp_path / "v2", "ann-bot", GOOD_BOT + "# v2\n", version="2"), store, area)
        report = service.play_round()
        ladder = service.ladders[GAME.name][1]
        latest = [m for m in store.matches.of_tournament(ladder) if m.round == report.pools[0].round]
        assert latest and all(second.bot_id in m.bots for m in latest)  # the new version, never the old
        assert not any(first.bot_id in m.bots for m in latest)
        retire(store, "ann-bot")
        assert service.play_round().pools[0].note.startswith("waiting for bots")
    finally:
        service.close()
    [status] = ladder_status(store)
    assert status.pending == 0 and [b.bot for b in status.bots] == ["random"]


class _Hook(BaseHTTPRequestHandler):
    received: list[dict[str, object]] = []

    def do_POST(self) -> None:  # noqa: N802 - the http.server name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Hook.received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def webhook() -> Iterator[str]:
    _Hook.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/results"
    server.shutdown()


def test_the_webhook_gets_each_stored_result_once_across_restarts(store: Store, webhook: str) -> None:
    for _ in range(2):  # a service, stopped and started again
        service = _service(store, "a=random,b=greedy", matches_per_round=4, notify_url=webhook)
        try:
            service.run(max_rounds=1)
        finally:
            service.close()
    stored = store.matches.of_tournament(service.ladders[GAME.name][1])
    uids = [document["match"]["uid"] for document in _Hook.received]
    assert sorted(uids) == sorted(m.uid for m in stored) and len(uids) == 8
    document = _Hook.received[0]
    assert document["event"] == "match" and document["match"]["pool"] == GAME.name
    assert {seat["bot"] for seat in document["match"]["seats"]} == {"a", "b"} and document["match"]["rated"] is True


def test_a_stalling_bot_cannot_hold_up_a_round(store: Store) -> None:
    """A bot whose matches take far longer than the round: it holds at most its cap of match slots, the
    others' matches are stored, its own wait for the next round, and it gets no new ones while they wait."""
    service = _service(store, "a=random,b=greedy,c=scripted,slow=mcts:iterations=50000", concurrency=3,
                       matches_per_round=12, max_pending=2, round_timeout_s=3.0)
    try:
        service.play_round()  # learns how long each bot's matches take (the slow ones do not finish)
        begun = time.monotonic()
        report = service.play_round()
        took = time.monotonic() - begun
    finally:
        service.close()
    part = report.pools[0]
    assert took < 3.0 + 1.0 + 3.0  # the round's time, the grace, and stopping the workers
    slow = next(bot.id for bot in store.bots.find() if bot.name == "slow")
    [status] = ladder_status(store)
    pending = {bot.bot: bot.pending for bot in status.bots}
    assert pending["slow"] == 2 and part.stored >= 2  # its table waits; the others' matches were stored
    ladder = service.ladders[GAME.name][1]
    planned_second = [row for row in store.tournaments.pairings(ladder) if row.round == part.round]
    assert planned_second and all(slow not in row.bots for row in planned_second)  # at its cap: no new table
