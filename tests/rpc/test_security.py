"""The closed referee: TLS on the network port, the watch delay of the admins' full view, warm
processes recycled when idle and cleaned up when they die, bot trees that die with the referee, and streams that
never say Hello."""

from __future__ import annotations

from collections import Counter

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import grpc
import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.serve import network_warning
from arena.referee.clock import ClockSettings
from arena.rpc.background import BackgroundReferee
from arena.rpc.client import AdminClient, AdminError
from arena.rpc.generated import admin_pb2, admin_pb2_grpc
from arena.rpc.config import SpectatorLimits
from arena.rpc.server import ServerConfig
from tests.processes import processes_of, wait_for_no_leftovers

ROOT = Path(__file__).resolve().parents[2]


def renamed_bot(source: Path, target: Path, name: str) -> Path:
    """A copy of a bot folder under another name (so this test can count its processes alone)."""
    shutil.copytree(source, target, symlinks=False)
    manifest = target / "bot.toml"
    text = manifest.read_text()
    original = next(line for line in text.splitlines() if line.startswith("name ="))
    manifest.write_text(text.replace(original, f'name = "{name}"'))
    return target


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, made with openssl."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "referee.pem", folder / "referee.key"
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed here: it makes the test certificate")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", str(key),
                    "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


@pytest.fixture(scope="module")
def tls_referee(tmp_path_factory: pytest.TempPathFactory, certificate: tuple[Path, Path]
                ) -> Iterator[BackgroundReferee]:
    cert, key = certificate
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS,), results_dir=tmp_path_factory.mktemp("results"),
                          tls_cert=cert, tls_key=key, clock=ClockSettings(5.0, 30.0, 1.0))
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server


def test_a_remote_bot_and_an_admin_client_talk_tls(tls_referee: BackgroundReferee, certificate: tuple[Path, Path],
                                                   tmp_path: Path) -> None:
    cert, _ = certificate
    token = tls_referee.register_remote("far-tls")
    log = tmp_path / "far-tls.stderr"
    with log.open("w") as stderr:
        bot = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py"), "--server",
                                tls_referee.address, "--token", token, "--name", "far-tls", "--matches", "1",
                                "--tls-ca", str(cert)], stderr=stderr)
    try:
        record = tls_referee.run_match("major-general", ["far-tls", "random"], seed=5)
        assert record.result is not None and record.result.reason == "score", (record.result, log.read_text())
        assert bot.wait(timeout=30) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
    async def plain_connection() -> bool:
        async with grpc.aio.insecure_channel(tls_referee.address) as channel:
            try:
                await asyncio.wait_for(channel.channel_ready(), 2.0)
            except TimeoutError:
                return False
            return True

    assert not asyncio.run(plain_connection())  # no TLS, no referee

    async def admin_calls() -> int:
        async with AdminClient(tls_referee.address, tls_referee.admin_token, str(cert)) as admin:
            return len(await admin.bots())

    assert asyncio.run(admin_calls()) >= 1


def test_serving_beyond_this_machine_without_tls_is_warned_about() -> None:
    assert network_warning("0.0.0.0", tls=False) is not None and "TLS" in network_warning("0.0.0.0", tls=False)
    assert network_warning("0.0.0.0", tls=True) is None
    assert network_warning("127.0.0.1", tls=False) is None


