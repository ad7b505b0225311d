"""The rating charts say which game each point is, however long the history: the API thins a long history to
what a chart needs and numbers each point it keeps by its game (`game`), and the charts label their ends with
those numbers. A store of 556 rated matches (and a voided one among them, which no count takes in): bot r1 played
550 of them, and the first 6 were two newcomers' alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.store import Store
from arena.web.api import HISTORY_POINTS
from arena.web.app import create_app
from tests.web.test_browser import WebServer, browser, open_page, script_errors  # noqa: F401

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

POOL = "major-general"
START = datetime(2026, 1, 1)
NEWCOMER_GAMES = 6  # x1 against x2: the pool's first games, neither bot among the top five
R1_GAMES = 550  # r1 against o1..o4 in turn, r1 winning two in three
VOIDED_AFTER = 300  # a voided match stored after the pool's 300th rated one


def _played_at(number: int) -> datetime:
    """When the pool's `number`th stored match ended: one an hour, so the last ones are weeks after the first."""
    return START + timedelta(hours=number)


def _long_pool_db(path: Path, voided: bool) -> str:
    """A store of the pool above (with the voided match where `voided`), written directly: no match is played."""
    from arena.ratings.policy import DEFAULT_POLICY
    from arena.referee.players import PlayerKind
    from arena.store import BotIdentity
    from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot

    url = f"sqlite:///{path}"
    store = Store.open(url)
    try:
        names = ("r1", "o1", "o2", "o3", "o4", "x1", "x2")
        ids = {name: store.bots.register(BotIdentity(name, "1", name, PlayerKind.AGENT, name)) for name in names}
        tournament = store.tournaments.create(name=None, game=POOL, pool=POOL, options={}, format="ladder", seed=1,
                                              rounds=1, settings={}, bot_ids=list(ids.values()))
        pairs = ([("x1", "x2", True)] * NEWCOMER_GAMES
                 + [("r1", f"o{1 + n % 4}", n % 3 != 2) for n in range(R1_GAMES)])
        if voided:
            pairs.insert(VOIDED_AFTER, ("r1", "o1", False))
        played = []
        for number, (first, second, won) in enumerate(pairs, start=1):
            is_voided = voided and number == VOIDED_AFTER + 1
            job = MatchJob(tournament, number, 0, 0, POOL, {}, number,
                           tuple(SeatBot(ids[name], name, "1", PlayerKind.AGENT, name) for name in (first, second)),
                           pool=POOL)
            played.append(PlayedMatch(job, uid=f"m{number}", ranking=(0, 1) if won else (1, 0), scores=(1.0, 0.0),
                                      reason="void" if is_voided else "score", offender=None, detail="", steps=3,
                                      decisions=2, timings={}, record_gz=b"x", record_size=1,
                                      started_at=_played_at(number), finished_at=_played_at(number),
                                      voided=is_voided))
        store.matches.save(played, DEFAULT_POLICY)
    finally:
        store.close()
    return url


