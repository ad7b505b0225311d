"""The bot page's head-to-head as a person reads it: a score less luck from one game shows no interval, one from
two games an interval within 0-100%."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.referee.players import PlayerKind
from arena.store import Store
from tests.ratings.test_score_interval import POOL, stored_bot, stored_wins
from tests.web.test_browser import WebServer, browser, open_page, script_errors  # noqa: F401 (browser: a fixture)
from selenium.webdriver.common.by import By  # (after the import above, which skips without selenium)


def test_the_bot_pages_less_luck_column_stays_within_0_and_100(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(url)
    try:
        ann = stored_bot(store, "ann", PlayerKind.PROGRAM)
        once, twice = stored_bot(store, "once", PlayerKind.AGENT), stored_bot(store, "twice", PlayerKind.AGENT)
        tournament = store.tournaments.create(name=None, game=POOL, pool=POOL, options={}, format="ladder", seed=1,
                                              rounds=1, settings={}, bot_ids=[ann, once, twice])
        stored_wins(store, tournament, ann, once, [-0.101])
        stored_wins(store, tournament, ann, twice, [0.047, -0.015])
    finally:
        store.close()
    server = WebServer(url)
    try:
        open_page(browser, f"{server.url}/bots/ann")
        rows = browser.find_elements(By.CSS_SELECTOR, ".rating tbody tr")
        cells = {row.find_elements(By.TAG_NAME, "td")[0].text: row.find_elements(By.TAG_NAME, "td")[-1].text
                 for row in rows}
        assert cells["once"] == "100.0% (1 game)", cells
        assert cells["twice"].startswith("98.4% [") and cells["twice"].endswith("–100.0%]"), cells
        assert not script_errors(browser)
    finally:
        server.stop()
