"""A bot's own notes (DecisionRequest.note, the protocol's Decision.note): kept with the match at the decision
that carried them, for the bot's owner and the operators only (issue 37, item 1)."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from arena.ratings.policy import DEFAULT_POLICY
from arena.referee.clock import ClockSettings
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord, decision_name
from arena.store import Store
from arena.submissions import hash_token
from arena.tournament.bots import BotSpec
from arena.tournament.jobs import MatchJob, SeatBot
from arena.tournament.referee_executor import RefereeExecutor
from tests.submissions.test_submit import make_bot
from tests.web.test_uploads import ANN, BOB, bearer, finished, packed, site, upload  # noqa: F401  (site: a fixture)

NOTING_BOT = '''
import sys

from arena.agents.base import Agent
from arena.sdk import run_bot


class Noting(Agent):
    name = "noting"

    def act(self, request):
        self.decisions = getattr(self, "decisions", 0) + 1
        print(f"printed at decision {self.decisions}", file=sys.stderr, flush=True)
        request.note = (f"my private plan #{self.decisions}: \\x1b]52;c;evil\\x07 at decision {request.decision} "
                        f"(step {request.step}) " + "x" * 2000)
        return request.legal_actions[0]


if __name__ == "__main__":
    run_bot(Noting())
'''


def test_a_bots_notes_reach_its_owner_at_their_decision_and_nobody_else(site: tuple[TestClient, Store, Path],
                                                                        tmp_path: Path) -> None:
    client, store, _bots = site
    source = make_bot(tmp_path / "noting", "ann-notes", NOTING_BOT)
    state = finished(client, ANN, upload(client, ANN, packed(source)).json()["id"])
    assert state["status"] == "live", json.dumps(state)[:3000]
    [bot] = store.bots.find("ann-notes")
    opponent = store.bots.register(BotSpec("random", "random").identity())
    tournament = store.tournaments.create(name="t", game="major-general", pool="major-general",
                                          options={}, format="round-robin", seed=1, rounds=1, settings={},
                                          bot_ids=[bot.id, opponent])
    job = MatchJob(tournament, 0, 0, 0, "major-general", {}, 1,
                   (SeatBot(bot.id, "ann-notes", "1", PlayerKind.PROGRAM, bot.spec),
                    SeatBot(opponent, "random", "1", PlayerKind.AGENT, "random")), pool="major-general")
    with RefereeExecutor(1, clock=ClockSettings(move_time_s=5.0, bank_s=5.0, grace_s=1.0)) as executor:
        [played] = list(executor.run([job]))
    store.matches.save([played], DEFAULT_POLICY)
    [match] = store.matches.of_tournament(tournament)
    record = MatchRecord.from_bytes(store.matches.record(match))
    mine = [step for step in record.steps if not step.is_chance and step.seat == 0]
    theirs = [step for step in record.steps if not step.is_chance and step.seat == 1]
    assert mine and all(step.note and step.note.startswith(f"my private plan #{i}:") for i, step in
                        enumerate(mine, start=1))
    assert all(len(step.note or "") <= 1024 for step in mine)  # a decision's note is cut at 1,024 characters
    numbers = record.decision_numbers()  # the SDK's request names its moment as the record and replay do
    assert all(f" at {decision_name(numbers[step.n], step.n + 1)} " in (step.note or "") for step in mine)
    assert all(step.note is None for step in theirs)  # (random leaves none)
    printed = [step.output or "" for step in mine]  # what it printed, decision by decision: a line written
    for number, out in enumerate(printed, start=1):  # before its answer goes with that answer, the last one's too
        assert f"printed at decision {number}\n" in out, (number, out)

    # the owner: every note, at its step, escaped; the opponent's owner and the public: none of them
    url = f"/api/owner/matches/{match.id}/notes"
    notes = client.get(url, headers=bearer(ANN)).json()
    assert [seat["bot"] for seat in notes["seats"]] == ["ann-notes"] and not notes["operator"]
    assert [note["n"] for note in notes["notes"]] == [step.n for step in mine]
    assert notes["notes"][0]["note"].startswith("my private plan #1: \\x1b]52;c;evil\\x07 ")  # shown, not sent raw
    assert notes["notes"][0]["decision"] == 1 + sum(1 for step in record.steps[:mine[0].n]
                                                     if not step.is_chance and step.seat == 1)
    numbers = record.decision_numbers()  # a note's moment named as the page and the bot's request name it
    assert [(note["step"], note["decision"]) for note in notes["notes"]] == [(step.n + 1, numbers[step.n])
                                                                             for step in mine]
    assert client.get(url, headers=bearer(BOB)).json() == {"match": match.id, "operator": False, "seats": [],
                                                           "notes": []}
    assert client.get(url).status_code == 401
    assert any("printed at decision" in note["output"] for note in notes["notes"])
    for public in (f"/api/matches/{match.id}/record", f"/api/matches/{match.id}/replay"):
        text = client.get(public).text
        assert "my private plan" not in text and '"note"' not in text, public
        assert "printed at decision" not in text and '"output"' not in text, public
        assert len(text.splitlines()) > len(mine)
    assert "my private plan" not in json.dumps(client.get(f"/api/matches/{match.id}").json())
    assert store.owners.add("ops", hash_token("ops-token-0123456789"), operator=True)
    everything = client.get(url, headers=bearer("ops-token-0123456789")).json()
    assert everything["operator"] and len(everything["notes"]) == len(mine)
