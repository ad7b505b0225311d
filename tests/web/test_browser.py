"""The pages in a real headless Chromium (Debian's chromium and chromium-driver, driven by Selenium),
served by a real `arena web` over a store filled by a real tournament: the leaderboards list the bots,
a replay of each game family steps to the end on the board and the board (units per area, read from
the SVG) is the engine's final position, a shared HTML replay works from disk, and the live page
follows a match a real referee is playing. Screenshots go to test-artifacts/web/."""

from __future__ import annotations

import gzip
import json
import math
import re
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

from arena.agents import AGENTS
from arena.bots import BUILTIN_BOTS
from arena.games import load_game, views
from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store import Store, StoredMatch
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
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

STALE = (StaleElementReferenceException,)  # a page that redraws an element: the wait finds it again


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
    WebDriverWait(browser, 20, ignored_exceptions=STALE).until(lambda b: b.find_elements(By.CSS_SELECTOR, ready))


def screenshot(browser: Any, name: str) -> None:
    assert not page_misreads(browser), page_misreads(browser)
    path = ARTIFACTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(path))


def script_errors(browser: Any) -> list[str]:
    """The page's script errors since the last call (a 404 the test asked for is not one), and what it
    shows that no person should read (an object where its text belongs)."""
    return [entry["message"] for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE" and entry.get("source") != "network"] + page_misreads(browser)


def page_misreads(browser: Any) -> list[str]:
    """Text on the page that is a script's value printed instead of what it holds ("[object HTMLDivElement]",
    "undefined", "NaN", or a missing value's "null" or "None" standing alone)."""
    text = browser.find_element(By.TAG_NAME, "body").text
    return [f"the page reads {word!r}" for word in ("[object ", "undefined", "NaN", "null", "None")
            if (word in text if word.startswith("[") else re.search(rf"\b{word}\b", text))]


def board_units(browser: Any) -> dict[str, Any]:
    """Units per area as the SVG holds them (each area's data-units), areas without units left out."""
    found = {}
    for area in browser.find_elements(By.CSS_SELECTOR, "svg.board g.area"):
        counts = json.loads(area.get_attribute("data-units"))
        if any(any(per_side) for per_side in counts):
            found[area.get_attribute("data-area")] = counts
    return found


def verdict_of(record: MatchRecord) -> str:
    """What a person should read of how a match ended: who won and how, in words, the seats and their players named
    ('Yellow (greedy) wins (score, 9 : 5)'), then the referee's detail, if any."""
    assert record.result is not None
    said = record.result.verdict(load_game(record.game, record.options).info.seat_names, record.player_names)
    return said + (f": {record.result.detail}" if record.result.detail else "")


def stored_record(store: Store, match: StoredMatch) -> MatchRecord:
    return MatchRecord.from_jsonl(gzip.decompress(store.matches.record(match)).decode())


def engine_units(store: Store, match: StoredMatch) -> dict[str, Any]:
    """Units per area of the engine's final position of a stored match, replayed from its record."""
    data = store.matches.record(match)
    final = replay(MatchRecord.from_jsonl(gzip.decompress(data).decode()))
    units = views.position(final, True)["units"]
    return {area: counts for area, counts in units.items() if any(any(per_side) for per_side in counts)}


def test_the_leaderboards_pick_a_game_and_mark_each_bot(browser: Any, site: str) -> None:
    open_page(browser, site + "/")
    picker = browser.find_element(By.ID, "pool")
    assert sorted(option.get_attribute("value") for option in picker.find_elements(By.TAG_NAME, "option")) \
        == sorted(GAMES)
    with urllib.request.urlopen(site + "/api/leaderboards") as response:
        pools = json.loads(response.read())["pools"]
    assert picker.get_attribute("value") == max(pools, key=lambda pool: pool["matches"])["pool"]  # the busiest
    assert len(browser.find_elements(By.CSS_SELECTOR, "#main table")) == 1  # one game at a time
    for pool in GAMES:
        browser.execute_script("const s = document.getElementById('pool'); s.value = arguments[0];"
                               "s.dispatchEvent(new Event('change'));", pool)
        WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, f"section.leaderboard[data-pool='{pool}'] tbody tr"))
        rows = browser.find_elements(By.CSS_SELECTOR, "section.leaderboard tbody tr")
        cells = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in rows]
        assert sorted(row[1] for row in cells) == sorted(BOTS.split(","))
        versions = {name: f"v{AGENTS[name].version}" for name in BOTS.split(",")}
        assert all(row[2] == "built-in" and row[3] == versions[row[1]] and row[4] == "Arena" for row in cells), cells
        lines = browser.find_elements(By.CSS_SELECTOR, "svg.chart polyline.series")
        assert sorted(line.get_attribute("data-bot") for line in lines) == sorted(BOTS.split(","))
        assert browser.current_url.endswith("/?pool=" + pool.replace("/", "%2F"))
    screenshot(browser, "leaderboards")
    open_page(browser, browser.current_url)  # the address keeps the game
    assert browser.find_element(By.ID, "pool").get_attribute("value") == GAMES[-1]
    browser.find_element(By.CSS_SELECTOR, "#main table th[data-key='games']").click()  # sortable
    WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, "#main table th.sorted[data-key='games']"))
    assert not script_errors(browser)


