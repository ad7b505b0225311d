"""An owner in a real headless Chromium against a real `arena web`: sign in with the token, upload a bot
with the file form, watch its pre-flight appear step by step until it is live, retire it, sign out."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.submissions.test_submit import make_bot
from tests.web.test_browser import WebServer, browser, open_page, screenshot, script_errors  # noqa: F401

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def owned_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    """`arena web` over a fresh database with one owner; (its URL, the owner's token, a work folder)."""
    folder = tmp_path_factory.mktemp("owned")
    database = folder / "arena.db"
    out = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "owner", "add", "ann",
                          "--db", str(database), "--json"], capture_output=True, text=True, check=True)
    server = WebServer(str(database), "--bot-store", str(folder / "store"))
    yield server.url, json.loads(out.stdout)["token"], folder
    server.stop()


def test_an_owner_signs_in_uploads_watches_the_preflight_and_retires(owned_site: tuple[str, str, Path],
                                                                     browser: Any) -> None:  # noqa: F811
    url, token, folder = owned_site
    open_page(browser, f"{url}/account")  # not signed in: sent to the sign-in page
    WebDriverWait(browser, 20).until(lambda b: b.current_url.endswith("/signin") and b.find_elements(By.ID, "token"))
    browser.find_element(By.ID, "token").send_keys("not-the-token")
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    WebDriverWait(browser, 20).until(lambda b: "wrong owner token" in b.find_element(By.ID, "signin").text)
    field = browser.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    WebDriverWait(browser, 20).until(lambda b: b.current_url.endswith("/account")
                                     and b.find_elements(By.ID, "archive"))
    assert "ann's bots" in browser.find_element(By.TAG_NAME, "h1").text
    assert browser.get_cookie("arena_session")["httpOnly"] is True  # the page's scripts cannot read it
    command = browser.find_element(By.CSS_SELECTOR, "#upload #pack-command")  # a command alone, no full stop after it
    assert command.text == "tar czf my-bot.tar.gz -C my-bot ." and command.find_element(By.TAG_NAME, "code")
    assert "-C my-bot .." not in browser.find_element(By.ID, "upload").text
    screenshot(browser, "account-signed-in")
    browser.set_window_size(390, 900)  # a phone: the file field inside its drop zone, the page no wider than it
    try:
        WebDriverWait(browser, 10).until(lambda b: b.execute_script("return window.innerWidth") <= 400)
        spill = browser.execute_script(
            "const z = document.getElementById('dropzone').getBoundingClientRect(), f = document.getElementById("
            "'archive').getBoundingClientRect(); return [f.left - z.left, z.right - f.right, "
            "document.documentElement.scrollWidth - window.innerWidth]")
        assert spill[0] >= 0 and spill[1] >= 0 and spill[2] <= 1, spill
        screenshot(browser, "390/account-signed-in")
    finally:
        browser.set_window_size(1280, 900)

    bot = make_bot(folder / "web-bot", "web-bot")
    archive = folder / "web-bot.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(bot, arcname=".")
    browser.find_element(By.ID, "archive").send_keys(str(archive))
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#upload-progress ul.steps li"))
    screenshot(browser, "account-preflight-running")
    WebDriverWait(browser, 180).until(
        lambda b: b.find_element(By.ID, "upload-progress").get_attribute("data-status") in ("live", "failed", "error"))
    progress = browser.find_element(By.ID, "upload-progress")
    assert progress.get_attribute("data-status") == "live", progress.text
    assert "start in the sandbox and say Hello" in progress.text and "web-bot version 1 is live" in progress.text
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-bot='web-bot'] button.retire"))
    screenshot(browser, "account-live")

    retire = browser.find_element(By.CSS_SELECTOR, "[data-bot='web-bot'] button.retire")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", retire)
    retire.click()
    WebDriverWait(browser, 20).until(lambda b: not b.find_elements(By.CSS_SELECTOR, "[data-bot='web-bot'] button.retire")
                                     and "retired" in b.find_element(By.CSS_SELECTOR, "[data-bot='web-bot']").text)
    assert not script_errors(browser)

    sign_out = browser.find_element(By.ID, "sign-out")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", sign_out)
    sign_out.click()
    WebDriverWait(browser, 20).until(lambda b: not b.current_url.endswith("/account"))
    open_page(browser, f"{url}/account")
    WebDriverWait(browser, 20).until(lambda b: b.current_url.endswith("/signin"))