@pytest.fixture(scope="module")
def long_pool(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The store above, with its voided match."""
    return _long_pool_db(tmp_path_factory.mktemp("long-pool") / "arena.db", voided=True)


@pytest.fixture(scope="module", params=[True, False], ids=["a voided match among them", "every match rated"])
def long_pool_client(request: pytest.FixtureRequest, long_pool: str, tmp_path_factory: pytest.TempPathFactory
                     ) -> Iterator[tuple[TestClient, Store]]:
    """The API over the store above, and the store (with the voided match, and without: every match rated)."""
    url = long_pool if request.param else _long_pool_db(tmp_path_factory.mktemp("rated") / "arena.db", voided=False)
    store = Store.open(url)
    try:
        with TestClient(create_app(store), raise_server_exceptions=False) as client:
            yield client, store
    finally:
        store.close()


def _rated_matches(store: Store) -> list[int]:
    """The pool's rated matches' ids, in the order they were stored (read here, not the way the API reads them)."""
    _total, matches = store.matches.page(pool=POOL, limit=1000)
    return sorted(match.id for match in matches if match.rated)


def test_a_long_bot_history_numbers_each_kept_point_by_its_game(long_pool_client: tuple[TestClient, Store]
                                                                 ) -> None:
    client, store = long_pool_client
    [version] = client.get("/api/bots/r1").json()["versions"]
    [rating] = version["ratings"]
    history = rating["history"]
    assert rating["games"] == R1_GAMES and len(history) == HISTORY_POINTS  # thinned
    games = [point["game"] for point in history]
    assert games[0] == 1 and games[-1] == R1_GAMES and games == sorted(set(games)), games[:5] + games[-5:]
    [r1] = store.bots.find("r1")
    whole = store.ratings.history(r1.id, POOL)
    for point in history:  # each point is the rating after that game of the bot's
        played = whole[point["game"] - 1]
        assert (point["match"], point["mu"]) == (played.match_id, round(played.mu, 4)), point
    assert {"match", "mu", "sigma", "at", "game"} == set(history[0])  # the keys there were, and `game`


def test_the_pools_chart_numbers_each_point_by_its_game_in_the_pool(long_pool_client: tuple[TestClient, Store]
                                                                     ) -> None:
    client, store = long_pool_client
    board = client.get(f"/api/leaderboards/{POOL}", params={"history": 5}).json()
    assert board["matches"] == NEWCOMER_GAMES + R1_GAMES
    place = {match: number for number, match in enumerate(_rated_matches(store), start=1)}
    points = [point for line in board["history"] for point in line["points"]]
    assert sorted(line["bot"] for line in board["history"]) == ["o1", "o2", "o3", "o4", "r1"]
    misplaced = [(point["match"], point["game"], place[point["match"]]) for point in points
                 if point["game"] != place[point["match"]]]
    assert not misplaced, misplaced  # (match, its game in the reply, its place among the rated matches)
    assert min(point["game"] for point in points) == NEWCOMER_GAMES + 1
    assert max(point["game"] for point in points) == NEWCOMER_GAMES + R1_GAMES
    assert all({"match", "at", "mu", "sigma", "game"} == set(point) for point in points)


def _chart_labels(driver: Any, chart: str) -> list[str]:
    """The words a person reads along the bottom of a chart: its first and last games."""
    WebDriverWait(driver, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, f"{chart} text"))
    texts = [text.text for text in driver.find_elements(By.CSS_SELECTOR, f"{chart} text")]
    return [text for text in texts if text.startswith("game ")]


@pytest.fixture(scope="module")
def long_pool_site(long_pool: str) -> Iterator[str]:
    server = WebServer(long_pool)
    yield server.url
    server.stop()


def test_the_charts_last_label_is_the_last_games_number(browser: Any, long_pool_site: str  # noqa: F811
                                                         ) -> None:
    open_page(browser, f"{long_pool_site}/bots/r1")
    header = browser.find_element(By.CSS_SELECTOR, f".rating[data-pool='{POOL}'] h2").text
    assert f"{R1_GAMES} games" in header, header
    last_day = _played_at(NEWCOMER_GAMES + R1_GAMES + 1).date().isoformat()  # (the voided match stored too)
    labels = _chart_labels(browser, f".rating[data-pool='{POOL}'] svg.chart")
    assert labels == ["game 1", f"game {R1_GAMES} · {last_day}"], labels
    assert not script_errors(browser)

    open_page(browser, f"{long_pool_site}/?pool={POOL}")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "section.leaderboard svg.chart"))
    heading = browser.find_element(By.CSS_SELECTOR, "section.leaderboard h2").text
    assert f"{NEWCOMER_GAMES + R1_GAMES} rated match(es)" in heading, heading
    labels = _chart_labels(browser, "section.leaderboard svg.chart")
    first_day = _played_at(NEWCOMER_GAMES + 1).date().isoformat()
    assert labels == [f"game {NEWCOMER_GAMES + 1} · {first_day}", f"game {NEWCOMER_GAMES + R1_GAMES} · {last_day}"], \
        labels
    assert not script_errors(browser)
