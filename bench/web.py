"""The web pages' answer times over a big store, measured through a real `arena web` over HTTP.

    python bench/web.py [--json] [--bots 100] [--results 100000] [--requests 30] [--smoke]

1. A SQLite store of `--results` stored two-seat Major General results between `--bots` bots (bulk
   insert, as bench/tournament.py does; then rated from scratch by `arena rerate`), plus a small real
   tournament on General Orders WWII Island whose longest match is the replay subject.
2. `arena web` over it, in its own process; each URL asked `--requests` times over one keep-alive
   connection after one warm-up: the leaderboard of every bot (target <= 100 ms), a bot page's data
   (target <= 200 ms), and the anchor measured in the same run: the cheapest answer the server gives
   (/favicon.ico, no body), the floor of the HTTP stack. Figures: p50 and p95 in ms, and p50 / anchor.
3. The replay: its document built by the server (the record run back through the engine, the board
   position after every step) and, where Chromium is installed, the match page opened in headless
   Chromium: until the board is drawn (the replay streams as JSON lines, so the board is drawn from
   the first line whatever the match's length), until every step is loaded, and stepped to the end.
   No game Arena ships reaches 1,000 decisions (a General Orders match has about 100 to 200), so the
   figures for 1,000 decisions scale what grows with the length (the document, every step loaded)
   by the steps of a 1,000-decision match of the same kind (target: opens in <= 1 s); both the
   measured match and the scaled figures are printed.
With --smoke (the test suite's run: its figures mean nothing) the replay's tournament plays one round, not 8, and
the browser opens the page once, not 5 times.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from arena.games.registry import load_game
from arena.ratings.rerate import rerate
from arena.store import Store
from arena.tournament.bots import parse_bots
from arena.tournament.service import PlaySettings, TournamentSpec, run

ROOT = Path(__file__).resolve().parents[1]
REPLAY_GAME = "general-orders-wwii/island"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def fill_results(store: Store, results: int, bots: int) -> None:
    """bench/tournament.py's bulk fill (synthetic results between bots of unequal strength)."""
    spec = importlib.util.spec_from_file_location("bench_tournament", ROOT / "bench" / "tournament.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.fill_results(store, results, bots=bots)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_web(db: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "web", "--db", db,
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=1)
            return process, port
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit("arena web did not start")
            time.sleep(0.1)