def test_the_match_page_shows_a_faulting_bots_output_to_its_owner_only(owned_site: tuple[str, str, Path],
                                                                       browser: Any) -> None:  # noqa: F811
    from arena.ratings.policy import DEFAULT_POLICY
    from arena.referee.clock import ClockSettings
    from arena.referee.players import PlayerKind
    from arena.store import BotIdentity, Store
    from arena.tournament.bots import BotSpec
    from arena.tournament.jobs import MatchJob, SeatBot
    from arena.tournament.referee_executor import RefereeExecutor

    url, token, folder = owned_site
    crasher = make_bot(folder / "crasher", "ann-crash", "import sys\nprint('MARKER-for-ann-only', file=sys.stderr)\n"
                       "sys.exit(3)\n")
    store = Store.open(f"sqlite:///{folder / 'arena.db'}")
    try:
        bot = store.bots.register(BotIdentity("ann-crash", "1", "crasher-hash", PlayerKind.PROGRAM, str(crasher),
                                              "ann"))
        opponent = store.bots.register(BotSpec("random", "random").identity())
        tournament = store.tournaments.create(name="evidence", game="major-general", pool="major-general",
                                              options={}, format="round-robin", seed=1, rounds=1, settings={},
                                              bot_ids=[bot, opponent])
        job = MatchJob(tournament, 0, 0, 0, "major-general", {}, 1,
                       (SeatBot(bot, "ann-crash", "1", PlayerKind.PROGRAM, str(crasher)),
                        SeatBot(opponent, "random", "1", PlayerKind.AGENT, "random")), pool="major-general")
        with RefereeExecutor(1, clock=ClockSettings(move_time_s=2.0, bank_s=2.0, grace_s=1.0)) as executor:
            [played] = list(executor.run([job]))
        store.matches.save([played], DEFAULT_POLICY)
        [match] = store.matches.of_tournament(tournament)
    finally:
        store.close()
    assert match.reason == "crash"

    open_page(browser, f"{url}/matches/{match.id}")  # a visitor: the result, not the bot's output
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-loaded='true']"))
    assert "ann-crash" in browser.find_element(By.ID, "outcome").text
    assert "MARKER" not in browser.find_element(By.ID, "main").text and not browser.find_elements(By.CSS_SELECTOR,
                                                                                                    ".evidence")
    open_page(browser, f"{url}/signin")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.ID, "token"))
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    WebDriverWait(browser, 20).until(lambda b: b.current_url.endswith("/account"))
    open_page(browser, f"{url}/matches/{match.id}")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".evidence"))
    evidence = browser.find_element(By.CSS_SELECTOR, ".evidence").text
    assert "MARKER-for-ann-only" in evidence and "its owner, only" in evidence
    screenshot(browser, "match-evidence-for-its-owner")
    assert not script_errors(browser)


NOTING = '''
from arena.agents.base import Agent
from arena.sdk import run_bot


class Noting(Agent):
    name = "noting"

    def act(self, request):
        request.note = f"NOTE-for-ann-only: {len(request.legal_actions)} moves <b>not bold</b>"
        print(f"PRINTED-for-ann-only: {len(request.legal_actions)} moves", flush=True)
        return request.legal_actions[-1]


if __name__ == "__main__":
    run_bot(Noting())
'''


