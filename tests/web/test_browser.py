"""The pages in a real headless Chromium (Debian's chromium and chromium-driver, driven by Selenium),
served by a real `arena web` over a store filled by a real tournament: the leaderboards list the bots,
a replay of each game family steps to the end on the board and the board (units per area, read from
the SVG) is the engine's final position, a shared HTML replay works from disk, and the live page
follows a match a real referee is playing. Screenshots go to test-artifacts/web/."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots import BUILTIN_BOTS
from arena.games import views
from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store import Store
from tests.processes import free_port
from tests.web.conftest import BOTS, GAMES

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ARENA_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("ARENA_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "web"

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip(f"no Chromium at {CHROMIUM} with its driver at {CHROMEDRIVER}: install Debian's chromium and "
                "chromium-driver (`make test` does, as root)", allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


class WebServer:
    """`arena web` in a subprocess, on a free loopback port."""

    def __init__(self, db: str, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli.main import run; run()", "web", "--db", db, "--port",
             str(self.port), *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/api/games", timeout=1).read()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"arena web did not start: {self.process.stdout.read()}")  # type: ignore
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture(scope="module")
def site(web_db: str) -> Iterator[str]:
    server = WebServer(web_db)
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(browser: Any, url: str, ready: str = "body[data-ready='true']") -> None:
    browser.get_log("browser")  # (drops what earlier pages logged)
    browser.get(url)
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, ready))


def screenshot(browser: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def script_errors(browser: Any) -> list[str]:
    """The page's script errors since the last call (a 404 the test asked for is not one)."""
    return [entry["message"] for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE" and entry.get("source") != "network"]


def board_units(browser: Any) -> dict[str, Any]:
    """Units per area as the SVG holds them (each area's data-units), areas without units left out."""
    found = {}
    for area in browser.find_elements(By.CSS_SELECTOR, "svg.board g.area"):
        counts = json.loads(area.get_attribute("data-units"))
        if any(any(per_side) for per_side in counts):
            found[area.get_attribute("data-area")] = counts
    return found


def engine_units(store: Store, match_id: int) -> dict[str, Any]:
    """Units per area of the engine's final position of a stored match, replayed from its record."""
    _row, data = store.record(match_id)  # type: ignore[misc]
    final = replay(MatchRecord.from_jsonl(gzip.decompress(data).decode()))
    units = views.position(final, True)["units"]
    return {area: counts for area, counts in units.items() if any(any(per_side) for per_side in counts)}


def test_the_leaderboards_list_the_tournaments_bots(browser: Any, site: str) -> None:
    open_page(browser, site + "/")
    screenshot(browser, "leaderboards")
    text = browser.find_element(By.ID, "main").text
    for pool in GAMES:
        assert pool in text
    tables = browser.find_elements(By.CSS_SELECTOR, "#main table")
    assert len(tables) == len(GAMES)
    for table in tables:
        bots = [link.text for link in table.find_elements(By.CSS_SELECTOR, "tbody a")]
        assert sorted(bots) == sorted(BOTS.split(","))
    browser.find_element(By.CSS_SELECTOR, "#main table th[data-key='games']").click()  # sortable
    WebDriverWait(browser, 10).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, "#main table th.sorted[data-key='games']"))
    assert not script_errors(browser)


def test_a_bot_page(browser: Any, site: str) -> None:
    open_page(browser, site + "/bots/greedy")
    screenshot(browser, "bot-greedy")
    text = browser.find_element(By.ID, "main").text
    assert "greedy" in text and "scripted" in text and "random" in text  # head-to-head
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart")) == len(GAMES)  # a rating chart per pool
    assert not script_errors(browser)


@pytest.mark.parametrize("pool", GAMES)
def test_a_replay_steps_to_the_engines_final_position(browser: Any, site: str, web_store: Store, pool: str) -> None:
    _total, [match] = web_store.match_page(pool=pool, limit=1)
    open_page(browser, f"{site}/matches/{match['id']}")
    viewer = browser.find_element(By.CSS_SELECTOR, "[data-step]")
    assert viewer.get_attribute("data-step") == "0"
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert viewer.get_attribute("data-step") == "2" and browser.current_url.endswith("#step=2")
    body.send_keys(Keys.END)
    assert viewer.get_attribute("data-step") == str(match["steps"])
    assert board_units(browser) == engine_units(web_store, match["id"])
    result = browser.find_element(By.CSS_SELECTOR, ".result").text
    assert match["reason"] in result
    screenshot(browser, f"replay-{pool.replace('/', '-')}")
    body.send_keys(Keys.ARROW_LEFT)
    assert viewer.get_attribute("data-step") == str(match["steps"] - 1)
    # a permalink to a step opens there, followed on the page or loaded afresh
    browser.get(f"{site}/matches/{match['id']}#step=3")
    WebDriverWait(browser, 5).until(lambda b: viewer.get_attribute("data-step") == "3")
    browser.get(site + "/bots")
    open_page(browser, f"{site}/matches/{match['id']}#step=4")
    assert browser.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") == "4"
    assert not script_errors(browser)