def timed(port: int, path: str, requests: int) -> dict[str, float]:
    """p50 and p95 (ms) of `requests` GETs of `path` on one keep-alive connection, after one warm-up."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    size = 0
    for attempt in range(requests + 1):
        started = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status not in (200, 204):
            raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
        if attempt:
            times.append(elapsed)
        size = len(body)
    connection.close()
    times.sort()
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "bytes": size}


def browser_open_ms(url: str, steps: int, tries: int = 5) -> dict[str, float] | None:
    """Headless Chromium, median of `tries` opens: ms from navigation to the board drawn (the first line of the
    streamed replay) and to every step loaded (the page's own performance marks), and to the last step
    shown after End (timed from here, so with the driver's round trips)."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    try:
        opens, loads, ends = [], [], []
        for _ in range(tries):
            driver.get("about:blank")
            driver.get(url)
            WebDriverWait(driver, 30, poll_frequency=0.01).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "[data-loaded='true']"))
            marks = driver.execute_script(  # the page's own marks: ms since navigation started
                "return ['arena-replay-board', 'arena-replay-loaded'].map("
                "(name) => performance.getEntriesByName(name)[0].startTime)")
            opens.append(marks[0])
            loads.append(marks[1])
            started = time.perf_counter()
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
            viewer = driver.find_element(By.CSS_SELECTOR, "[data-step]")
            WebDriverWait(driver, 30, poll_frequency=0.002).until(
                lambda d: viewer.get_attribute("data-step") == str(steps))
            ends.append((time.perf_counter() - started) * 1000)
        return {"open_ms": round(statistics.median(opens), 1), "loaded_ms": round(statistics.median(loads), 1),
                "to_end_ms": round(statistics.median(ends), 1)}
    finally:
        driver.quit()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--smoke", action="store_true", help="one round of the replay's tournament, one browser open")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as folder:
        db = f"sqlite:///{Path(folder) / 'web.db'}"
        store = Store.open(db)
        started = time.perf_counter()
        fill_results(store, args.results, args.bots)
        rerate(store, "major-general")
        spec = TournamentSpec(games=(load_game(REPLAY_GAME),), bots=tuple(parse_bots("random,greedy")),
                              format="round-robin", rounds=1 if args.smoke else 8, seed=3)
        run(spec, store, PlaySettings(concurrency=1))
        _total, matches = store.matches.page(pool=REPLAY_GAME, limit=100)
        longest = max(matches, key=lambda m: m.steps)
        store.close()
        fill_s = time.perf_counter() - started
        process, port = start_web(db)
        try:
            anchor = timed(port, "/favicon.ico", args.requests)
            board = timed(port, f"/api/leaderboards/major-general?per_page={min(args.bots, 200)}", args.requests)
            bot = timed(port, f"/api/bots/bot{min(7, args.bots - 1)}", args.requests)
            shell = timed(port, "/", args.requests)
            replay = timed(port, f"/api/matches/{longest.id}/replay", max(5, args.requests // 3))
            browser = browser_open_ms(f"http://127.0.0.1:{port}/matches/{longest.id}", longest.steps,
                                      1 if args.smoke else 5)
        finally:
            process.terminate()
            process.wait(10)
    steps, decisions = longest.steps, longest.decisions
    steps_per_1000 = 1000 * steps / decisions  # chance steps come with the decisions
    server_1000 = replay["p50_ms"] / steps * steps_per_1000
    # the board is drawn from the first line whatever the length; every step loaded grows with it
    loaded_1000 = (browser["open_ms"] + (browser["loaded_ms"] - browser["open_ms"]) / steps * steps_per_1000
                   if browser else None)
    figures: dict[str, Any] = {
        "bots": args.bots, "results": args.results, "fill_s": round(fill_s, 1), "anchor_ms": anchor["p50_ms"],
        "leaderboard_ms": board["p50_ms"], "leaderboard_p95_ms": board["p95_ms"],
        "leaderboard_ratio": round(board["p50_ms"] / anchor["p50_ms"], 1), "leaderboard_target_ms": 100,
        "bot_page_ms": bot["p50_ms"], "bot_page_p95_ms": bot["p95_ms"],
        "bot_page_ratio": round(bot["p50_ms"] / anchor["p50_ms"], 1), "bot_page_target_ms": 200,
        "page_shell_ms": shell["p50_ms"],
        "replay_match_steps": steps, "replay_match_decisions": decisions, "replay_doc_ms": replay["p50_ms"],
        "replay_doc_bytes": replay["bytes"], "replay_browser_open_ms": browser["open_ms"] if browser else None,
        "replay_browser_loaded_ms": browser["loaded_ms"] if browser else None,
        "replay_browser_to_end_ms": browser["to_end_ms"] if browser else None,
        "replay_1000_decisions_server_ms": round(server_1000, 1),
        "replay_1000_decisions_open_ms": browser["open_ms"] if browser else None,
        "replay_1000_decisions_loaded_ms": round(loaded_1000, 1) if loaded_1000 else None,
        "replay_target_ms": 1000, "command": "python " + " ".join(["bench/web.py", *sys.argv[1:]]),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"command: {figures['command']}  ({os.cpu_count()} cores; store filled in {fill_s:.1f} s)")
    print(f"anchor: /favicon.ico (no body) p50 {anchor['p50_ms']:.2f} ms: the HTTP stack's floor")
    print(f"leaderboard of {args.bots} bots over {args.results} stored matches: p50 {board['p50_ms']:.2f} ms, "
          f"p95 {board['p95_ms']:.2f} ms ({board['bytes']} bytes; {figures['leaderboard_ratio']}x the anchor; "
          "target <= 100 ms)")
    print(f"bot page data (/api/bots/bot7, ~{2 * args.results // args.bots} games): p50 {bot['p50_ms']:.2f} ms, "
          f"p95 {bot['p95_ms']:.2f} ms ({bot['bytes']} bytes; {figures['bot_page_ratio']}x the anchor; "
          "target <= 200 ms)")
    print(f"page shell (/): p50 {shell['p50_ms']:.2f} ms")
    print(f"replay of the longest {REPLAY_GAME} match of 16 ({steps} steps, {decisions} decisions): "
          f"document {replay['p50_ms']:.1f} ms ({replay['bytes'] // 1024} KB)"
          + (f"; in Chromium: board drawn {browser['open_ms']:.1f} ms after navigating, every step loaded at "
             f"{browser['loaded_ms']:.1f} ms, End shown in {browser['to_end_ms']:.1f} ms" if browser
             else "; Chromium not installed: no browser figure"))
    print(f"scaled to a 1,000-decision match ({steps_per_1000:.0f} steps): document {server_1000:.0f} ms"
          + (f"; opens (board drawn, the steps streaming in) in {browser['open_ms']:.0f} ms, every step loaded "
             f"~{loaded_1000:.0f} ms" if browser and loaded_1000 else "") + " (target: opens in <= 1000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
