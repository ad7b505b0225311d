"""Trust, round 2: each way out that a bot found before, tried again for real, harmlessly.

- a bot.toml's [env] (LD_PRELOAD of the bot's own library) never reaches a program on the host side;
- budgets one peer cannot spend for another: a bot holding 1,280 streams without a Hello, 40 network
  addresses with 32 such streams each, a thousand idle connections from one address;
- a flood of output costs the bot its clock, not the referee its CPU;
- a bot's escape sequences are shown escaped;
- what a killed referee leaves is removed at the next start;
- a launched bot that cannot connect because of the referee's own limits is not the bot's loss.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.referee.record import Termination
from arena.rpc import pool as pool_module
from arena.rpc.background import BackgroundReferee
from arena.rpc.launcher import OUTPUT_BURST, OUTPUT_RATE, BotProcess
from arena.rpc.manifest import BotManifest, ManifestError, load_manifest
from arena.rpc.server import ServerConfig
from arena.sandbox import LaunchRefused, SandboxSettings
from arena.sandbox.launch import LAUNCH_FAILED, Launcher
from arena.sandbox.leftovers import RUNTIME_PREFIX, runtime_base
from arena.sandbox.limits import Limits
from arena.submissions.checks import check_folder
from tests.hostile.conftest import CLOCK, History

EVIL_C = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void evil(void) {
    const char *marker = "%s";
    FILE *out = fopen(marker, "a");
    if (out) { fprintf(out, "loaded in pid %%d\n", (int)getpid()); fclose(out); }
}
"""


@pytest.fixture
def preloading_bot(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A bot whose bot.toml preloads its own library; the library writes a marker on the host if loaded there."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed: the preloaded library cannot be built")
    marker = tmp_path / "marker"
    folder = tmp_path / "evil-bot"
    shutil.copytree(BUILTIN_BOTS / "random", folder)
    source = tmp_path / "evil.c"
    source.write_text(EVIL_C.replace("#include <stdlib.h>", "#include <stdlib.h>\n#include <unistd.h>") % marker)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(folder / "evil.so"), str(source)], check=True)
    library = folder / "evil.so"
    # the library works: preloaded into a program on the host, it writes the marker
    subprocess.run(["/bin/true"], env={"LD_PRELOAD": str(library), "PATH": "/usr/bin:/bin"}, check=True)
    assert marker.exists()
    marker.unlink()
    text = (folder / "bot.toml").read_text().replace('name = "random"', 'name = "evil-bot"')
    (folder / "bot.toml").write_text(text + f'\n[env]\nLD_PRELOAD = "{library}"\n')
    yield folder, marker


def test_ld_preload_in_bot_toml_is_refused_at_submit_and_at_load(preloading_bot: tuple[Path, Path]) -> None:
    folder, marker = preloading_bot
    manifest, problems = check_folder(folder)
    assert manifest is None
    [problem] = [p for p in problems if "LD_PRELOAD" in p.message]
    lines = (folder / "bot.toml").read_text().splitlines()
    assert problem.where == f"bot.toml:{next(i for i, l in enumerate(lines, 1) if l.startswith('LD_PRELOAD'))}"
    assert "loaded or started" in problem.message and "link a library into your program" in problem.fix
    with pytest.raises(ManifestError, match="LD_PRELOAD"):
        load_manifest(folder)
    assert not marker.exists()


