#!/usr/bin/env python3
"""What anonymous spectators cost a running match: the referee's added time per decision with 0, 1,000 and
10,000 anonymous watchers (WatchMatch, no token) trying to follow it, in one run.

    python bench/spectators.py [--matches M] [--watchers 0,1000,10000] [--smoke] [--json]

Starts `arena serve` on a free loopback port in a process of its own (its own bots: Arena's MCTS bot
program at a fixed budget, so a decision takes tens of milliseconds), and plays M matches of Major General
per watcher count, the counts taking turns. While a match runs, a flood process (at the lowest priority, so
its own work takes as little as possible from the machine) opens that many WatchMatch streams from 100
loopback addresses in 10 networks (127.0.N.x) and reads them to the end. The referee's added time per
decision is what it records apart from the bot's own thinking: the time from sending a decision request to
the answer, less the time the bot says it thought (`transport_ms` in the record).

Only the decisions played once every watcher is in (or was refused) count. Goal (issue 33): with 1,000 and
with 10,000 watchers, the mean added time at most 10% above the run without, and no match lost on time; the
whole decision time (the bot's thinking and the added time) is printed beside, and the referee's own CPU
(its threads, not the bots') per decision, the messages the watchers read per decision, and the referee's CPU
over the run without watchers per message a watcher read. With --json: {"watchers":
{N: {"matches", "decisions", "added_ms_mean", "added_ms_p95", "vs_none", "decision_ms_mean",
"decision_vs_none", "timeouts", "admitted", "refused", "other", "referee_cpu_ms_per_decision",
"messages_per_decision", "cpu_us_per_message"}}, "goal_met", "command"}. With --smoke (the test
suite's run: its figures mean nothing) the bots search 5 iterations a decision, not 400.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc  # noqa: E402

from arena.referee.clock import ClockSettings  # noqa: E402
from arena.rpc.client import AdminClient  # noqa: E402
from arena.rpc.generated import admin_pb2, admin_pb2_grpc  # noqa: E402
from bench.network import SourceAddresses  # noqa: E402

MCTS_SPEC = "mcts:iterations=400"
SMOKE_MCTS_SPEC = "mcts:iterations=5"
GAME = "general-orders-sengoku/fortress"  # long matches (about 150 decisions): the flood is in place for most
CLOCK = ClockSettings(move_time_s=1.0, bank_s=5.0, grace_s=0.25)
ADDRESSES = [f"127.0.{network}.{host}" for network in range(1, 11) for host in range(2, 12)]  # 100, in 10 /24s


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _watcher(channel: grpc.aio.Channel, match_id: str, batched: bool, started: asyncio.Event | None = None,
                   begun: list[int] | None = None, total: int = 0, received: list[int] | None = None) -> str:
    """One watcher: follows the match to its end; tells `begun` once it is in (its header came) or refused."""
    stub = admin_pb2_grpc.RefereeAdminStub(channel)
    counted = False

    def count() -> None:
        nonlocal counted
        if begun is not None and not counted:
            counted = True
            begun[0] += 1
            if begun[0] >= total and started is not None:
                started.set()

    try:
        async for _event in stub.WatchMatch(admin_pb2.WatchMatchRequest(match_id=match_id, batched=batched)):
            count()
            if received is not None:
                received[0] += 1
    except grpc.aio.AioRpcError as error:
        count()
        return error.code().name
    finally:
        count()
    return "OK"


async def _flood(host: str, port: int, match_id: str, watchers: int) -> dict[str, Any]:
    started, begun, received = asyncio.Event(), [0], [0]
    async with SourceAddresses(host, port, ADDRESSES) as entrances:
        channels = [grpc.aio.insecure_channel(target) for target in entrances.values()]
        try:
            calls = [asyncio.ensure_future(_watcher(channels[index % len(channels)], match_id, index % 2 == 0, started, begun,
                                                    watchers, received)) for index in range(watchers)]
            await started.wait()
            # from here on at the idle priority (only on CPU the others leave): what is measured is what the
            # referee does for the watchers, not what their client costs the machine (on a real server they are
            # elsewhere); getting in was at the normal priority, so that it is done early in the match
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            print(json.dumps({"ready": True}), flush=True)  # every watcher is in, or was refused
            received[0] = 0  # (the messages counted are those sent while the referee's CPU is measured)
            ends = await asyncio.gather(*calls)
        finally:
            for channel in channels:
                await channel.close()
    codes: dict[str, int] = {}
    for end in ends:
        codes[end] = codes.get(end, 0) + 1
    return {"admitted": codes.pop("OK", 0), "refused": codes.pop("RESOURCE_EXHAUSTED", 0), "other": codes,
            "messages": received[0]}


def flood_main(address: str, match_id: str, watchers: int) -> None:
    """The flood process: a line when every watcher is in (or refused), then its counts, as JSON lines."""
    host, port = address.rsplit(":", 1)
    print(json.dumps(asyncio.run(_flood(host, int(port), match_id, watchers))), flush=True)


def cpu_s(pid: int) -> float:
    """The CPU seconds process `pid` itself has used (its threads, not its children: the bots)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _play(address: str, token: str, seed: int, watchers: int, server: int) -> dict[str, Any]:
    """One match with `watchers` trying to follow it: the added time of the decisions played once the
    flood is in place (all of them without one), the referee's CPU seconds over those decisions and the
    messages the watchers read meanwhile."""
    begun = cpu_s(server)
    async with AdminClient(address, token) as admin:
        match_id = await admin.start_match(GAME, ["mcts", "mcts"], seed=seed, clock=CLOCK)
        flood = None
        from_step = 0
        if watchers:
            flood = subprocess.Popen([sys.executable, __file__, "--flood", address, match_id, str(watchers)],
                                     stdout=subprocess.PIPE, text=True)
            assert flood.stdout is not None
            ready = await asyncio.to_thread(flood.stdout.readline)  # the flood is in place from here on
            if not json.loads(ready or "{}").get("ready"):
                raise SystemExit(f"the flood did not start: {ready!r}")
            status = await admin.status(match_id)
            from_step = status.steps
            begun = cpu_s(server)
        async for _event in admin.watch(match_id):
            pass
        record = await admin.record(match_id)
    cpu = cpu_s(server) - begun
    counts: dict[str, Any] = {"admitted": 0, "refused": 0, "other": {}, "messages": 0}
    if flood is not None:
        out, _ = flood.communicate(timeout=300)
        counts = json.loads(out.strip().splitlines()[-1])
    decisions = [step for step in record.decisions if step.n >= from_step]
    assert record.result is not None
    return {"added": [step.timing.get("transport_ms", 0.0) for step in decisions],
            "decision": [step.timing.get("think_ms", 0.0) + step.timing.get("transport_ms", 0.0) for step in decisions],
            "timeout": record.result.reason == "timeout", "ending": f"{record.result.reason}: {record.result.detail}",
            "cpu_s": cpu, **counts}


