"""The JSON API over a store filled by a real tournament: status codes, keys, pagination, bad input."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from arena.games import views
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store import Store
from arena.store.models import Record
from arena.web.app import create_app
from tests.web.conftest import BOTS, GAMES

MATCH_KEYS = {"id", "uid", "game", "pool", "tournament_id", "round", "seats", "reason", "offender", "detail", "steps",
              "rated", "wall_ms", "finished_at"}


def test_games_lists_every_registered_mode(client: TestClient) -> None:
    games = client.get("/api/games").json()["games"]
    assert set(GAMES) <= {game["name"] for game in games}
    families = {game["family"] for game in games}
    assert "major-general" in families and {"general-orders-wwii", "general-orders-sengoku"} <= families


def test_pools_count_the_tournament(client: TestClient) -> None:
    pools = {row["pool"]: row for row in client.get("/api/leaderboards").json()["pools"]}
    assert set(pools) == set(GAMES)
    for row in pools.values():
        assert row["matches"] == 6 and row["bots"] == 3  # 3 bots, every pair from both seats


def test_leaderboard_rows_and_sorting(client: TestClient) -> None:
    reply = client.get("/api/leaderboards/major-general")
    assert reply.status_code == 200
    board = reply.json()
    assert board["total"] == 3 and board["sort"] == "rank" and board["order"] == "asc"
    assert {row["bot"] for row in board["standings"]} == set(BOTS.split(","))
    row = board["standings"][0]
    assert {"rank", "bot", "version", "mu", "sigma", "conservative", "games", "win_rate", "win_rate_low",
            "win_rate_high", "last_played"} <= set(row)
    assert row["win_rate_low"] <= row["win_rate"] <= row["win_rate_high"]
    assert abs(row["conservative"] - (row["mu"] - 3 * row["sigma"])) < 1e-3
    assert [r["rank"] for r in board["standings"]] == [1, 2, 3]
    scores = [r["conservative"] for r in board["standings"]]
    assert scores == sorted(scores, reverse=True)

    by_games = client.get("/api/leaderboards/major-general?sort=mu&order=asc").json()["standings"]
    assert [r["mu"] for r in by_games] == sorted(r["mu"] for r in by_games)
    with_bt = client.get("/api/leaderboards/general-orders-wwii/island?bt=true").json()["standings"]
    assert all("bt_elo" in r for r in with_bt) and any(r["bt_elo"] is not None for r in with_bt)


def test_leaderboard_pagination(client: TestClient) -> None:
    first = client.get("/api/leaderboards/major-general?per_page=2").json()
    second = client.get("/api/leaderboards/major-general?per_page=2&page=2").json()
    assert len(first["standings"]) == 2 and len(second["standings"]) == 1
    assert {r["bot"] for r in first["standings"] + second["standings"]} == set(BOTS.split(","))
    past = client.get("/api/leaderboards/major-general?per_page=2&page=3")
    assert past.status_code == 404 and "past the last" in past.json()["detail"]


@pytest.mark.parametrize("path, status, words", [
    ("/api/leaderboards/no-such-game", 404, "no rated matches in pool 'no-such-game'"),
    ("/api/leaderboards/major-general?sort=nonsense", 422, "sort"),
    ("/api/leaderboards/major-general?page=0", 422, "greater than or equal to 1"),
    ("/api/matches?page=abc", 422, "valid integer"),
    ("/api/matches?per_page=100000", 422, "less than or equal to 200"),
    ("/api/matches?page=999", 404, "past the last"),
    ("/api/matches?bot=nobody", 404, "no bot named 'nobody'"),
    ("/api/bots/nobody", 404, "no bot named 'nobody'"),
    ("/api/bots/greedy/matches?version=99", 404, "with version '99'"),
    ("/api/tournaments/nothing", 404, "no tournament 'nothing'"),
    ("/api/matches/999999", 404, "no match '999999'"),
    ("/api/matches/zz", 404, "no match 'zz'"),
    ("/api/matches/%C2%B9", 404, "no match"),  # a digit to str.isdigit(), not to int() (schemathesis found it)
    ("/api/matches/99999999999999999999999", 404, "no match '99999999999999999999999'"),  # beyond SQL's integers
    ("/api/matches/999999/replay", 404, "no match"),
    ("/api/matches/999999/record", 404, "no match"),

])
def test_bad_input_is_a_clear_json_error(client: TestClient, path: str, status: int, words: str) -> None:
    reply = client.get(path)
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    assert words in json.dumps(reply.json()["detail"])


@pytest.mark.parametrize("path", ["/bots/nobody", "/matches/999999", "/tournaments/nothing", "/no/such/page"])
def test_an_unknown_page_is_a_404_page(client: TestClient, path: str) -> None:
    reply = client.get(path)
    assert reply.status_code == 404
    assert reply.headers["content-type"].startswith("text/html")
    assert 'data-status="404"' in reply.text and "Traceback" not in reply.text


def test_bot_page_data(client: TestClient, web_store: Store) -> None:
    reply = client.get("/api/bots/greedy")
    assert reply.status_code == 200
    bot = reply.json()
    assert bot["name"] == "greedy" and len(bot["versions"]) == 1
    version = bot["versions"][0]
    assert version["status"] == "live" and version["faults"] == {}
    pools = {rating["pool"]: rating for rating in version["ratings"]}
    assert set(pools) == set(GAMES)
    rating = pools["major-general"]
    assert rating["games"] == 4 and len(rating["history"]) == 4
    for point in rating["history"]:
        assert {"match", "mu", "sigma", "at"} <= set(point)
    opponents = {row["opponent"]: row for row in rating["head_to_head"]}
    assert set(opponents) == {"random", "scripted"}
    for row in opponents.values():
        assert row["games"] == 2 and row["score_low"] <= row["score"] <= row["score_high"]
    assert len(bot["recent_matches"]) == 12 and set(bot["recent_matches"][0]) == MATCH_KEYS


def test_bot_and_match_lists_paginate(client: TestClient) -> None:
    bots = client.get("/api/bots?per_page=2").json()
    assert bots["total"] == 3 and [b["name"] for b in bots["bots"]] == ["greedy", "random"]
    assert client.get("/api/bots?q=SCRIPT").json()["bots"][0]["name"] == "scripted"
    everything = client.get("/api/matches?per_page=200").json()
    assert everything["total"] == 18 and len(everything["matches"]) == 18
    ids = [m["id"] for m in everything["matches"]]
    assert ids == sorted(ids, reverse=True)
    pages = [client.get(f"/api/matches?per_page=5&page={n}").json()["matches"] for n in range(1, 5)]
    assert [m["id"] for page in pages for m in page] == ids
    in_pool = client.get("/api/matches?pool=major-general").json()
    assert in_pool["total"] == 6 and {m["pool"] for m in in_pool["matches"]} == {"major-general"}
    of_bot = client.get("/api/bots/random/matches?per_page=3").json()
    assert of_bot["total"] == 12 and all(any(s["bot"] == "random" for s in m["seats"]) for m in of_bot["matches"])


def test_tournament_page_data(client: TestClient) -> None:
    listed = client.get("/api/tournaments").json()
    assert listed["total"] == 3
    first = listed["tournaments"][-1]
    detail = client.get(f"/api/tournaments/{first['id']}").json()
    assert detail["tournament"]["status"] == "finished" and detail["tournament"]["matches"] == 6
    assert detail["progress"] == {"stored": 6, "expected": 6, "rounds_planned": detail["rounds_total"]}
    assert sum(line["games"] for line in detail["standings"]) == 12
    stored = [m for r in detail["rounds"] for p in r["pairings"] for m in p["matches"]]
    assert len(stored) == 6
    assert client.get(f"/api/tournaments/{first['name']}").json()["tournament"]["id"] == first["id"]


def test_match_record_and_replay_agree_with_the_engine(client: TestClient, web_store: Store) -> None:
    for pool in GAMES:
        match = client.get(f"/api/matches?pool={pool}&per_page=1").json()["matches"][0]
        detail = client.get(f"/api/matches/{match['id']}").json()
        assert detail["uid"] == match["uid"] and detail["seed"] is not None
        assert client.get(f"/api/matches/{match['uid'][:8]}").json()["id"] == match["id"]

        lines = client.get(f"/api/matches/{match['id']}/record")
        assert lines.status_code == 200 and lines.headers["content-type"].startswith("application/x-ndjson")
        record = MatchRecord.from_jsonl(lines.text)
        final = replay(record)

        streamed = client.get(f"/api/matches/{match['id']}/replay")
        assert streamed.headers["content-type"].startswith("application/x-ndjson")
        document = as_document(streamed.text)
        assert document["error"] is None
        assert len(document["steps"]) == len(record.steps) == match["steps"]
        assert document["steps"][-1]["position"] == json.loads(json.dumps(views.position(final, True)))
        assert document["result"]["reason"] == match["reason"]
        assert [p["name"] for p in document["header"]["players"]] == [s["bot"] for s in match["seats"]]


def as_document(text: str) -> dict[str, Any]:
    """The replay's JSON lines as one document: the first line's keys, "steps", and the last line's."""
    lines = [json.loads(line) for line in text.splitlines()]
    return {**lines[0], "steps": lines[1:-1], **lines[-1]}