def test_ld_preload_never_reaches_the_host_even_past_the_checks(preloading_bot: tuple[Path, Path],
                                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the checks bypassed (a manifest made by hand), the launch refuses; and with that refusal bypassed too,
    the variable is set inside the sandbox only, where the host's copy of the library is not even visible."""
    folder, marker = preloading_bot
    env = {"LD_PRELOAD": str(folder / "evil.so")}
    launcher = Launcher(SandboxSettings(), tmp_path / "runtime")
    (tmp_path / "runtime").mkdir()
    with pytest.raises(LaunchRefused, match="LD_PRELOAD"):
        launcher.plan(name="evil-bot", directory=folder, command=["{python}", "bot.py"], token="t", concurrency=1,
                      limits=Limits(), env=env)
    monkeypatch.setattr("arena.sandbox.launch.env_problems", lambda names: [])
    plan = launcher.plan(name="evil-bot", directory=folder, command=["{python}", "bot.py"], token="t",
                         concurrency=1, limits=Limits(), env=env)
    assert "LD_PRELOAD" not in plan.env and plan.cwd == "/"  # the wrappers' environment and folder are fixed
    plan.cleanup()
    manifest = BotManifest(name="evil-bot", version="1", command=("{python}", "bot.py"), games=("*",),
                           directory=folder, env=env)
    config = ServerConfig(port=None, bot_dirs=(), bot_manifests=[manifest], results_dir=None, clock=CLOCK,
                          startup_timeout_s=60.0)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        record = referee.run_match("major-general", ["evil-bot", "random"], seed=3)
    assert record.result is not None and record.result.reason == "score", record.result
    assert not marker.exists(), marker.read_text()


def test_arena_match_refuses_the_preloading_bot_in_one_line(preloading_bot: tuple[Path, Path], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder, marker = preloading_bot
    code = main(["match", "major-general", str(folder), "random", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code != 0 and "LD_PRELOAD" in err and "Traceback" not in err
    assert not marker.exists()


def test_a_bot_holding_a_thousand_streams_blocks_only_itself(referee: BackgroundReferee, history: History) -> None:
    flooding = referee.submit("major-general", ["random", "hostile-stream-flood"], seed=41)
    deadline = time.monotonic() + 120
    while "holding 1280 streams" not in referee.server.pool.output_tail("hostile-stream-flood"):
        assert time.monotonic() < deadline and not flooding.done(), (
            flooding.result() if flooding.done() else referee.server.pool.output_tail("hostile-stream-flood"))
        time.sleep(0.05)
    record = referee.run_match("major-general", ["greedy", "random"], seed=42)  # launches new processes meanwhile
    assert record.result is not None and record.result.reason == "score", record.result
    flooded = flooding.result(timeout=120)  # its own budget held it: it plays on, or loses by its own doing
    assert flooded.result is not None and (flooded.result.reason == "score" or flooded.result.offender == 1)
    history.check_intact()


class SourceAddressForwarder:
    """A Unix socket that forwards each connection to the referee from one loopback source address."""

    def __init__(self, folder: Path, source: str, target: tuple[str, int]) -> None:
        self.path = folder / f"via-{source}"
        self.source, self.target = source, target
        self.server: asyncio.AbstractServer | None = None

    async def start(self) -> str:
        self.server = await asyncio.start_unix_server(self._forward, str(self.path))
        return f"unix:{self.path}"

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        outbound = socket.socket()
        outbound.bind((self.source, 0))
        outbound.setblocking(False)
        await asyncio.get_running_loop().sock_connect(outbound, self.target)
        far_reader, far_writer = await asyncio.open_connection(sock=outbound)

        async def pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    target.write(data)
                    await target.drain()
            except OSError:
                pass
            finally:
                target.close()

        await asyncio.gather(pipe(reader, far_writer), pipe(far_reader, writer))

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()


@pytest.fixture
def patient_referee() -> Iterator[BackgroundReferee]:
    """A referee whose streams may wait long to say Hello (the attack holds them while the test goes on)."""
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS,), results_dir=None, clock=CLOCK, hello_timeout_s=300.0)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        yield referee


def test_forty_addresses_holding_streams_do_not_lock_out_a_remote_bot(patient_referee: BackgroundReferee,
                                                                     tmp_path: Path) -> None:
    """40 loopback addresses with 32 streams each that never say Hello: 1,280 waiting in all, each address within
    its own budget. A remote bot with a valid token (from yet another address) still connects and plays."""
    referee = patient_referee
    host, port = referee.address.rsplit(":", 1)

    async def hold() -> tuple[list[object], list[SourceAddressForwarder]]:
        forwarders = [SourceAddressForwarder(tmp_path, f"127.0.1.{number}", (host, int(port)))
                      for number in range(1, 41)]
        held: list[object] = []
        for forwarder in forwarders:
            channel = grpc.aio.insecure_channel(await forwarder.start())
            held.append(channel)
            held += [channel.stream_stream("/arena.v1.Bot/Play")() for _ in range(32)]
        deadline = time.monotonic() + 120
        waiting = referee.server.bots.pending_hellos  # more than the 1,024 one budget for all once allowed
        while len(waiting) < 40 or sum(waiting.values()) <= 1024:
            assert time.monotonic() < deadline, dict(waiting)
            await asyncio.sleep(0.05)
        return held, forwarders

    attacker = asyncio.new_event_loop()  # the attacker's own event loop, on a thread of its own
    thread = threading.Thread(target=attacker.run_forever, daemon=True)
    thread.start()
    held, forwarders = asyncio.run_coroutine_threadsafe(hold(), attacker).result()
    assert len(referee.server.bots.pending_hellos) == 40
    token = referee.register_remote("far-random-2")
    bot = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py"), "--server", referee.address,
                            "--token", token, "--name", "far-random-2", "--matches", "1"],
                           stderr=subprocess.DEVNULL)
    try:
        record = referee.run_match("major-general", ["far-random-2", "random"], seed=43)
        assert record.result is not None and record.result.reason == "score", record.result
    finally:
        bot.kill()
        bot.wait()

        async def release() -> None:
            for item in held:
                if isinstance(item, grpc.aio.Channel):
                    await item.close()
            for forwarder in forwarders:
                await forwarder.close()

        asyncio.run_coroutine_threadsafe(release(), attacker).result()
        attacker.call_soon_threadsafe(attacker.stop)
        thread.join()


