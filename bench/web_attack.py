#!/usr/bin/env python3
"""`arena web` under attack, alone or behind the deployment's nginx: an ordinary visitor's answer times, idle and
during each attack, and the memory (and, behind nginx, the disk) the servers hold, in one run.

    python bench/web_attack.py [--requests N] [--slow 10000] [--attacks slow,slow_bodies,...] [--through-nginx]
                               [--smoke] [--json]

A store with a small real tournament and an owner; `arena web` over it in a process of its own (its database
URL in ARENA_DB), following a referee (in this process) that plays long matches between slow bots. A visitor
at 127.0.0.1 asks for the leaderboard --requests times (one connection each, as browsers come and go) while
nothing else happens, then during each attack (spread over --span seconds, 30, from 3 s after it starts), every attacker in a process of its own from addresses of its
own (127.0.N.x, other networks than the visitor's):

1. slow: --slow connections (10,000) that send part of their headers and nothing more, each opened again
   when the server closes it, from 200 addresses in 40 networks;
2. body: clients that each declare a 256 MB body and send it as fast as they can, one after another;
3. streams (issue 46, finding 5: the live relay): --browsers browsers (1,000) following the live match
   (server-sent events) from 64 addresses in 16 networks, each following again when its stream ends;
4. uploads: 50 uploads at once by one owner (20 an hour is its limit), their pre-flights run;
5. slow_bodies (findings 1 and 3): --slow connections that each send a small POST's headers and drip its body a
   byte a second, each opened again when the server closes it, from 68 addresses in 17 networks;
6. upload_bodies (finding 2): 64 uploads with a wrong token from 16 addresses, each declaring 33 MB, sending
   32 MB as fast as it can, then a byte a second, each sent again when the server closes it;
7. one_client (finding 4: one client behind the proxy): 200 live streams and 200 slow bodies from one address.
During the streams attack the visitor comes once every browser has its stream (`streams_open_s` after the attack
began, as the finding had it: the streams held, then a visitor); during it and one_client the visitor also opens
the live match's stream (`stream_within_3s`).

With --through-nginx every request (the visitor's and the attackers') goes through a real nginx configured by
docker/nginx.conf (bench/nginx_front.py: only its paths, listen address, upstream and worker count changed; TLS
with a self-signed certificate), and `arena web` runs as compose runs it behind it (--trusted-proxy,
--connections-per-address 32, --connections-per-network 128); without nginx installed the run is skipped
with a message (and {"skipped": why} with --json).

Goals: during each attack at least 90% of the visitor's requests answered (200) within 3 s (issue 46), no 5xx to
the visitor, the web's memory growth under 100 MB; behind nginx, nginx's memory growth under 200 MB a worker (its bound:
4,096 connections a worker, 28-45 KB each with TLS) and nothing of a body kept on its disk (under 1 MB). The p95 against the idle p95 (issue 34's 3x) is printed, not a goal: on a
shared 2-core machine an idle p95 of a few ms makes it a measure of the machine. With --json: {"idle": {"p50_ms",
"p95_ms", "within_3s", "errors"}, "attacks": {NAME: {"p50_ms", "p95_ms", "within_3s", "vs_idle", "errors",
"server_5xx", "web_cpu_s", "web_rss_mb_peak", "attacker": {...}, ("streams_open_s": streams only), ("stream_within_3s"), ("proxy_rss_mb_peak",
"proxy_disk_mb_peak", "proxy_statuses": what nginx answered, a count per status)}}, "memory_mb": {"before", "peak", "growth"}, "proxy": null or {"memory_mb": {...},
"disk_mb_peak"}, "through_nginx", "goal_met", "failures", "command"}. With --smoke (the test suite's run: its
figures mean nothing) each attack is measured 0.5 s after it starts, not 3 s, by 10 browsers and 2 uploads.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.client
import io
import json
import multiprocessing
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import BUILTIN_BOTS  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.clock import ClockSettings  # noqa: E402
from arena.rpc.background import BackgroundReferee  # noqa: E402
from arena.rpc.server import ServerConfig  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament.bots import parse_bots  # noqa: E402
from arena.tournament.service import PlaySettings, TournamentSpec, run  # noqa: E402
from arena.web.owners import hash_token  # noqa: E402
from bench.nginx_front import NginxFront, nginx_binary  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-owner-token-web-attack"
SLOW_BOT = ROOT / "tests" / "web" / "bots" / "slow"
ATTACKS = ("slow", "body", "streams", "uploads", "slow_bodies", "upload_bodies", "one_client")
# nginx's bound: its worker_connections (4,096 a worker, docker/nginx.conf), a TLS connection 28-45 KB (measured:
# 131-192 MB a worker at its 4,096, from 18 MB idle)
NGINX_MB_PER_WORKER = 200
ANSWERED_S = 3.0  # the visitor's goal: answered within this (issue 46)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Front:
    """Where clients connect: `arena web` itself (plain HTTP) or nginx in front of it (TLS)."""

    port: int
    tls: bool

    def url(self, path: str) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}{path}"

    def context(self) -> Optional[ssl.SSLContext]:
        return _client_context() if self.tls else None

    async def connect(self, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection from `address` (asyncio streams, TLS where the front speaks it)."""
        return await asyncio.open_connection("127.0.0.1", self.port, local_addr=(address, 0), ssl=self.context(),
                                             server_hostname="localhost" if self.tls else None,
                                             ssl_handshake_timeout=30 if self.tls else None)