async def watch_full(address: str, token: str, match_id: str, done: asyncio.Future) -> tuple[int, int]:
    """(steps received before the match ended, steps in all) of the admins' full view."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = admin_pb2_grpc.RefereeAdminStub(channel)
        early = total = 0
        async for event in stub.WatchMatchFull(admin_pb2.WatchMatchRequest(match_id=match_id),
                                               metadata=(("authorization", f"Bearer {token}"),)):
            if event.HasField("step"):
                total += 1
                early += not done.done()
        return early, total


@pytest.mark.parametrize("delay", [None, 0.2])
def test_the_full_view_waits_for_the_watch_delay(tmp_path: Path, test_bots: Path, delay: float | None) -> None:
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS, test_bots), results_dir=None, watch_delay_s=delay,
                          clock=ClockSettings(move_time_s=1.5, bank_s=0.0, grace_s=0.5))
    with BackgroundReferee(config, drain_s=0.0) as referee:
        async def scenario() -> tuple[int, int]:
            live = referee.server.start_match("major-general", ["random", "sleep"], seed=3)  # ~2 s, then a timeout
            assert live.task is not None
            watcher = asyncio.ensure_future(watch_full(referee.address, referee.admin_token, live.match_id,
                                                       live.task))
            await live.task
            return await watcher

        early, total = referee.call(scenario())
    assert total > 0
    if delay is None:
        assert early == 0  # hidden information only after the match
    else:
        assert 0 < early  # steps came while the match ran, each once it was old enough


def test_an_idle_warm_process_is_recycled(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    renamed_bot(BUILTIN_BOTS / "random", bots / "idle-random", "idle-random")
    config = ServerConfig(port=None, bot_dirs=(bots, BUILTIN_BOTS), results_dir=None, idle_timeout_s=0.5)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        referee.run_match("major-general", ["idle-random", "random"], seed=1)
        assert processes_of("idle-random", referee)
        deadline = time.monotonic() + 20
        while processes_of("idle-random", referee):
            assert time.monotonic() < deadline, "the idle process was not recycled"
            time.sleep(0.1)
        record = referee.run_match("major-general", ["idle-random", "random"], seed=2)  # a fresh process
        assert record.result is not None and record.result.reason == "score"


def test_a_warm_process_that_dies_between_matches_is_cleaned_up(tmp_path: Path) -> None:
    """A process that dies while it waits for a match (killed, or out of memory) is stopped like any other: its
    socket closed, its private folder and cgroup removed, its user given back; not left until the referee stops."""
    bots = tmp_path / "bots"
    renamed_bot(BUILTIN_BOTS / "random", bots / "dying-random", "dying-random")
    config = ServerConfig(port=None, bot_dirs=(bots, BUILTIN_BOTS), results_dir=None)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        assert referee.server.runtime_dir is not None
        private_folders = referee.server.runtime_dir / "bots"
        referee.run_match("major-general", ["dying-random", "random"], seed=1)
        assert len(list(private_folders.iterdir())) == 2  # one a process, both warm
        for pid in processes_of("dying-random", referee):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while len(list(private_folders.iterdir())) != 1:
            assert time.monotonic() < deadline, "the dead process's private folder is still there"
            time.sleep(0.05)
        record = referee.run_match("major-general", ["dying-random", "random"], seed=2)  # a fresh process
        assert record.result is not None and record.result.reason == "score"
        assert len(list(private_folders.iterdir())) == 2


def test_bots_die_with_a_referee_killed_outright(tmp_path: Path, test_bots: Path) -> None:
    bots = tmp_path / "bots"
    name = f"orphan-check-{os.getpid()}"  # (this run's own: another suite on the machine has another)
    renamed_bot(test_bots / "sleep", bots / name, name)
    command = [sys.executable, "-c", "from arena.cli.main import run; run()", "match", "major-general",
               str(bots / name), str(BUILTIN_BOTS / "random"), "--games", "1", "--move-time-ms", "60000",
               "--out", str(tmp_path / "out")]
    match = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not processes_of(name):  # the bot is up (and soon asleep on its third decision)
            assert time.monotonic() < deadline and match.poll() is None
            time.sleep(0.05)
        time.sleep(1.0)
        match.send_signal(signal.SIGKILL)
        match.wait()
        deadline = time.monotonic() + 10
        while processes_of(name):
            assert time.monotonic() < deadline, f"bot processes outlived the referee: {processes_of(name)}"
            time.sleep(0.05)
    finally:
        if match.poll() is None:
            match.kill()


class PeakCounter(Counter):  # type: ignore[type-arg]
    """A Counter that remembers the most any key ever held (how many streams waited at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.peak = 0

    def __setitem__(self, key: str, value: int) -> None:
        super().__setitem__(key, value)
        self.peak = max(self.peak, value)


def test_streams_that_never_say_hello_are_limited_per_peer() -> None:
    """3,000 streams from one peer that never say Hello: never more than 32 wait at once (however slowly a busy
    machine opens them), the rest are refused at once, and the server plays on."""
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS,), results_dir=None, hello_timeout_s=1.0,
                          max_pending_hellos_per_peer=32)

    async def flood(address: str) -> dict[str, int]:
        async with grpc.aio.insecure_channel(address) as channel:
            async def silent() -> str:
                call = channel.stream_stream("/arena.v1.Bot/Play")()
                try:
                    await call.read()
                except grpc.aio.AioRpcError:
                    pass
                return (await call.code()).name

            codes = await asyncio.gather(*(silent() for _ in range(3000)))
        counts: dict[str, int] = {}
        for code in codes:
            counts[code] = counts.get(code, 0) + 1
        return counts

    with BackgroundReferee(config, drain_s=0.0) as server:
        waiting = server.server.bots.pending_hellos = PeakCounter()
        counts = asyncio.run(flood(server.address))
        assert sum(counts.values()) == 3000
        # refused at once: by the referee (RESOURCE_EXHAUSTED), by HTTP/2's stream limit (UNAVAILABLE,
        # REFUSED_STREAM), or with the connection, which the gate closes past the peer's rate of new streams
        # (UNAVAILABLE; INTERNAL when it is cut mid-frame); the others waited, at most 32 at a time, and timed out
        refused = counts.get("RESOURCE_EXHAUSTED", 0) + counts.get("UNAVAILABLE", 0) + counts.get("INTERNAL", 0)
        assert counts.get("RESOURCE_EXHAUSTED", 0) > 0 and refused + counts.get("DEADLINE_EXCEEDED", 0) == 3000, \
            counts
        assert 0 < waiting.peak <= 32, waiting.peak
        # nothing left behind, once the server has ended the streams still waiting when the client let go (each
        # within its hello_timeout_s; a busy machine may take a while to run them)
        deadline = time.monotonic() + 60.0
        while waiting and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not waiting
        record = server.run_match("major-general", ["random", "random"], seed=9)
        assert record.result is not None and record.result.reason == "score"