def test_a_bot_page(browser: Any, site: str) -> None:
    open_page(browser, site + "/bots/greedy")
    screenshot(browser, "bot-greedy")
    text = browser.find_element(By.ID, "main").text
    assert "greedy" in text and "scripted" in text and "random" in text  # head-to-head
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart")) == len(GAMES)  # a rating chart per pool
    for holder in browser.find_elements(By.CSS_SELECTOR, ".rating .scroll"):  # the head-to-head shown whole
        assert browser.execute_script("return arguments[0].scrollWidth - arguments[0].clientWidth", holder) <= 1
    for card in browser.find_elements(By.CSS_SELECTOR, ".rating"):  # "less luck": a figure, or why there is none
        cells = [row.find_elements(By.TAG_NAME, "td")[-1].text for row in card.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert cells and not any(cell in ("", "–", "-") for cell in cells), cells
        if card.get_attribute("data-pool") == "major-general":  # its luck model does not predict results (beta 0)
            assert set(cells) == {"not measured"}, cells
            assert "luck is not measured for major-general" in card.find_element(By.CSS_SELECTOR, ".luck-why").text
            browser.execute_script("arguments[0].scrollIntoView()", card)
            screenshot(browser, "bot-greedy-less-luck-not-measured")
        else:  # the General Orders games: measured
            assert all(cell.endswith("]") and "%" in cell for cell in cells), cells
    assert not script_errors(browser)


@pytest.mark.parametrize("pool", GAMES)
def test_a_replay_steps_to_the_engines_final_position(browser: Any, site: str, web_store: Store, pool: str) -> None:
    _total, [match] = web_store.matches.page(pool=pool, limit=1)
    open_page(browser, f"{site}/matches/{match.id}")
    viewer = browser.find_element(By.CSS_SELECTOR, "[data-step]")
    assert viewer.get_attribute("data-step") == "0"
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert viewer.get_attribute("data-step") == "2" and browser.current_url.endswith("#step=2")
    body.send_keys(Keys.END)
    assert viewer.get_attribute("data-step") == str(match.steps)
    assert board_units(browser) == engine_units(web_store, match)
    result = browser.find_element(By.CSS_SELECTOR, ".result").text
    assert result == verdict_of(stored_record(web_store, match))  # who won and how, as the server says it
    assert match.reason.replace("_", " ") in result and (" wins (" in result or "draw (" in result)
    heading = browser.find_element(By.ID, "outcome").text  # the result is in the header from the start
    winners = [seat.bot for seat in match.seats if seat.rank == 0]
    assert (f"{winners[0]} beat" in heading) if len(winners) == 1 else ("a draw between" in heading), heading
    assert browser.find_elements(By.CSS_SELECTOR, ".legend .item")
    screenshot(browser, f"replay-{pool.replace('/', '-')}")
    body.send_keys(Keys.ARROW_LEFT)
    assert viewer.get_attribute("data-step") == str(match.steps - 1)
    # a permalink to a step opens there, followed on the page or loaded afresh
    browser.get(f"{site}/matches/{match.id}#step=3")
    WebDriverWait(browser, 5, ignored_exceptions=STALE).until(lambda b: b.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") == "3")
    browser.get(site + "/bots")
    open_page(browser, f"{site}/matches/{match.id}#step=4")
    assert browser.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") == "4"
    assert not script_errors(browser)


def test_play_and_jump_to_a_decision(browser: Any, site: str, web_store: Store) -> None:
    _total, [match] = web_store.matches.page(pool="major-general", limit=1)
    open_page(browser, f"{site}/matches/{match.id}")
    viewer = browser.find_element(By.CSS_SELECTOR, "[data-step]")
    jump = browser.find_element(By.CSS_SELECTOR, "input[aria-label='jump to decision']")
    jump.send_keys("5", Keys.ENTER)
    WebDriverWait(browser, 5, ignored_exceptions=STALE).until(lambda b: b.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") != "0")
    counter = browser.find_element(By.CSS_SELECTOR, ".counter").text
    assert "decision 5" in counter
    at = viewer.get_attribute("data-step")
    for nothing in ("0", ""):  # no decision 0 (a chance step's mark), nor an empty box: the viewer stays put
        jump.send_keys(Keys.CONTROL, "a")
        jump.send_keys(Keys.BACKSPACE, nothing, Keys.ENTER)
        assert viewer.get_attribute("data-step") == at
        assert browser.find_element(By.CSS_SELECTOR, ".counter").text == counter
    browser.find_element(By.CSS_SELECTOR, "button[title^='Play']").click()
    start = int(viewer.get_attribute("data-step"))
    WebDriverWait(browser, 10, ignored_exceptions=STALE).until(lambda b: int(b.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step")) > start + 1)


def replay_steps(site: str, match_id: int) -> list[dict[str, Any]]:
    """The replay document's steps, as the API streams them."""
    lines = urllib.request.urlopen(f"{site}/api/matches/{match_id}/replay", timeout=30).read().decode().splitlines()
    return [json.loads(line) for line in lines if line.strip() and '"n"' in line[:8]]


@pytest.mark.parametrize("pool", [game for game in GAMES if game.startswith("general-orders")])
def test_the_order_board_and_the_map_show_each_steps_commanders(browser: Any, site: str, web_store: Store,
                                                                pool: str) -> None:
    _total, [match] = web_store.matches.page(pool=pool, limit=1)
    steps = replay_steps(site, match.id)
    open_page(browser, f"{site}/matches/{match.id}")
    chosen = [n for n, step in enumerate(steps, start=1) if any(any(c) for c in step["position"]["orders"])][:3]
    assert chosen, "no commander was ever placed"
    for number in chosen:
        browser.get(f"{site}/matches/{match.id}#step={number}")
        WebDriverWait(browser, 5, ignored_exceptions=STALE).until(
            lambda b: b.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") == str(number))
        expected = steps[number - 1]["position"]["orders"]
        chips = {int(chip.get_attribute("data-space")): json.loads(chip.get_attribute("data-commanders"))
                 for chip in browser.find_elements(By.CSS_SELECTOR, ".orders .space")}
        shown = [chips[index] for index in sorted(chips)]
        assert shown == expected
        on_map = sum(sum(json.loads(pips.get_attribute("data-commanders")))
                     for pips in browser.find_elements(By.CSS_SELECTOR, "svg.board .commanders"))
        support = sum(sum(placed) for space, placed in zip(views.board(load_game(pool))["orders"], expected)
                      if space["area"] is None and space["zone"] is None)
        assert on_map == sum(map(sum, expected)) - support  # every commander on an area or zone is drawn
    browser.get(f"{site}/matches/{match.id}#step={chosen[-1]}")
    browser.execute_script("document.querySelector('.orders').scrollIntoView({block: 'center'})")
    screenshot(browser, f"order-board-{pool.replace('/', '-')}")
    assert not script_errors(browser)


def test_island_air_zones_sit_apart_from_each_other_and_the_areas(browser: Any, site: str, web_store: Store) -> None:
    _total, [match] = web_store.matches.page(pool="general-orders-wwii/island", limit=1)
    open_page(browser, f"{site}/matches/{match.id}")
    boxes = browser.execute_script("""
        const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
        return { zones: [...document.querySelectorAll('svg.board .group > rect')].map(box),
                 areas: [...document.querySelectorAll('svg.board .area circle.body')].map(box) };""")
    assert len(boxes["zones"]) == 5 and len(boxes["areas"]) == 16

    def overlap(a: list[float], b: list[float]) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    for i, zone in enumerate(boxes["zones"]):
        assert not any(overlap(zone, other) for other in boxes["zones"][i + 1:])
        assert not any(overlap(zone, area) for area in boxes["areas"])


def test_the_steps_can_be_searched(browser: Any, site: str, web_store: Store) -> None:
    _total, [match] = web_store.matches.page(pool="general-orders-wwii/island", limit=1)
    open_page(browser, f"{site}/matches/{match.id}")
    viewer = browser.find_element(By.CSS_SELECTOR, "[data-step]")
    WebDriverWait(browser, 20, ignored_exceptions=STALE).until(lambda b: b.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-loaded") == "true")
    rows = browser.find_elements(By.CSS_SELECTOR, ".steps > div")
    word = next(word for word in ("advance", "reinforce", "pass") if any(word in row.text.lower() for row in rows))
    search = browser.find_element(By.CSS_SELECTOR, "input[aria-label='search steps']")
    search.send_keys(word)
    found = int(viewer.get_attribute("data-found"))
    visible = [row for row in rows if row.is_displayed()]
    assert 0 < found == len(visible) < len(rows) and all(word in row.text.lower() for row in visible)
    search.send_keys(Keys.ENTER)
    WebDriverWait(browser, 5, ignored_exceptions=STALE).until(lambda b: b.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") != "0")
    assert word in browser.find_element(By.CSS_SELECTOR, ".step-label").text.lower()


PAGES = ("/", "/bots", "/bots/greedy", "/tournaments", "/tournaments/web/major-general", "/ladders", "/matches",
         "/live", "/signin")


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_at_a_laptops_and_a_phones_width(browser: Any, site: str, web_store: Store, width: int) -> None:
    """Screenshots of each page; nothing wider than the window, every navigation link in sight (two rows at
    most), the board's labels readable (at least 11 px: on a phone the board scrolls sideways rather than
    shrink them), no script error."""
    matches = {game: web_store.matches.page(pool=game, limit=1)[1][0].id for game in GAMES}
    browser.set_window_size(width, 900)
    try:
        for path in [*PAGES, *(f"/matches/{match}" for match in matches.values())]:
            open_page(browser, site + path)
            if path.startswith("/matches/"):
                WebDriverWait(browser, 20, ignored_exceptions=STALE).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-loaded='true']"))
                sizes = browser.execute_script("return [...document.querySelectorAll('svg.board .area text.name')]"
                                               ".map((t) => t.getBoundingClientRect().height)")
                assert sizes and min(sizes) >= 11, f"{path}: board labels {min(sizes):.1f} px high at {width} px"
                if path.endswith(f"/{matches['major-general']}"):  # a line base to base: all of it in sight
                    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.board g.area.hq")) == 2
                    cut = browser.execute_script(
                        "const w = document.querySelector('.board-wrap').getBoundingClientRect(); return [...document"
                        ".querySelectorAll('svg.board g.area')].filter((g) => { const r = g.getBoundingClientRect(); "
                        "return r.left < w.left - 1 || r.right > w.right + 1; }).map((g) => g.textContent)")
                    assert not cut, f"{path}: areas out of sight at {width} px: {cut}"
            overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{path} is {overflow}px wider than a {width} px window"
            header = browser.find_element(By.CSS_SELECTOR, "header.top").size["height"]
            assert header < 100, f"{path}: the navigation takes {header} px (more than two rows)"
            hidden = browser.execute_script(  # every link of the navigation in sight, none cut or scrolled away
                "return [...document.querySelectorAll('header.top nav a')].filter((a) => { const r = "
                "a.getBoundingClientRect(); return r.right > window.innerWidth + 1 || r.width === 0 || "
                "r.right > a.parentElement.getBoundingClientRect().right + 1; }).map((a) => a.textContent)")
            assert not hidden, f"{path}: navigation links out of sight at {width} px: {hidden}"
            name = "home" if path == "/" else path.strip("/").replace("/", "-")
            if path.startswith("/matches/"):
                name = "match-" + next(game for game, match in matches.items() if path.endswith(f"/{match}"))
            screenshot(browser, f"{width}/{name.replace('/', '-')}")
            assert not script_errors(browser), path
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
    _total, [match] = web_store.matches.page(pool="general-orders-sengoku/rivers", limit=1)
    data = web_store.matches.record(match)
    record = tmp_path / "match.jsonl"
    record.write_bytes(gzip.decompress(data))
    page = tmp_path / "match.html"
    done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "replay", str(record),
                           "--html", str(page)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text  # offline
    open_page(browser, page.as_uri())
    said = browser.find_element(By.ID, "outcome").text  # who won and how, before any step is played
    assert re.fullmatch(r"(.+ wins|draw) \(.+\)", said) and "ranking" not in said, said
    expected = verdict_of(stored_record(web_store, match))
    assert expected.startswith(said)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert browser.find_element(By.CSS_SELECTOR, "[data-step]").get_attribute("data-step") == str(match.steps)
    assert browser.find_element(By.CSS_SELECTOR, ".result").text == expected  # and again under the final position
    assert board_units(browser) == engine_units(web_store, match)
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
            WebDriverWait(browser, 30, ignored_exceptions=STALE).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#main table a"))
            browser.find_element(By.CSS_SELECTOR, "#main table a").click()
            WebDriverWait(browser, 30, ignored_exceptions=STALE).until(lambda b: b.find_elements(By.CSS_SELECTOR, "svg.board"))
            # (the live page redraws its parts as decisions arrive: each read finds its element again)
            seen = WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
                lambda b: int(b.find_element(By.ID, "live").get_attribute("data-steps") or 0) + 1) - 1
            # the page takes the running match's next decisions while it runs (a condition, not a time: the
            # slow bots pace the match, a busy machine only slows both sides)
            WebDriverWait(browser, 30, poll_frequency=0.05, ignored_exceptions=STALE).until(
                lambda b: int(b.find_element(By.ID, "live").get_attribute("data-steps") or 0) > seen
                and b.find_element(By.ID, "live").get_attribute("data-finished") is None)
            panels = WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
                lambda b: b.find_element(By.CSS_SELECTOR, ".sides").text)
            assert "hand:" not in panels and "(hidden)" in panels  # a spectator sees no hand
            screenshot(browser, "live")
            WebDriverWait(browser, 60, ignored_exceptions=STALE).until(
                lambda b: b.find_element(By.ID, "live").get_attribute("data-finished") == "true")
            status = browser.find_element(By.CSS_SELECTOR, "#live .status").text
            assert re.search(r"finished: (.+ wins|draw) \(", status) and "ranking" not in status, status
            assert live.record is not None and status == f"finished: {verdict_of(live.record)}", status
            assert live.task is not None and live.task.done()
            assert not script_errors(browser)
        finally:
            server.stop()


def test_the_chance_curve_under_the_board_jumps_to_a_decision(browser: Any, site: str, web_store: Store) -> None:
    _total, [match] = web_store.matches.page(pool="general-orders-wwii/island", limit=1)  # analysed by the fixture
    open_page(browser, f"{site}/matches/{match.id}", ready="[data-analysed='true']")
    chart = browser.find_element(By.CSS_SELECTOR, "svg.chance-chart")
    assert int(chart.get_attribute("data-decisions")) == match.decisions
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chance-chart polyline")) == 2
    points = browser.find_elements(By.CSS_SELECTOR, ".turning-points li")
    if points:  # a listed turning point goes to its decision, and its step is flagged in the list
        want = points[0].get_attribute("data-step")
        points[0].find_element(By.TAG_NAME, "a").click()
        WebDriverWait(browser, 5, ignored_exceptions=STALE).until(
            lambda b: b.find_element(By.CSS_SELECTOR, "[data-step][data-analysed]").get_attribute("data-step") == want)
        assert browser.find_elements(By.CSS_SELECTOR, f".steps .turning[data-step='{want}']")
    browser.execute_script("arguments[0].scrollIntoView()", chart)
    size = chart.size
    webdriver.ActionChains(browser).move_to_element_with_offset(chart, size["width"] // 4 - size["width"] // 2, 0) \
        .click().perform()  # a quarter of the way along the curve
    WebDriverWait(browser, 5, ignored_exceptions=STALE).until(
        lambda b: 0 < int(b.find_element(By.CSS_SELECTOR, "svg.chance-chart").get_attribute("data-at"))
        < match.decisions)
    screenshot(browser, "chance-curve")
    assert not script_errors(browser)


def test_a_bots_own_text_is_shown_visibly_not_interpreted(browser: Any, web_db: str, tmp_path: Path) -> None:
    """A version and an owner with control characters, a direction override and NUL (stored before the rules at
    entry) show on the bot page and the leaderboard as visible escapes; the page still draws."""
    from sqlalchemy import update

    from arena.store.models import Bot

    copy = tmp_path / "hostile.db"
    shutil.copy(web_db.removeprefix("sqlite:///"), copy)
    hostile = "v\u202eevil\x1b[7m\x00<!--<script>"
    store = Store.open(f"sqlite:///{copy}")
    with store.engine.begin() as conn:
        conn.execute(update(Bot).where(Bot.name == "random").values(version=hostile, owner=hostile))
    store.close()
    server = WebServer(f"sqlite:///{copy}")
    try:
        for path in ("/bots/random", "/"):
            open_page(browser, server.url + path)
            text = browser.execute_script("return document.getElementById('main').textContent")
            assert "v\\u202eevil\\x1b[7m\\x00<!--<script>" in text, text[:400]
            assert not any(ch in text for ch in "\u202e\x1b\x00")
            assert not script_errors(browser)
    finally:
        server.stop()


def _versions_db(path: Path) -> str:
    """A store where ann-bot v2 and v3 met the same two opponents (v3 far better): a version report to read."""
    from datetime import datetime

    from arena.ratings.policy import DEFAULT_POLICY
    from arena.referee.players import PlayerKind
    from arena.store import BotIdentity
    from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot

    url = f"sqlite:///{path}"
    store = Store.open(url)
    try:
        def bot(name: str, version: str, content: str, kind: PlayerKind) -> int:
            made, _new = store.bots.add_version(BotIdentity(name, version, content, kind, f"/bots/{content}", "ann"),
                                                games=["major-general"])
            store.bots.set_status(made, "live")
            return made

        old, new = bot("ann-bot", "2", "aaaa", PlayerKind.PROGRAM), bot("ann-bot", "3", "bbbb", PlayerKind.PROGRAM)
        rock, paper = bot("rock", "1", "rock", PlayerKind.AGENT), bot("paper", "1", "paper", PlayerKind.AGENT)
        tournament = store.tournaments.create(name=None, game="major-general", pool="major-general", options={},
                                              format="ladder", seed=1, rounds=1, settings={}, bot_ids=[old, new, rock, paper])
        played = []
        for number, (mine, theirs, won) in enumerate([(old, rock, n < 6) for n in range(20)]
                                                     + [(old, paper, n < 5) for n in range(20)]
                                                     + [(new, rock, n < 16) for n in range(20)]
                                                     + [(new, paper, n < 15) for n in range(20)], start=1):
            at = datetime(2026, 1, 1, 0, number // 60, number % 60)
            job = MatchJob(tournament, number, 0, 0, "major-general", {}, number,
                           (SeatBot(mine, "ann-bot", "x", PlayerKind.PROGRAM, ""),
                            SeatBot(theirs, "o", "1", PlayerKind.AGENT, "random")), pool="major-general")
            played.append(PlayedMatch(job, uid=f"m{number}", ranking=(0, 1) if won else (1, 0), scores=(1.0, 0.0),
                                      reason="score", offender=None, detail="", steps=3, decisions=2, timings={},
                                      record_gz=b"x", record_size=1, started_at=at, finished_at=at, luck=None))
        store.matches.save(played, DEFAULT_POLICY)
    finally:
        store.close()
    return url


@pytest.mark.parametrize("width", [1280, 390])
def test_a_version_reports_verdict_is_in_sight_at_a_laptops_and_a_phones_width(browser: Any, tmp_path: Path,
                                                                                width: int) -> None:
    server = WebServer(_versions_db(tmp_path / "versions.db"))
    browser.set_window_size(width, 900)
    try:
        open_page(browser, f"{server.url}/bots/ann-bot")
        WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#compare td.verdict"))
        verdict = browser.find_element(By.CSS_SELECTOR, "#compare td.verdict")
        assert verdict.text == "better", verdict.text
        left, right, window = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, window.innerWidth]", verdict)
        assert 0 <= left and right <= window, f"the verdict stands at {left:.0f}-{right:.0f} px of {window} px"
        report = browser.find_element(By.ID, "compare").text
        assert "+50.0 points" in report and "v3 against v2" in report, report
        screenshot(browser, f"version-report-{width}")
        assert not script_errors(browser)
    finally:
        browser.set_window_size(1280, 900)
        server.stop()


def _stored_match_db(path: Path, reshaped: Any) -> tuple[str, int]:
    """A store holding one match (greedy against random) with an analysis: `reshaped(analysis, record)`."""
    from datetime import datetime

    from arena.agents import make_agent
    from arena.analysis import Budget, analyse_record
    from arena.ratings.policy import DEFAULT_POLICY
    from arena.referee.authority import play_match
    from arena.referee.players import PlayerKind
    from arena.store import BotIdentity
    from arena.tournament.jobs import MatchJob, SeatBot, played_from_record

    game = load_game("major-general")
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=9)
    url = f"sqlite:///{path}"
    store = Store.open(url)
    try:
        bots = [store.bots.register(BotIdentity(name, "1", name, PlayerKind.AGENT, name)) for name in ("greedy", "random")]
        tournament = store.tournaments.create(name=None, game=game.name, pool=game.name, options={},
                                              format="round-robin", seed=1, rounds=1, settings={}, bot_ids=bots)
        job = MatchJob(tournament, 0, 0, 0, game.name, {}, 9,
                       tuple(SeatBot(bot, name, "1", PlayerKind.AGENT, name)
                             for bot, name in zip(bots, ("greedy", "random"))), pool=game.name)
        [match_id] = store.matches.save([played_from_record(job, record, datetime(2026, 1, 1), 1.0)], DEFAULT_POLICY)
        analysis = reshaped(analyse_record(record, Budget(simulations=8), seed=1), record)
        store.analyses.save(match_id, analysis.budget, 1, 0.1, analysis.compressed())
    finally:
        store.close()
    return url, match_id


def _slid(analysis: Any, record: MatchRecord) -> Any:
    """The analysis reshaped so that it finds no turning point but random's slow slide: every move of its lost a
    little."""
    from dataclasses import replace

    loser = 1 - record.result.ranking.index(0) if record.result else 1
    mine = [entry for entry in analysis.entries if entry.seat == loser]
    chance, entries = 0.7, []
    for entry in analysis.entries:  # the loser's chance falls 0.7 -> 0 in even steps; the winner's mirrors it
        if entry.seat == loser:
            step = 0.7 / len(mine)
            entries.append(replace(entry, before=chance, after=chance - step, forced=False, uncertainty=0.05))
            chance -= step
        else:
            entries.append(replace(entry, before=1 - chance, after=1 - chance, forced=False))
    slid = replace(analysis, entries=tuple(entries), turning_points=())
    assert [slide.seat for slide in slid.slides()] == [loser]
    return slid


def _slid_match_db(path: Path) -> tuple[str, int]:
    """A store holding one match (greedy beats random) whose analysis finds no turning point but random's
    slow slide: every move of its lost a little."""
    return _stored_match_db(path, _slid)


def test_a_match_lost_by_a_slide_says_so_under_its_chance_curve(browser: Any, tmp_path: Path) -> None:
    url, match_id = _slid_match_db(tmp_path / "slid.db")
    server = WebServer(url)
    try:
        open_page(browser, f"{server.url}/matches/{match_id}")
        WebDriverWait(browser, 30, ignored_exceptions=STALE).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, "[data-analysed='true'] .slide"))
        said = browser.find_element(By.CSS_SELECTOR, ".slide").text
        assert "slid from 70% to 0% with no single turning point" in said and "out-played a little" in said, said
        analysis = browser.find_element(By.CSS_SELECTOR, ".analysis").text
        assert "No turning point" in analysis and "--budget 40" in analysis, analysis
        screenshot(browser, "match-lost-by-a-slide")
        assert not script_errors(browser)
    finally:
        server.stop()


def _with_forms(analysis: Any, record: MatchRecord) -> Any:
    """The analysis with both players' forms: greedy's moves (seat 0) lose 0.4% a decision, random's 3.5% (as in
    their other analysed matches), and their results in their seats beat their chances by +12% and -4% at a
    match's start (12 and 10 matches, each edge's error 2%: clear)."""
    from dataclasses import replace

    from arena.analysis.players import PlayerForm

    return replace(analysis, players=(PlayerForm(0.004, 120, 6, 20.0, 0.12, 0.02, 12),
                                      PlayerForm(0.035, 90, 6, 15.0, -0.04, 0.02, 10)))


def test_a_match_page_says_the_chances_as_its_players_play(browser: Any, tmp_path: Path) -> None:
    """Where both players' forms are known, the page says each side's chance at the start as they play, in words
    a person reads, what each side's moves lose, and how each has fared in its seat."""
    from arena.analysis import Analysis

    url, match_id = _stored_match_db(tmp_path / "forms.db", _with_forms)
    store = Store.open(url)
    try:
        stored = store.analyses.get(match_id)
        assert stored is not None
        analysis = Analysis.from_compressed(stored)
    finally:
        store.close()
    chances = analysis.expected()
    assert chances is not None
    seat0 = chances[0] if analysis.entries[0].seat == 0 else 1 - chances[0]
    server = WebServer(url)
    try:
        said = as_they_play(browser, f"{server.url}/matches/{match_id}")
        percent = lambda value: math.floor(value * 100 + 0.5)  # noqa: E731 (as the page rounds: Math.round)
        assert f"As they play: greedy {percent(seat0)}%, random {percent(1 - seat0)}% at the start" in said, said
        assert "greedy's moves lose 0.4% of a game each (6 match(es)); random's moves lose 3.5%" in said, said
        assert ("as each has fared in its seat (its results over its chances at a match's start, fading by the "
                "end): greedy's +12.0% (12 matches); random's −4.0% (10 matches), so greedy +8.0% at the start"
                in said), said
        assert "object" not in said and "undefined" not in said and "NaN" not in said
        assert not script_errors(browser)
    finally:
        server.stop()


def as_they_play(browser: Any, page: str) -> str:
    """The match page's "As they play" sentence once its analysis is drawn, as a person reads it."""
    open_page(browser, page)
    WebDriverWait(browser, 30, ignored_exceptions=STALE).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, "[data-analysed='true'] .as-they-play"))
    return " ".join(browser.find_element(By.CSS_SELECTOR, ".as-they-play").text.split())


def _with_a_gaining_form(analysis: Any, record: MatchRecord) -> Any:
    """The analysis with both players' forms, greedy's moves gaining 0.4% a decision by the search's reading."""
    from dataclasses import replace

    from arena.analysis.players import PlayerForm

    return replace(analysis, players=(PlayerForm(-0.004, 120, 6, 20.0), PlayerForm(0.035, 90, 6, 15.0)))


def test_a_players_form_that_gains_reads_as_a_gain(browser: Any, tmp_path: Path) -> None:
    """A player the search underrates (its moves' mean drop below zero) gains: never "lose -0.4%"."""
    url, match_id = _stored_match_db(tmp_path / "gains.db", _with_a_gaining_form)
    server = WebServer(url)
    try:
        said = as_they_play(browser, f"{server.url}/matches/{match_id}")
        assert "greedy's moves gain 0.4% of a game each (6 match(es)); random's moves lose 3.5%" in said, said
        assert not script_errors(browser)
    finally:
        server.stop()


TURNING_DECISION = 14  # the decision made a turning point by `_turning_at`
PLAYED_OUT_DECISION = 20  # ... and the one it makes a turning point judged by playouts (where the search saw none)


def _turning_at(analysis: Any, record: MatchRecord) -> Any:
    """The analysis reshaped so that decision TURNING_DECISION is a clear turning point by the search, and
    PLAYED_OUT_DECISION one by playouts (and no other)."""
    from dataclasses import replace

    from arena.analysis.match import turning_points

    entries = [replace(entry, before=0.8 if entry.decision == TURNING_DECISION - 1 else 0.5,
                       after=0.2 if entry.decision == TURNING_DECISION - 1 else 0.5, uncertainty=0.01, forced=False,
                       best="a better move" if entry.decision == TURNING_DECISION - 1 else entry.played,
                       playout_cost=0.3 if entry.decision == PLAYED_OUT_DECISION - 1 else None, playout_error=0.05,
                       playout_best="the move the playouts kept")
               for entry in analysis.entries]
    return replace(analysis, entries=tuple(entries), turning_points=tuple(turning_points(entries)))


def test_one_moment_has_the_same_numbers_on_the_page_in_replay_and_in_the_analysis(
        browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One numbering of a match's moments (issue 45): decision 14, at step S of the record, is "S." in the step
    list and `arena replay`, "step S of N · decision 14" on the counter, #step=S in the address (#decision=14
    opens it), and "decision 14 (step S)" in the analysis, on the page and in `arena analyse`."""
    from arena.analysis import Analysis
    from arena.cli.main import main
    from arena.cli.show import show_analysis

    url, match_id = _stored_match_db(tmp_path / "turning.db", _turning_at)
    store = Store.open(url)
    record = MatchRecord.from_bytes(store.matches.record(store.matches.get(match_id)))
    store.close()
    at = record.step_of_decision(TURNING_DECISION)
    assert at is not None and at > TURNING_DECISION  # (chance steps before it: two different numbers)
    name = f"decision {TURNING_DECISION} (step {at})"
    label = record.steps[at - 1].label
    path = tmp_path / "match.jsonl"
    record.write(path)
    assert main(["replay", str(path), "--decision", str(TURNING_DECISION)]) == 0
    replayed = capsys.readouterr().out
    assert f"{at}. {label}  (decision {TURNING_DECISION})" in replayed
    assert main(["replay", "1", "--db", url]) == 0  # the stored match: its turning point, named the same
    replayed = " ".join(capsys.readouterr().out.split())
    assert f"turning point at {name}" in replayed
    assert "better: the move the playouts kept (kept 80%); judged by playouts" in replayed
    store = Store.open(url)
    analysis = Analysis.from_compressed(store.analyses.get(match_id) or b"")
    store.close()
    show_analysis(analysis)  # what `arena analyse` prints of it
    shown = " ".join(capsys.readouterr().out.split())
    played_out = f"decision {PLAYED_OUT_DECISION} (step {record.step_of_decision(PLAYED_OUT_DECISION)})"
    assert f"{name} " in shown and f"{played_out}: judged by paired playouts" in shown
    server = WebServer(url)
    try:
        open_page(browser, f"{server.url}/matches/{match_id}#decision={TURNING_DECISION}",
                  ready="[data-analysed='true']")
        WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
            lambda b: b.find_element(By.CSS_SELECTOR, "[data-step][data-analysed]").get_attribute("data-step")
            == str(at))
        counter = browser.find_element(By.CSS_SELECTOR, ".counter").text
        assert counter == f"step {at} of {len(record.steps)} · decision {TURNING_DECISION}", counter
        assert browser.current_url.endswith(f"#step={at}")
        shown = browser.find_element(By.CSS_SELECTOR, ".step-label").text
        assert shown.startswith(f"{at}. ") and shown.endswith(f"(decision {TURNING_DECISION})"), shown
        row = browser.find_element(By.CSS_SELECTOR, f".steps [data-step='{at}']").text
        assert row.startswith(f"{at}. ") and f"(decision {TURNING_DECISION})" in row, row
        point, played_out = browser.find_elements(By.CSS_SELECTOR, ".turning-points li")
        assert point.text.startswith(name) and point.get_attribute("data-step") == str(at), point.text
        assert "judged by" not in point.text
        assert played_out.text.startswith(f"decision {PLAYED_OUT_DECISION} (step ") and played_out.text.endswith(
            "(−30%); better: the move the playouts kept (kept 80%); judged by playouts"), played_out.text
        chance = next(index for index, step in enumerate(record.steps, start=1) if step.is_chance and index > 1)
        before = sum(1 for step in record.steps[:chance] if not step.is_chance)
        browser.get(f"{server.url}/matches/{match_id}#step={chance}")  # a chance step: after which decision
        WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
            lambda b: b.find_element(By.CSS_SELECTOR, ".counter").text
            == f"step {chance} of {len(record.steps)} · chance" + (f", after decision {before}" if before else ""))
        assert browser.find_element(By.CSS_SELECTOR, f".steps [data-step='{chance}']").text.startswith(f"{chance}. ⚄")
        assert not script_errors(browser)
    finally:
        server.stop()