def test_a_thousand_idle_connections_from_one_address_leave_the_referee_serving(referee: BackgroundReferee) -> None:
    host, port = referee.address.rsplit(":", 1)
    gate = referee.server.gate
    assert gate is not None
    refused_before, accepted_before = gate.refused, gate.accepted
    idle = []
    try:
        for _ in range(1100):
            connection = socket.socket()
            connection.bind(("127.0.2.1", 0))
            connection.connect((host, int(port)))
            idle.append(connection)
        deadline = time.monotonic() + 120
        limit = referee.server.config.max_connections_per_peer
        while gate.refused - refused_before + gate.accepted - accepted_before < 1100:  # each one decided
            assert gate._by_address["ipv4:127.0.2.1"] <= limit  # never more than the address's budget at once
            assert time.monotonic() < deadline, (gate.refused, gate.accepted)
            time.sleep(0.02)
        assert gate._by_address["ipv4:127.0.2.1"] <= limit
        assert gate.refused - refused_before >= 1100 // 2  # most were refused at once
        with grpc.insecure_channel(referee.address) as channel:  # another address: served at once
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=30)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        record = referee.run_match("major-general", ["random", "random"], seed=44)
        assert record.result is not None and record.result.reason == "score"
    finally:
        for connection in idle:
            connection.close()


def test_a_connection_that_never_speaks_is_closed() -> None:
    config = ServerConfig(port=0, bot_dirs=(), builtin_bots=False, results_dir=None, hello_timeout_s=1.0,
                          idle_connection_s=1.0)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        host, port = referee.address.rsplit(":", 1)
        with socket.create_connection((host, int(port))) as connection:
            connection.settimeout(60)  # a backstop: the test waits for the close, whatever the machine's load
            while connection.recv(1024):  # the server's own preface, then the close (no client preface came)
                pass


def test_an_output_flood_costs_the_bot_its_clock_not_the_referee_its_cpu(referee: BackgroundReferee,
                                                                         history: History) -> None:
    started = time.monotonic()
    record = referee.run_match("major-general", ["random", "hostile-output-flood"], seed=45)
    elapsed = time.monotonic() - started
    result = record.result
    assert result is not None and (result.reason, result.offender) == ("timeout", 1), result
    evidence = record.extra["evidence"]["1"]
    assert evidence["output_throttled_s"] > 0, evidence
    read = referee.server.pool.usage_peaks("hostile-output-flood")  # the process is gone; its output was bounded
    assert read.launches >= 1
    tail = referee.server.pool.output_tail("hostile-output-flood")
    assert "flood" in tail
    total = referee.server.pool._last_stopped["hostile-output-flood"].process.output.total
    assert total <= OUTPUT_BURST + OUTPUT_RATE * elapsed + 2 * 65536 < 256 * 2**20, total
    history.check_intact()