def test_admin_calls_without_the_token_fail_with_one_line(referee: BackgroundReferee) -> None:
    async def list_bots(token: str | None) -> None:
        async with AdminClient(referee.address, token) as admin:
            await admin.bots()

    with pytest.raises(AdminError, match="admin token"):
        asyncio.run(list_bots(None))
    asyncio.run(list_bots(referee.admin_token))
    wait_for_no_leftovers(referee, "random")


def test_bots_seeds_are_keyed_by_a_secret_unless_the_operator_opts_out() -> None:
    """A bot that knew how its seed follows from the match seed could search small match seeds for its own
    and know every card to come; so by default a referee keys the seeds with a secret of its own."""
    from arena.referee.authority import seat_seed

    made = [BackgroundReferee(ServerConfig(port=None, bot_dirs=(), results_dir=None)) for _ in range(2)]
    salts = []
    for referee in made:
        with referee:
            salts.append(referee.server.seed_salt)
    assert all(salts) and salts[0] != salts[1]
    assert seat_seed(7, 0, salts[0]) != seat_seed(7, 0, None) != seat_seed(7, 0, salts[1])
    with BackgroundReferee(ServerConfig(port=None, bot_dirs=(), results_dir=None, public_seeds=True)) as public:
        assert public.server.seed_salt is None
    with BackgroundReferee(ServerConfig(port=None, bot_dirs=(), results_dir=None, seed_salt="fixed")) as fixed:
        assert fixed.server.seed_salt == "fixed"


def test_the_viewer_token_lists_and_watches_and_nothing_more() -> None:
    """What `arena web` holds in a deployment: enough for the Live page (list, watch outside the watchers'
    caps, here none at all), never a match started, a full view, a status, a record or the bots."""
    viewer = "v" * 32
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS,), results_dir=None, viewer_token=viewer,
                          spectators=SpectatorLimits(total=0))
    with BackgroundReferee(config, drain_s=0.0) as referee:
        record = referee.run_match("major-general", ["random", "random"], seed=5)

        async def watched(token: str | None) -> list[str | None]:
            async with AdminClient(referee.address, token) as admin:
                return [event.WhichOneof("kind") async for event in admin.watch(record.match_id)]

        async def listed() -> list[str]:
            async with AdminClient(referee.address, viewer) as admin:
                return [status.match_id for status in await admin.matches()]

        assert asyncio.run(listed()) == [record.match_id]
        kinds = asyncio.run(watched(viewer))
        assert kinds[0] == "header" and kinds[-1] == "finished"
        with pytest.raises(AdminError):  # an anonymous watcher: none admitted here
            asyncio.run(watched(None))

        async def refused(call: str) -> str:
            async with AdminClient(referee.address, viewer) as admin:
                try:
                    if call == "full":
                        async for _event in admin.watch(record.match_id, full=True):
                            pass
                    elif call == "start":
                        await admin.start_match("major-general", ["random", "random"])
                    else:
                        await getattr(admin, call)(*(() if call == "bots" else (record.match_id,)))
                except AdminError as error:
                    return str(error)
                return "allowed"

        for call in ("full", "start", "bots", "status", "record"):
            assert "admin token" in asyncio.run(refused(call)), call