def test_the_match_page_shows_a_bots_notes_beside_the_board_to_its_owner_only(owned_site: tuple[str, str, Path],
                                                                                browser: Any) -> None:  # noqa: F811
    from arena.ratings.policy import DEFAULT_POLICY
    from arena.referee.clock import ClockSettings
    from arena.referee.players import PlayerKind
    from arena.referee.record import MatchRecord
    from arena.store import BotIdentity, Store
    from arena.tournament.bots import BotSpec
    from arena.tournament.jobs import MatchJob, SeatBot
    from arena.tournament.referee_executor import RefereeExecutor

    url, token, folder = owned_site
    noting = make_bot(folder / "noting", "ann-notes", NOTING)
    store = Store.open(f"sqlite:///{folder / 'arena.db'}")
    try:
        bot = store.bots.register(BotIdentity("ann-notes", "1", "noting-hash", PlayerKind.PROGRAM, str(noting), "ann"))
        opponent = store.bots.register(BotSpec("random", "random").identity())
        tournament = store.tournaments.create(name="notes", game="major-general", pool="major-general",
                                              options={}, format="round-robin", seed=1, rounds=1, settings={},
                                              bot_ids=[bot, opponent])
        job = MatchJob(tournament, 0, 0, 0, "major-general", {}, 1,
                       (SeatBot(bot, "ann-notes", "1", PlayerKind.PROGRAM, str(noting)),
                        SeatBot(opponent, "random", "1", PlayerKind.AGENT, "random")), pool="major-general")
        with RefereeExecutor(1, clock=ClockSettings(move_time_s=5.0, bank_s=5.0, grace_s=1.0)) as executor:
            [played] = list(executor.run([job]))
        store.matches.save([played], DEFAULT_POLICY)
        [match] = store.matches.of_tournament(tournament)
        record = MatchRecord.from_bytes(store.matches.record(match))
    finally:
        store.close()
    noted = next(index for index, step in enumerate(record.steps, start=1)  # its viewer step: a note, lines printed
                 if step.note and step.output)
    other = next(index for index, step in enumerate(record.steps, start=1) if not step.note)

    browser.delete_all_cookies()  # (whoever an earlier test left signed in)
    open_page(browser, f"{url}/signin")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.ID, "token"))
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    WebDriverWait(browser, 20).until(lambda b: b.current_url.endswith("/account"))
    open_page(browser, f"{url}/matches/{match.id}#step={noted}")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-notes]"))
    WebDriverWait(browser, 20).until(lambda b: b.find_element(By.ID, "note").is_displayed())
    note = browser.find_element(By.ID, "note")
    assert "NOTE-for-ann-only" in note.text and "<b>not bold</b>" in note.text and "its owner, only" in note.text
    assert "what it printed with this decision:" in note.text and "PRINTED-for-ann-only" in note.text, note.text
    assert "[object" not in note.text
    assert not note.find_elements(By.TAG_NAME, "b")  # the bot's text is text
    screenshot(browser, "match-notes-for-its-owner")
    browser.find_element(By.CSS_SELECTOR, f"[data-step='{other}']").click()
    WebDriverWait(browser, 20).until(lambda b: not b.find_element(By.ID, "note").is_displayed())

    browser.delete_all_cookies()  # a visitor: the board, never the notes
    open_page(browser, f"{url}/")  # (a page of its own: not a same-document jump to another step)
    open_page(browser, f"{url}/matches/{match.id}#step={noted}")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "[data-loaded='true']"))
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-notes]")
    assert "NOTE-for-ann-only" not in browser.find_element(By.ID, "main").text
    assert not script_errors(browser)


def test_the_ladder_page_says_a_remote_bot_is_offline(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    """As `arena ladder status` does: a remote bot not connected reads 'remote offline · never seen'."""
    from arena.games.registry import load_game
    from arena.ladder import LadderService, LadderSettings, Schedule
    from arena.store import Store
    from arena.submissions import hash_token
    from arena.submissions.submit import register_remote
    from arena.tournament import parse_bots
    from arena.tournament.referee_executor import NetworkSettings
    from arena.tournament.service import PlaySettings

    game = load_game("major-general")
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        assert store.owners.add("ann", hash_token("ann-token"))
        settings = LadderSettings(games=(game,), schedule=Schedule.parse("1s"), matches_per_round=2, max_pending=2,
                                  builtins={game.name: tuple(parse_bots("random,greedy"))}, seed=5)
        ladder = LadderService(store, settings, PlaySettings(concurrency=1, network=NetworkSettings("127.0.0.1", 0)),
                               log=lambda _line: None)
        ladder.prepare()
        register_remote(store, "ann", "sleepy-bot")
        ladder.play_round()
        ladder.close()
    finally:
        store.close()
    server = WebServer(str(tmp_path / "arena.db"))
    try:
        open_page(browser, f"{server.url}/ladders")
        WebDriverWait(browser, 20).until(lambda b: "sleepy-bot" in b.find_element(By.ID, "main").text)
        [row] = [row for row in browser.find_elements(By.CSS_SELECTOR, "tr") if "sleepy-bot" in row.text]
        assert "remote offline · never seen" in row.text, row.text
        greedy = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "tr") if "greedy" in row.text]
        assert greedy and not any("offline" in text or "online" in text for text in greedy), greedy
        screenshot(browser, "ladder-remote-offline")
        assert not script_errors(browser)
    finally:
        server.stop()
