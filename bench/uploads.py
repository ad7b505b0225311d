"""Uploads over the web: how long a Python bot takes from upload to live, and how fast the status call
answers while many pre-flights run.

    .venv/bin/python bench/uploads.py [--json] [--uploads 20] [--workers 2]

A real `arena web` (its own process, a fresh SQLite database, `--preflight-workers`) takes `--uploads`
archives of a Python bot (copies of arena/bots/random under different names) at once from as many
threads; each is followed to the end by polling its status. Printed: the status call's latency (p50,
p99) over every poll made while the queue was busy, and per upload the wall time from the POST to
live with the pre-flight's own seconds (its share). The anchor: one upload alone, measured the same
way first. With --uploads 0 only that anchor is measured (the figures of uploads at once are null).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def archive_of(name: str) -> bytes:
    folder = Path(tempfile.mkdtemp())
    shutil.copytree(ROOT / "arena" / "bots" / "random", folder / name)
    manifest = folder / name / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', f'name = "{name}"'))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as packed:
        packed.add(folder / name, arcname=".")
    shutil.rmtree(folder)
    return buffer.getvalue()


def call(url: str, token: str, data: bytes | None = None) -> dict:
    request = urllib.request.Request(url, data=data, headers={"Authorization": f"Bearer {token}"},
                                     method="POST" if data is not None else "GET")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def one_upload(base: str, token: str, name: str, status_times: list[float]) -> tuple[float, float, str]:
    """(seconds from the POST to a final status, the pre-flight's seconds, the status)."""
    data = archive_of(name)
    started = time.perf_counter()
    made = call(f"{base}/api/owner/submissions?filename={name}.tar.gz", token, data)
    while True:
        asked = time.perf_counter()
        state = call(f"{base}/api/owner/submissions/{made['id']}", token)
        status_times.append(time.perf_counter() - asked)
        if state["final"]:
            break
        time.sleep(0.05)
    wall = time.perf_counter() - started
    preflight = (state.get("result") or {}).get("preflight") or {}
    return wall, float(preflight.get("seconds") or 0.0), state["status"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-bench-uploads-"))
    database = work / "arena.db"
    arena = [sys.executable, "-c", "from arena.cli.main import run; run()"]
    token = json.loads(subprocess.run([*arena, "owner", "add", "bench", "--db", str(database), "--json"],
                                      capture_output=True, text=True, check=True).stdout)["token"]
    port = free_port()
    server = subprocess.Popen([*arena, "web", "--db", str(database), "--port", str(port), "--bot-store",
                               str(work / "store"), "--preflight-workers", str(arguments.workers),
                               "--uploads-per-hour", "1000", "--live-bots", "1000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/api/games", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        alone_times: list[float] = []
        alone = one_upload(base, token, "alone-bot", alone_times)
        status_times: list[float] = []
        results: list[tuple[float, float, str]] = []
        lock = threading.Lock()

        def worker(index: int) -> None:
            outcome = one_upload(base, token, f"bench-bot-{index}", status_times)
            with lock:
                results.append(outcome)

        started = time.perf_counter()
        threads = [threading.Thread(target=worker, args=(index,)) for index in range(arguments.uploads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(work, ignore_errors=True)
    ordered = sorted(status_times) or [float("nan")]  # (no uploads at once: their figures are null)
    walls = sorted(wall for wall, _, _ in results) or [float("nan")]
    figures = {
        "uploads": arguments.uploads, "preflight_workers": arguments.workers,
        "alone_upload_to_live_s": round(alone[0], 3), "alone_preflight_s": round(alone[1], 3),
        "alone_preflight_share": round(alone[1] / alone[0], 3) if alone[0] else None, "alone_status": alone[2],
        "status_p50_ms": round(1000 * ordered[len(ordered) // 2], 2),
        "status_p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
        "status_calls": len(status_times), "status_p50_ms_alone": round(1000 * statistics.median(alone_times), 2),
        "all_uploads_done_s": round(elapsed, 2), "upload_to_live_p50_s": round(walls[len(walls) // 2], 2),
        "live": sum(1 for _, _, status in results if status == "live"),
    }
    figures = {key: None if isinstance(value, float) and math.isnan(value) else value  # (NaN: not measured)
               for key, value in figures.items()}
    if arguments.json:
        print(json.dumps(figures))
        return
    print(f"one upload alone: {figures['alone_upload_to_live_s']} s to {alone[2]} (pre-flight "
          f"{figures['alone_preflight_s']} s, {100 * (figures['alone_preflight_share'] or 0):.0f}%)")
    print(f"{arguments.uploads} uploads at once, {arguments.workers} pre-flight workers: all done in "
          f"{figures['all_uploads_done_s']} s, {figures['live']} live, upload to live p50 "
          f"{figures['upload_to_live_p50_s']} s")
    print(f"status call while they ran: p50 {figures['status_p50_ms']} ms, p99 {figures['status_p99_ms']} ms "
          f"over {figures['status_calls']} calls (alone: p50 {figures['status_p50_ms_alone']} ms)")


if __name__ == "__main__":
    main()