@functools.lru_cache(maxsize=1)
def _client_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # (the front's certificate is made for the run)
    return context


def get(front: Front, path: str, timeout: float = 30.0) -> tuple[int, float]:
    """(status, ms) of one GET on a connection of its own."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(front.url(path), timeout=timeout, context=front.context()) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        status = error.code
    except OSError:
        status = 0  # refused, reset or timed out: an error for the visitor
    return status, (time.perf_counter() - started) * 1000


def open_stream(front: Front, path: str, timeout: float = 30.0) -> tuple[int, float]:
    """(status, ms) of opening a server-sent-events stream: until its status and headers come."""
    started = time.perf_counter()
    kind = http.client.HTTPSConnection if front.tls else http.client.HTTPConnection
    extra: dict[str, Any] = {"context": front.context()} if front.tls else {}
    connection = kind("127.0.0.1", front.port, timeout=timeout, **extra)
    try:
        connection.request("GET", path)
        status = connection.getresponse().status
    except OSError:
        status = 0
    finally:
        connection.close()
    return status, (time.perf_counter() - started) * 1000


def visitor(ask: Callable[[], tuple[int, float]], requests: int, span_s: float = 0.0) -> dict[str, Any]:
    """The ordinary visitor's answer times for `requests` asks, one after another, spread over `span_s` at least."""
    times, errors, server_errors, answered = [], 0, 0, 0
    began = time.monotonic()
    for n in range(requests):
        time.sleep(max(0.0, began + n * span_s / requests - time.monotonic()))  # (the visitor's pace)
        status, ms = ask()
        times.append(ms)
        errors += status != 200
        server_errors += status >= 500
        answered += status == 200 and ms <= ANSWERED_S * 1000
    times.sort()
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "within_3s": round(answered / len(times), 3), "errors": errors, "server_5xx": server_errors}


# --- attackers (each in a process of its own) ------------------------------------------------------------

def attack_slow(front: Front, connections: int, stop: Any, report: Any) -> None:
    addresses = [f"127.0.{10 + n // 5}.{2 + n % 5}" for n in range(200)]  # 200 addresses in 40 networks

    async def one(address: str) -> tuple[int, int]:
        opened = closed = 0
        while not stop.is_set():
            try:
                reader, writer = await front.connect(address)
                opened += 1
                writer.write(b"GET /api/leaderboards HTTP/1.1\r\nHost: arena\r\nX-Slow: ")
                await writer.drain()
                while not stop.is_set() and not reader.at_eof():
                    try:
                        await asyncio.wait_for(reader.read(1), 0.5)
                    except TimeoutError:
                        continue
                closed += 1
                writer.close()
            except (OSError, TimeoutError):
                await asyncio.sleep(0.05)
        return opened, closed

    ends = _gather(one(addresses[n % len(addresses)]) for n in range(connections))
    report.put({"opened": sum(opened for opened, _closed in ends), "closed by the server": sum(c for _o, c in ends)})