def test_escape_sequences_are_shown_escaped(hostile_bots: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bot", "test", str(hostile_bots / "escapes"), "--games", "major-general", "--matches", "1"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "\\x1b]52;c;" in out and "\\u202e" in out  # shown, written out
    assert code in (0, 1)


def test_what_a_killed_referee_left_is_removed_at_the_next_start(hostile_bots: Path, tmp_path: Path) -> None:
    script = (f"import sys, time\nfrom pathlib import Path\nfrom arena.rpc.background import BackgroundReferee\n"
              f"from arena.rpc.server import ServerConfig\n"
              f"config = ServerConfig(port=0, bot_dirs=(Path({str(hostile_bots)!r}),), results_dir=None)\n"
              "referee = BackgroundReferee(config, drain_s=0.0)\nreferee.start()\n"
              "referee.submit('major-general', ['hostile-sleep-forever', 'hostile-sleep-forever'], seed=1)\n"
              "while not referee.server.pool.local_pids(): time.sleep(0.01)\n"
              "print(referee.server.runtime_dir, flush=True)\ntime.sleep(3600)\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    assert process.stdout is not None
    runtime = Path(process.stdout.readline().strip())
    assert runtime.name.startswith(RUNTIME_PREFIX) and runtime.parent == runtime_base() and runtime.exists()
    groups = [path for path in Path("/sys/fs/cgroup").rglob(f"arena-{process.pid}") if path.is_dir()]
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()
    assert runtime.exists()  # left behind by the kill
    config = ServerConfig(port=None, bot_dirs=(), builtin_bots=False, results_dir=None)
    with BackgroundReferee(config, drain_s=0.0):
        deadline = time.monotonic() + 30
        while runtime.exists() or any(group.exists() for group in groups):
            assert time.monotonic() < deadline, (runtime, groups)
            time.sleep(0.05)


def test_a_bot_the_referee_could_not_take_is_an_infrastructure_fault(hostile_bots: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee out of descriptors when a launched bot fails to connect: voided, never the bot's loss."""
    monkeypatch.setattr(pool_module, "descriptor_headroom", lambda: 3)
    silent = hostile_bots.parent / "silent"
    silent.mkdir(exist_ok=True)
    (silent / "bot.toml").write_text('name = "silent"\ncommand = ["{python}", "-c", "import sys; sys.exit(1)"]\n')
    config = ServerConfig(port=None, bot_dirs=(silent,), results_dir=None, clock=CLOCK, startup_timeout_s=30.0)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        record = referee.run_match("major-general", ["silent", "random"], seed=5)
    assert record.result is not None and record.result.reason == Termination.INFRASTRUCTURE.value, record.result
    assert "file descriptors" in record.result.detail


def test_why_a_launch_failed_outlives_the_cleanup_of_its_process(tmp_path: Path) -> None:
    """The pool reads a failed launch's reason (what the launch wrote in the bot's private folder) after the
    process may already be stopping: the match gave its place back first, and the stop removes the folder. The
    reason is kept, so a launch the machine failed is never scored as the bot's crash."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    manifest = BotManifest(name="exits", version="1", command=("{python}", "-c", "raise SystemExit(125)"),
                           games=("*",), directory=tmp_path)

    async def scenario() -> tuple[bool, str]:
        process = BotProcess(manifest, "token", Launcher(SandboxSettings(mode="none"), runtime))
        await process.launch()
        assert process.plan is not None
        (process.plan.private_dir / LAUNCH_FAILED).write_text("a runtime folder could not be bound\n")
        await process.stop()
        return process.plan.private_dir.exists(), process.launch_failure()

    folder_left, reason = asyncio.run(scenario())
    assert not folder_left and reason == "a runtime folder could not be bound"