def test_play_and_jump_to_a_decision(browser: Any, site: str, web_store: Store) -> None:
    _total, [match] = web_store.match_page(pool="major-general", limit=1)
    open_page(browser, f"{site}/matches/{match['id']}")
    viewer = browser.find_element(By.CSS_SELECTOR, "[data-step]")
    jump = browser.find_element(By.CSS_SELECTOR, "input[aria-label='jump to decision']")
    jump.send_keys("5", Keys.ENTER)
    WebDriverWait(browser, 5).until(lambda b: viewer.get_attribute("data-step") != "0")
    counter = browser.find_element(By.CSS_SELECTOR, ".counter").text
    assert "decision 5" in counter
    browser.find_element(By.CSS_SELECTOR, "button[title^='Play']").click()
    start = int(viewer.get_attribute("data-step"))
    WebDriverWait(browser, 10).until(lambda b: int(viewer.get_attribute("data-step")) > start + 1)


def test_a_phone_sized_window_does_not_scroll_sideways(browser: Any, site: str, web_store: Store) -> None:
    _total, [match] = web_store.match_page(pool="general-orders-wwii/island", limit=1)
    browser.set_window_size(390, 844)
    try:
        for path in ("/", f"/matches/{match['id']}", "/bots/scripted"):
            open_page(browser, site + path)
            overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{path} is {overflow}px wider than a phone"
        screenshot(browser, "phone-replay")
    finally:
        browser.set_window_size(1280, 900)


def test_dark_theme(browser: Any, site: str) -> None:
    open_page(browser, site + "/")
    browser.find_element(By.ID, "theme").click()
    theme = browser.execute_script("return document.documentElement.dataset.theme")
    assert theme in ("dark", "light")
    colour = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    open_page(browser, site + "/")  # the choice is remembered
    assert browser.execute_script("return document.documentElement.dataset.theme") == theme
    assert browser.execute_script("return getComputedStyle(document.body).backgroundColor") == colour
    screenshot(browser, f"leaderboards-{theme}")
    browser.execute_script("localStorage.removeItem('arena-theme')")


def test_errors_are_pages_not_tracebacks(browser: Any, site: str) -> None:
    open_page(browser, site + "/bots/nobody-at-all")
    assert "Not found" in browser.find_element(By.ID, "main").text
    assert "nobody-at-all" in browser.find_element(By.ID, "main").text
    open_page(browser, site + "/api/matches?page=0", "pre, body")  # JSON, shown as text
    assert "greater than or equal to 1" in browser.find_element(By.TAG_NAME, "body").text


def test_a_shared_html_replay_works_from_disk(browser: Any, web_store: Store, tmp_path: Path) -> None:
    _total, [match] = web_store.match_page(pool="general-orders-sengoku/rivers", limit=1)
    _row, data = web_store.record(match["id"])  # type: ignore[misc]
    record = tmp_path / "match.jsonl"
    record.write_bytes(gzip.decompress(data))
    page = tmp_path / "match.html"
    done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "replay", str(record),
                           "--html", str(page)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text  # offline
    open_page(browser, page.as_uri())
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert browser.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") == str(match["steps"])
    assert board_units(browser) == engine_units(web_store, match["id"])
    screenshot(browser, "standalone-replay")
    assert not script_errors(browser)


def test_the_live_page_follows_a_running_match(browser: Any, web_db: str, tmp_path: Path) -> None:
    from arena.rpc.background import BackgroundReferee
    from arena.rpc.server import ServerConfig

    bots = tmp_path / "bots"
    shutil.copytree(Path(__file__).parent / "bots", bots)
    config = ServerConfig(port=0, bot_dirs=(bots, BUILTIN_BOTS), results_dir=None,
                          clock=ClockSettings(move_time_s=5.0, bank_s=30.0, grace_s=1.0), startup_timeout_s=60.0)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        token = tmp_path / "admin-token"
        token.write_text(referee.admin_token)
        server = WebServer(web_db, "--server", referee.address, "--admin-token-file", str(token))
        try:
            async def start() -> Any:
                return referee.server.start_match("major-general", ["slow", "slow"], seed=11)

            live = referee.call(start())
            open_page(browser, server.url + "/live", "#main table a, #main p")
            WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#main table a"))
            browser.find_element(By.CSS_SELECTOR, "#main table a").click()
            WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "svg.board"))
            holder = browser.find_element(By.ID, "live")
            seen = int(holder.get_attribute("data-steps") or 0)
            # the next decision of the running match reaches the page within a second
            WebDriverWait(browser, 1.0, poll_frequency=0.05).until(
                lambda b: int(holder.get_attribute("data-steps") or 0) > seen)
            assert holder.get_attribute("data-finished") is None  # still running
            panels = browser.find_element(By.CSS_SELECTOR, ".sides").text
            assert "hand:" not in panels and "(hidden)" in panels  # a spectator sees no hand
            screenshot(browser, "live")
            WebDriverWait(browser, 60).until(lambda b: holder.get_attribute("data-finished") == "true")
            assert live.task is not None and live.task.done()
            assert not script_errors(browser)
        finally:
            server.stop()