@pytest.fixture
def damaged(web_db: str, tmp_path: Path) -> Store:
    """A copy of the store whose record of match 1 is not gzip and of match 2 disagrees with the engine."""
    path = tmp_path / "damaged.db"
    shutil.copy(web_db.removeprefix("sqlite:///"), path)
    store = Store.open(f"sqlite:///{path}")
    second = store.matches.get(2)
    assert second is not None
    data = store.matches.record(second)
    lines = gzip.decompress(data).decode().splitlines()
    for index, line in enumerate(lines):
        item = json.loads(line)
        if item.get("type") == "decision":
            item["action"] = 10**6  # no such action
            lines[index] = json.dumps(item)
            break
    first = store.matches.get(1)
    assert first is not None
    with store.engine.begin() as conn:
        conn.execute(update(Record).where(Record.id == first.record_id).values(data=b"this is not a record"))
        conn.execute(update(Record).where(Record.id == second.record_id)
                     .values(data=gzip.compress("\n".join(lines).encode())))
    return store


def test_a_corrupt_record_is_a_clear_error(damaged: Store) -> None:
    with TestClient(create_app(damaged), raise_server_exceptions=False) as client:
        reply = client.get("/api/matches/1/replay")
        assert reply.status_code == 422
        assert "the record cannot be replayed" in reply.json()["detail"]
        diverging = client.get("/api/matches/2/replay")
        assert diverging.status_code == 200  # streamed: the problem arrives as the document's error
        document = as_document(diverging.text)
        assert document["error"] and "line" in document["error"]
        assert 0 < len(document["steps"]) < client.get("/api/matches/2").json()["steps"]  # up to the bad line
        assert client.get("/matches/1").status_code == 200  # the page shows the error, not a traceback


def test_live_without_a_referee_says_how_to_get_one(client: TestClient) -> None:
    reply = client.get("/api/live")
    assert reply.status_code == 200
    assert reply.json()["referee"] is None and reply.json()["matches"] == []
    assert "--server HOST:PORT" in reply.json()["detail"]
    events = client.get("/api/live/abc/events")
    assert events.headers["content-type"].startswith("text/event-stream")
    assert events.text.startswith("event: error\n") and "--server" in events.text


def test_a_matchs_analysis_is_in_the_api(client: Any, web_store: Any) -> None:
    _total, [analysed] = web_store.matches.page(pool="major-general", limit=1)  # analysed by the fixture
    summary = client.get(f"/api/matches/{analysed.id}").json()
    assert summary["analysed"] is True
    document = client.get(f"/api/matches/{analysed.id}/analysis").json()
    assert len(document["decisions"]) == summary["decisions"] and len(document["curve"]) == 2
    assert document["curve"][0][-1] + document["curve"][1][-1] == 1
    _total, rows = web_store.matches.page(pool="major-general", limit=2)
    missing = client.get(f"/api/matches/{rows[-1].id}/analysis")
    assert missing.status_code == 404 and "arena analyse" in missing.json()["detail"]