def _gather(coroutines: Any) -> list[Any]:
    async def main() -> list[Any]:
        return list(await asyncio.gather(*coroutines))

    return asyncio.run(main())


def attack_body(front: Front, _count: int, stop: Any, report: Any) -> None:
    sent = 0
    chunk = b"{" * (1 << 20)
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", front.port), source_address=("127.0.60.2", 0),
                                          timeout=10) as plain:
                context = front.context()
                conn = context.wrap_socket(plain, server_hostname="localhost") if context else plain
                conn.sendall(b"POST /api/owner/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 268435456\r\n\r\n")
                for _ in range(256):
                    conn.sendall(chunk)
                    sent += len(chunk)
        except OSError:
            time.sleep(0.01)
    report.put(sent)


async def connect_until(front: Front, address: str,
                        stop: Any) -> Optional[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """A connection from `address`, tried again every 50 ms until one is made; None once `stop` is set."""
    while not stop.is_set():
        try:
            return await front.connect(address)
        except (OSError, TimeoutError):
            await asyncio.sleep(0.05)
    return None


def drip_bodies(front: Front, addresses: list[str], connections: int, stop: Any) -> dict[str, int]:
    """`connections` small POSTs from `addresses` (in turn), each dripping its body a byte a second, each opened
    again when the server closes it: what they opened and how many the server closed."""

    async def one(address: str) -> tuple[int, int]:
        opened = closed = 0
        while (connection := await connect_until(front, address, stop)) is not None:
            reader, writer = connection
            opened += 1
            try:
                writer.write(b"POST /api/owner/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 1000\r\n\r\n")
                while not stop.is_set() and not reader.at_eof():
                    writer.write(b" ")
                    await writer.drain()
                    try:
                        await asyncio.wait_for(reader.read(1), 1.0)  # (a byte a second, until it is closed)
                    except TimeoutError:
                        continue
            except OSError:
                pass
            closed += not stop.is_set()  # (closed by the server, not by the attack's end)
            writer.close()
            await asyncio.sleep(0.05)  # (opened again soon, as the slow attack does: not a flood of connections)
        return opened, closed

    ends = _gather(one(addresses[n % len(addresses)]) for n in range(connections))
    return {"opened": sum(opened for opened, _closed in ends), "closed by the server": sum(c for _o, c in ends)}


def attack_slow_bodies(front: Front, connections: int, stop: Any, report: Any) -> None:
    addresses = [f"127.0.{80 + n // 4}.{2 + n % 4}" for n in range(68)]  # 68 addresses in 17 networks
    report.put(drip_bodies(front, addresses, connections, stop))


def attack_upload_bodies(front: Front, uploads: int, stop: Any, report: Any) -> None:
    addresses = [f"127.0.{100 + n // 4}.{2 + n % 4}" for n in range(16)]  # 16 addresses in 4 networks
    statuses: Counter[str] = Counter()
    sent = 0
    chunk = b"\0" * (1 << 20)

    async def one(address: str) -> None:
        nonlocal sent
        while (connection := await connect_until(front, address, stop)) is not None:
            reader, writer = connection
            try:
                writer.write(b"POST /api/owner/submissions?filename=bot.tar.gz HTTP/1.1\r\nHost: arena\r\n"
                             b"Authorization: Bearer not-a-token\r\nContent-Length: 33000000\r\n\r\n")
                for n in range(32 * 60 + 32):  # 32 MB at once, then a byte a second (a minute)
                    if stop.is_set():  # (the attack's end: a drip left to run its minute out held the run up)
                        break
                    writer.write(chunk if n < 32 else b"\0")
                    await asyncio.wait_for(writer.drain(), 10)
                    sent += len(chunk) if n < 32 else 1
                    try:
                        answer = await asyncio.wait_for(reader.read(12), 0.01 if n < 32 else 1.0)
                    except TimeoutError:
                        continue
                    statuses[answer[9:12].decode("latin-1") or "closed"] += 1
                    break
            except (OSError, TimeoutError):
                statuses["reset"] += 1
            writer.close()
            await asyncio.sleep(0.05)

    _gather(one(addresses[n % len(addresses)]) for n in range(uploads))
    report.put({"answers": dict(statuses), "sent_mb": round(sent / (1 << 20), 1)})


def follow(front: Front, match_id: str, addresses: list[str], browsers: int, stop: Any, ready: Any = None) -> int:
    """`browsers` streams of a live match from `addresses` (in turn), each followed again when it ends: the
    events they got. `ready` is set once every browser has had its first event."""
    following: set[int] = set()

    async def one(browser: int, address: str) -> int:
        events = 0
        while not stop.is_set():
            try:
                reader, writer = await front.connect(address)
                writer.write(f"GET /api/live/{match_id}/events HTTP/1.1\r\nHost: arena\r\n\r\n".encode())
                await writer.drain()
                while not stop.is_set():
                    try:
                        line = await asyncio.wait_for(reader.readline(), 0.5)
                    except TimeoutError:
                        continue
                    if not line:
                        break
                    events += line.startswith(b"event:")
                    if events and browser not in following:
                        following.add(browser)
                        if len(following) == browsers and ready is not None:
                            ready.set()
                writer.close()
            except (OSError, TimeoutError):
                pass
            await asyncio.sleep(0.1)
        return events

    return sum(_gather(one(n, addresses[n % len(addresses)]) for n in range(browsers)))


def attack_streams(front: Front, match_id: str, stop: Any, report: Any, browsers: int = 1000,
                   ready: Any = None) -> None:
    addresses = [f"127.0.{110 + n // 4}.{2 + n % 4}" for n in range(64)]  # 64 addresses in 16 networks
    report.put({"events": follow(front, match_id, addresses, browsers, stop, ready)})


def attack_one_client(front: Front, match_id: str, stop: Any, report: Any, streams: int = 200,
                      ready: Any = None) -> None:
    events: list[int] = []

    def streams_side() -> None:
        events.append(follow(front, match_id, ["127.0.90.2"], streams, stop, ready))

    thread = threading.Thread(target=streams_side)
    thread.start()
    bodies = drip_bodies(front, ["127.0.90.2"], streams, stop)
    thread.join()
    report.put({"events": sum(events), "bodies": bodies})


def attack_uploads(front: Front, uploads: int, stop: Any, report: Any) -> None:
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name, text in (("bot.toml", 'name = "bench-upload"\nversion = "1"\ncommand = ["{python}", "bot.py"]\n'
                                         'games = ["major-general"]\n'),
                           ("bot.py", (BUILTIN_BOTS / "random" / "bot.py").read_text())):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    body = archive.getvalue()
    statuses: list[int] = []

    def upload() -> None:
        request = urllib.request.Request(front.url("/api/owner/submissions?filename=bot.tar.gz"),
                                         data=body, method="POST", headers={"Authorization": f"Bearer {TOKEN}"})
        try:
            with urllib.request.urlopen(request, timeout=60, context=front.context()) as answer:
                statuses.append(answer.status)
        except urllib.error.HTTPError as error:
            statuses.append(error.code)
        except OSError:
            statuses.append(0)

    threads = [threading.Thread(target=upload) for _ in range(uploads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.wait(600)
    report.put({str(status): statuses.count(status) for status in sorted(set(statuses))})


# --- what the servers hold ---------------------------------------------------------------------------------

def resident_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Watch:
    """The peaks of the web's memory and (behind nginx) nginx's memory and disk, sampled every 0.2 s."""

    def __init__(self, web_pid: int, proxy: Optional[NginxFront]) -> None:
        self.web_pid, self.proxy = web_pid, proxy
        self.web_peak = self.proxy_peak = self.disk_peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Watch:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def sample(self) -> None:
        self.web_peak = max(self.web_peak, resident_mb(self.web_pid))
        if self.proxy is not None:
            self.proxy_peak = max(self.proxy_peak, self.proxy.resident_mb())
            self.disk_peak = max(self.disk_peak, self.proxy.disk_mb())

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            try:
                self.sample()
            except (OSError, IndexError):
                pass


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="leaderboards the visitor asks for, per phase")
    parser.add_argument("--slow", type=int, default=10_000, help="slow connections (default 10,000)")
    parser.add_argument("--browsers", type=int, default=1000, help="browsers following the live match (default 1,000)")
    parser.add_argument("--span", type=float, default=30.0,
                        help="seconds the visitor's requests during an attack are spread over, at least (default 30: "
                             "longer than the web's 10 s grace for a body, so that its cut and the reconnects fall in)")
    parser.add_argument("--attacks", default=",".join(ATTACKS), help=f"which attacks, in order (default: {','.join(ATTACKS)})")
    parser.add_argument("--through-nginx", action="store_true",
                        help="every request through a local nginx configured by docker/nginx.conf")
    parser.add_argument("--nginx-workers", type=int, default=1, help="nginx's worker processes (default 1)")
    parser.add_argument("--smoke", action="store_true", help="each attack briefly and small (the tests' run)")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    chosen = [name.strip() for name in arguments.attacks.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(ATTACKS))
    if unknown:
        parser.error(f"no such attack {unknown} (choose from {', '.join(ATTACKS)})")
    command = _command(arguments)
    binary = nginx_binary() if arguments.through_nginx else None
    if arguments.through_nginx and binary is None:
        why = "nginx is not installed (apt-get install nginx): --through-nginx skipped"
        print(json.dumps({"skipped": why, "command": command}) if arguments.json else why)
        return 0
    report = attack_all(arguments, chosen, binary)
    failures = report["failures"]
    report.update(goal_met=not failures, command=command)
    if arguments.json:
        print(json.dumps(report, indent=2))
        return 0
    idle = report["idle"]
    print(f"idle        p50 {idle['p50_ms']:8.2f} ms  p95 {idle['p95_ms']:8.2f} ms  within 3 s {idle['within_3s']:.0%}")
    print(f"web memory: {report['memory_mb']}")
    if report["proxy"] is not None:
        print(f"nginx: {report['proxy']}")
    print("goal met" if not failures else "goal NOT met:\n  " + "\n  ".join(failures))
    print(f"command: {command}")
    return 0


def _command(arguments: argparse.Namespace) -> str:
    command = f"python bench/web_attack.py --requests {arguments.requests} --slow {arguments.slow}"
    command += f" --browsers {arguments.browsers}" if arguments.browsers != 1000 else ""
    command += f" --span {arguments.span:g}" if arguments.span != 30 else ""
    command += f" --attacks {arguments.attacks}" if arguments.attacks != ",".join(ATTACKS) else ""
    command += " --through-nginx" if arguments.through_nginx else ""
    command += f" --nginx-workers {arguments.nginx_workers}" if arguments.nginx_workers != 1 else ""
    return command + (" --smoke" if arguments.smoke else "")


def attack_all(arguments: argparse.Namespace, chosen: list[str], binary: Optional[str]) -> dict[str, Any]:
    """The store, the referee, the web (and nginx), then the visitor idle and during each chosen attack."""
    folder = Path(tempfile.mkdtemp(prefix="arena-web-attack-"))
    db = f"sqlite:///{folder / 'arena.db'}"
    store = Store.open(db)
    run(TournamentSpec(games=(load_game("major-general"),), bots=tuple(parse_bots("random,greedy,scripted")),
                       format="round-robin", rounds=2, seed=1, name="bench"), store, PlaySettings(concurrency=2))
    store.owners.add("bench", hash_token(TOKEN))
    store.close()
    bots = folder / "bots"
    bots.mkdir()
    shutil.copytree(SLOW_BOT, bots / "slow")
    config = ServerConfig(port=0, bot_dirs=(bots, BUILTIN_BOTS), results_dir=None, startup_timeout_s=60.0,
                          clock=ClockSettings(move_time_s=10.0, bank_s=60.0, grace_s=1.0))
    try:
        with BackgroundReferee(config, drain_s=0.0) as referee:
            (folder / "admin-token").write_text(referee.admin_token)
            port = free_port()
            behind = (["--trusted-proxy", "127.0.0.1/32", "--connections-per-address", "32",
                       "--connections-per-network", "128"] if binary else [])  # (as compose runs it)
            web = subprocess.Popen(
                [sys.executable, "-c", "from arena.cli.main import run; run()", "web", "--port", str(port),
                 "--server", referee.address, "--admin-token-file", str(folder / "admin-token"),
                 "--bot-store", str(folder / "store"), *behind],
                env={**os.environ, "ARENA_DB": db}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                if binary is None:
                    return _attacks(arguments, chosen, Front(port, tls=False), web, referee, None)
                with NginxFront(binary, folder / "nginx", free_port(), port, arguments.nginx_workers) as proxy:
                    proxy.wait_until_up()
                    return _attacks(arguments, chosen, Front(proxy.port, tls=True), web, referee, proxy)
            finally:
                web.terminate()
                web.wait(30)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _attacks(arguments: argparse.Namespace, chosen: list[str], front: Front, web: subprocess.Popen[bytes],
             referee: BackgroundReferee, proxy: Optional[NginxFront]) -> dict[str, Any]:
    swing_s, uploads = (0.5, 2) if arguments.smoke else (3.0, 50)
    span_s = 0.0 if arguments.smoke else arguments.span
    browsers = 10 if arguments.smoke else arguments.browsers
    leaderboard = "/api/leaderboards/major-general"
    deadline = time.monotonic() + 60
    while get(front, leaderboard, 2)[0] != 200:
        if time.monotonic() > deadline or web.poll() is not None:
            raise SystemExit("arena web did not start")
        time.sleep(0.2)
    get(front, leaderboard)
    report: dict[str, Any] = {"through_nginx": proxy is not None, "idle": visitor(partial(get, front, leaderboard),
                                                                                  arguments.requests), "attacks": {}}
    failures: list[str] = []
    idle_p95 = report["idle"]["p95_ms"]
    before = peak = resident_mb(web.pid)
    proxy_before = proxy_peak = proxy.resident_mb() if proxy is not None else 0.0
    disk_peak = 0.0
    table: dict[str, tuple[Callable[..., None], Any]] = {
        "slow": (attack_slow, arguments.slow), "body": (attack_body, 0),
        "streams": (partial(attack_streams, browsers=browsers), None), "uploads": (attack_uploads, uploads),
        "slow_bodies": (attack_slow_bodies, arguments.slow), "upload_bodies": (attack_upload_bodies, 64),
        "one_client": (partial(attack_one_client, streams=min(200, browsers)), None)}
    context = multiprocessing.get_context("fork")
    for name in chosen:
        attack, parameter = table[name]
        live = ready = ready_s = None
        if name in ("streams", "one_client"):  # a match to follow live, started now (the slow bots take a while)
            parameter = live = referee.call(_start(referee)).match_id
        if name == "streams":  # (one_client's streams never all hold a place: its address's caps end them)
            ready = context.Event()
            attack = partial(attack, ready=ready)
        stop, queue = context.Event(), context.Queue()
        started_cpu = cpu_s(web.pid)
        answered_before = proxy.statuses() if proxy is not None else Counter()
        with Watch(web.pid, proxy) as watch:
            attacker = context.Process(target=attack, args=(front, parameter, stop, queue), daemon=True)
            attacker.start()
            began = time.monotonic()
            time.sleep(swing_s)  # the attack in full swing (a time here is the bench's pacing, not a test's wait)
            if ready is not None:  # ... for streams: all of them open (as the finding had them: held, then a visitor)
                ready_s = round(time.monotonic() - began, 1) if ready.wait(120) else None
            row = visitor(partial(get, front, leaderboard), arguments.requests, span_s)
            if ready is not None:
                row["streams_open_s"] = ready_s
            if live is not None:
                streams = visitor(partial(open_stream, front, f"/api/live/{live}/events"),
                                  max(3, arguments.requests // 4))
                row["stream_within_3s"] = streams["within_3s"]
            stop.set()
            attacker.join(120)
            if attacker.is_alive():
                attacker.kill()
        try:
            row["attacker"] = queue.get(timeout=5)
        except Exception:  # noqa: BLE001 - what the attacker saw is a detail
            row["attacker"] = None
        row["web_cpu_s"] = round(cpu_s(web.pid) - started_cpu, 2)
        row["web_rss_mb_peak"] = round(watch.web_peak, 1)
        row["vs_idle"] = round(row["p95_ms"] / idle_p95, 2) if idle_p95 else None
        peak = max(peak, watch.web_peak)
        if proxy is not None:
            row["proxy_rss_mb_peak"], row["proxy_disk_mb_peak"] = round(watch.proxy_peak, 1), round(watch.disk_peak, 2)
            row["proxy_statuses"] = dict(sorted((proxy.statuses() - answered_before).items()))
            proxy_peak, disk_peak = max(proxy_peak, watch.proxy_peak), max(disk_peak, watch.disk_peak)
        report["attacks"][name] = row
        failures += _misses(name, row)
        if not arguments.json:
            print(f"{name:13s} p50 {row['p50_ms']:8.2f} ms  p95 {row['p95_ms']:8.2f} ms  within 3 s "
                  f"{row['within_3s']:.0%}{_streams_part(row)}"
                  f"  errors {row['errors']}  web cpu {row['web_cpu_s']} s, rss peak {row['web_rss_mb_peak']} MB"
                  + (f"  nginx rss peak {row['proxy_rss_mb_peak']} MB, disk {row['proxy_disk_mb_peak']} MB"
                     if proxy is not None else "") + f"  attacker: {row['attacker']}", flush=True)
    growth = peak - before
    report["memory_mb"] = {"before": round(before, 1), "peak": round(peak, 1), "growth": round(growth, 1)}
    if growth >= 100:
        failures.append(f"the web's memory grew {growth:.0f} MB (goal < 100)")
    report["proxy"] = None
    if proxy is not None:
        report["proxy"] = {"memory_mb": {"before": round(proxy_before, 1), "peak": round(proxy_peak, 1),
                                         "growth": round(proxy_peak - proxy_before, 1)},
                           "disk_mb_peak": round(disk_peak, 2)}
        bound = NGINX_MB_PER_WORKER * proxy.workers
        if proxy_peak - proxy_before >= bound:
            failures.append(f"nginx's memory grew {proxy_peak - proxy_before:.0f} MB (goal < {bound})")
        if disk_peak >= 1:
            failures.append(f"nginx kept {disk_peak:.1f} MB on disk (goal: nothing, under 1 MB)")
    report["failures"] = failures
    return report


def _streams_part(row: dict[str, Any]) -> str:
    return f" (live streams {row['stream_within_3s']:.0%})" if "stream_within_3s" in row else ""


def _misses(name: str, row: dict[str, Any]) -> list[str]:
    """What of the visitor's goals an attack's row misses."""
    misses = []
    if row["within_3s"] < 0.9:
        misses.append(f"{name}: {row['within_3s']:.0%} of the visitor's requests answered within 3 s (goal >= 90%)")
    if row.get("stream_within_3s", 1.0) < 0.9:
        misses.append(f"{name}: {row['stream_within_3s']:.0%} of the visitor's live streams opened within 3 s "
                      "(goal >= 90%)")
    if row["server_5xx"]:
        misses.append(f"{name}: {row['server_5xx']} server errors to the visitor")
    return misses


async def _start(referee: BackgroundReferee) -> Any:
    return referee.server.start_match("major-general", ["slow", "slow"], seed=time.monotonic_ns() % 1000)


if __name__ == "__main__":
    sys.exit(main())