def figures(rows: dict[int, list[dict[str, Any]]]) -> dict[int, dict[str, Any]]:
    """The report's row per watcher count from its matches (`_play`'s results). A run without watchers that
    recorded no decision (its bots could not start, say) is no baseline to compare with: a clear SystemExit."""
    baseline = rows.get(0)
    if baseline is not None and not any(row["added"] for row in baseline):
        endings = "; ".join(sorted({row["ending"] for row in baseline})) or "no match played"
        raise SystemExit(f"the run without watchers recorded no decisions, so there is nothing to compare with "
                         f"(did the bots start? its matches ended: {endings})")
    report: dict[int, dict[str, Any]] = {}
    for count, played in rows.items():
        added = [value for row in played for value in row["added"]] or [0.0]
        decision = [value for row in played for value in row["decision"]] or [0.0]
        report[count] = {"matches": len(played), "decisions": len(added),
                         "added_ms_mean": round(statistics.fmean(added), 3),
                         "added_ms_p95": round(sorted(added)[int(0.95 * (len(added) - 1))], 3),
                         "decision_ms_mean": round(statistics.fmean(decision), 3),
                         "timeouts": sum(row["timeout"] for row in played),
                         "admitted": max(row["admitted"] for row in played),
                         "refused": max(row["refused"] for row in played),
                         "other": played[-1]["other"],
                         "referee_cpu_ms_per_decision": round(
                             1000 * sum(row["cpu_s"] for row in played) / max(1, len(added)), 3),
                         "messages_per_decision": round(sum(row["messages"] for row in played) / max(1, len(added)), 1)}
    base = report.get(0)
    for row in report.values():
        row["vs_none"] = round(row["added_ms_mean"] / base["added_ms_mean"], 3) if base else None
        row["decision_vs_none"] = round(row["decision_ms_mean"] / base["decision_ms_mean"], 3) if base else None
        # the referee's CPU a message to a watcher: over the run without watchers, shared by the messages sent
        extra_ms = row["referee_cpu_ms_per_decision"] - (base["referee_cpu_ms_per_decision"] if base else 0.0)
        per_decision = row["messages_per_decision"]
        row["cpu_us_per_message"] = round(extra_ms * 1000 / per_decision, 1) if per_decision else None
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=4, help="matches per watcher count (default 4)")
    parser.add_argument("--watchers", default="0,1000,10000", help="watcher counts, comma-separated")
    parser.add_argument("--smoke", action="store_true", help="bots of 5 iterations a decision (the tests' run)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--flood", nargs=3, metavar=("ADDRESS", "MATCH", "N"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.flood:
        flood_main(arguments.flood[0], arguments.flood[1], int(arguments.flood[2]))
        return 0
    counts = [int(part) for part in arguments.watchers.split(",")]
    port = free_port()
    rows: dict[int, list[dict[str, Any]]] = {count: [] for count in counts}
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bots").mkdir()
        token_file = Path(folder) / "admin-token"
        server = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli.main import run; run()", "serve", "--port", str(port),
             "--bots", str(Path(folder) / "bots"), "--out", folder, "--admin-token-file", str(token_file),
             "--bot-env", f"ARENA_MCTS_SPEC={SMOKE_MCTS_SPEC if arguments.smoke else MCTS_SPEC}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not token_file.exists():
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the referee did not start")
                time.sleep(0.1)
            address, token = f"127.0.0.1:{port}", token_file.read_text().strip()
            asyncio.run(_play(address, token, 1, 0, server.pid))  # warm the bots' processes
            for index in range(arguments.matches):
                for count in counts:
                    rows[count].append(asyncio.run(_play(address, token, 100 + index, count, server.pid)))
                    if not arguments.json:
                        last = rows[count][-1]
                        if not last["added"]:
                            print(f"  match {index + 1} with {count:>5} watchers: over before they were all in")
                            continue
                        print(f"  match {index + 1} with {count:>5} watchers: added {statistics.fmean(last['added']):.2f} "
                              f"ms/decision over {len(last['added'])} decisions, {last['admitted']} admitted, "
                              f"{last['refused']} refused, other ends {last['other']}", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    report = figures(rows)
    goal = all((row["vs_none"] is None or row["vs_none"] <= 1.10) and not row["timeouts"] for row in report.values())
    command = f"python bench/spectators.py --matches {arguments.matches} --watchers {arguments.watchers}"
    command += " --smoke" if arguments.smoke else ""
    if arguments.json:
        print(json.dumps({"watchers": report, "goal_met": goal, "command": command}, indent=2))
        return 0
    print(f"{'watchers':>9} {'matches':>8} {'decisions':>10} {'added ms':>9} {'p95 ms':>8} {'vs none':>8} "
          f"{'decision ms':>12} {'vs none':>8} {'timeouts':>9} {'admitted':>9} {'refused':>8} {'CPU ms/d':>9} "
          f"{'msgs/d':>7} {'us/msg':>7}")
    for count, row in report.items():
        print(f"{count:>9} {row['matches']:>8} {row['decisions']:>10} {row['added_ms_mean']:>9.2f} "
              f"{row['added_ms_p95']:>8.2f} {row['vs_none'] or '-':>8} {row['decision_ms_mean']:>12.2f} "
              f"{row['decision_vs_none'] or '-':>8} {row['timeouts']:>9} {row['admitted']:>9} {row['refused']:>8} "
              f"{row['referee_cpu_ms_per_decision']:>9.2f} {row['messages_per_decision']:>7} "
              f"{row['cpu_us_per_message'] or '-':>7}")
    print(f"goal (at most 10% more, no timeout): {'met' if goal else 'NOT met'}; command: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
