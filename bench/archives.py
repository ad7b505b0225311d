#!/usr/bin/env python3
"""Hostile archives refused: how long each refusal takes and the most memory it uses.

    python bench/archives.py [--smoke] [--json]

Each shape is unpacked (arena.submissions.archive.unpack, as `arena bot submit` and the upload queue do) in a
process of its own, which reports its time and its peak resident memory; a plain bot's archive and a plain
archive over the entry cap are the anchors:
- ok: a bot of 3 files (accepted);
- over-cap: 3,000 real entries (refused at the cap);
- hidden-count: 590,000 directory entries behind a zip64 end record (31 MB);
- understated: 120,000 directory entries whose end record says 2,000;
- pax-chain: 1,500 pax headers in a row before one member (a 10 KB .tar.gz).

Goal (issue 35): every refusal one line, within 5 s and 128 MB. With --json: {"shapes": {NAME: {"seconds",
"peak_mb", "accepted", "problem"}}, "goal_met", "command"}. With --smoke (the test suite's run: its figures mean
nothing) each shape is the smallest that still crosses its bound: 2,500 entries where 590,000 and 120,000 are.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPES = ("ok", "over-cap", "hidden-count", "understated", "pax-chain")
SIZES = {"over-cap": 3000, "hidden-count": 590_000, "understated": 120_000, "pax-chain": 1500}  # entries, headers
SMOKE_SIZES = {"over-cap": 2500, "hidden-count": 2500, "understated": 2500, "pax-chain": 20}  # still over the caps


def build(shape: str, folder: Path, sizes: dict[str, int] = SIZES) -> Path:
    """The archive of one shape (made with bench/lying_archives.py, which the test suite uses too)."""
    # (imported here, not at the top: the child that measures imports only what unpacking needs)
    import io
    import zipfile

    from bench.lying_archives import MANIFEST, crowded_zip, pax_chain

    if shape == "pax-chain":
        path = folder / "chain.tar.gz"
        path.write_bytes(pax_chain(sizes["pax-chain"]))
        return path
    path = folder / f"{shape}.zip"
    if shape == "hidden-count":
        path.write_bytes(crowded_zip(sizes["hidden-count"], declared=sizes["hidden-count"], zip64=True))
    elif shape == "understated":
        path.write_bytes(crowded_zip(sizes["understated"], declared=2000))
    else:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as packed:
            packed.writestr("bot.toml", MANIFEST)
            packed.writestr("bot.py", "print('hi')\n")
            for number in range(sizes["over-cap"] if shape == "over-cap" else 1):
                packed.writestr(f"lib/m{number}.py", "x = 1\n")
        path.write_bytes(out.getvalue())
    return path


def peak_resident_mb() -> float:
    """This process's peak resident memory since it started (VmHWM: ru_maxrss would count the parent's, whose
    pages a forked child holds until it execs)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(path: Path) -> dict[str, object]:
    """Unpack in this (fresh) process: seconds, peak memory, the first problem."""
    from arena.submissions.archive import unpack

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        result = unpack(path, Path(out) / "bot")
    seconds = time.perf_counter() - started
    peak_mb = peak_resident_mb()
    problem = str(result.problems[0]) if result.problems else ""
    return {"seconds": round(seconds, 3), "peak_mb": round(peak_mb, 1), "accepted": not result.problems,
            "problem": problem}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--smoke", action="store_true", help="the smallest shapes that cross each bound (the tests' run)")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # (a child: measure this archive)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure))))
        return 0
    shapes: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for shape in SHAPES:
            path = build(shape, Path(folder), SMOKE_SIZES if args.smoke else SIZES)
            done = subprocess.run([sys.executable, __file__, "--measure", str(path)], capture_output=True, text=True,
                                  check=True)
            shapes[shape] = {**json.loads(done.stdout), "archive_kb": round(path.stat().st_size / 1024, 1)}
    refusals = [figures for name, figures in shapes.items() if name != "ok"]
    goal_met = shapes["ok"]["accepted"] and all(
        not figures["accepted"] and "\n" not in str(figures["problem"]) and float(figures["seconds"]) <= 5  # type: ignore[arg-type]
        and float(figures["peak_mb"]) <= 128 for figures in refusals)  # type: ignore[arg-type]
    report = {"shapes": shapes, "goal_met": goal_met, "command": " ".join(["python", "bench/archives.py", *sys.argv[1:]])}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    anchor = shapes["over-cap"]
    print(f"{'shape':<14}{'archive':>10}{'seconds':>9}{'peak MB':>9}{'vs over-cap':>13}  outcome")
    for name, figures in shapes.items():
        ratio = float(figures["peak_mb"]) / float(anchor["peak_mb"])  # type: ignore[arg-type]
        outcome = "accepted" if figures["accepted"] else str(figures["problem"])[:70]
        print(f"{name:<14}{figures['archive_kb']:>8} KB{figures['seconds']:>9}{figures['peak_mb']:>9}"
              f"{ratio:>12.2f}x  {outcome}")
    print(f"goal (every refusal one line, within 5 s and 128 MB): {'met' if goal_met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
