"""Local bot processes: launch a manifest's command in its sandbox, keep the tail of its output, stop its tree."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import termios
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Optional, Sequence

from arena.referee.record import Termination
from arena.rpc.manifest import BotManifest
from arena.sandbox.cgroups import CgroupUsage
from arena.sandbox.launch import LAUNCH_FAILED, Launcher, LaunchPlan
from arena.sandbox.limits import Limits
from arena.sandbox.memory_watch import Watched

OUTPUT_KEPT_BYTES = 64 * 1024  # the tail of a process's output kept in memory
EVIDENCE_BYTES = 16 * 1024  # at most this much output goes into a match record
OUTPUT_RATE = 256 * 1024  # bytes a second the referee reads of a bot's output, once its burst is spent
OUTPUT_BURST = 4 * 2**20  # bytes a bot may write at once before its output is read at OUTPUT_RATE
TINY_CHUNK = 512  # a read this small: the pipe is left to fill for COALESCE_S before the next (tiny writes)
COALESCE_S = 0.005  # so a bot writing a byte a write costs the referee a read per 5 ms, not a read per byte
READ_BYTES = 65536  # at most this much a read of a bot's output
DRAIN_TURNS = 20  # event-loop turns a drain gives the output reader before finding it makes no progress
#: Opens the referee's end of a launched process's own socket (before the process starts): (socket, token) -> closer.
Listen = Callable[[Path, str], Awaitable[Callable[[], Awaitable[None]]]]

CORES = os.cpu_count() or 1


def _group_has_members(group: int) -> bool:
    """True when some process of this machine is in process group `group`."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if len(fields) > 2 and fields[2] == str(group):
                return True
    return False


def _watch_stopped(watch: Optional[Watched], limits: Limits) -> tuple[Termination, str] | None:
    """The memory limit, where the referee's watch stopped the tree for going over it."""
    if watch is not None and watch.killed_at_bytes is not None:
        return (Termination.MEMORY_LIMIT, f"the referee stopped the bot: its processes together held "
                f"{watch.killed_at_bytes / 2**20:.0f} MB, over its memory limit of {limits.memory_mb} MB")
    return None


def _cgroup_limit_met(usage: Optional[CgroupUsage], limits: Limits) -> tuple[Termination, str] | None:
    """The memory or process limit, where the cgroup counted OOM kills or refused forks."""
    if usage is not None and usage.oom_kills:
        peak = f", peak {usage.memory_peak_bytes / 2**20:.0f} MB" if usage.memory_peak_bytes else ""
        return (Termination.MEMORY_LIMIT, f"the kernel killed {usage.oom_kills} process(es) of the bot for "
                f"going over its memory limit of {limits.memory_mb} MB{peak}")
    if usage is not None and usage.processes_refused:
        return (Termination.PROCESS_LIMIT, f"the bot met its limit of {limits.processes} processes and "
                f"threads ({usage.processes_refused} fork(s) refused)")
    return None


def _cpu_limit_met(signum: int | None, usage: Optional[CgroupUsage], limits: Limits) -> tuple[Termination, str] | None:
    """The CPU limit, where SIGXCPU ended the program, or SIGKILL did once the tree had used its CPU time."""
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and usage is not None and usage.cpu_seconds
                                    and usage.cpu_seconds >= limits.cpu_seconds):
        return (Termination.CPU_LIMIT, f"the bot used its {limits.cpu_seconds} s of CPU time")
    return None


class OutputTail:
    """The last bytes a process wrote (stdout and stderr together) and a count of all it wrote."""

    def __init__(self, limit: int = OUTPUT_KEPT_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self.throttled_s = 0.0  # how long the referee held off reading a flood (the bot waited, not the referee)
        self.reads = 0  # the reads it took (tiny writes are read several at once)
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        """Append output, dropping the oldest bytes beyond the limit."""
        self._buffer += data
        self.total += len(data)
        self.reads += 1
        excess = len(self._buffer) - self.limit
        if excess > 0:
            del self._buffer[:excess]

    def since(self, mark: int, cap: int = EVIDENCE_BYTES) -> str:
        """What was written after `mark` (a past `total`), at most its last `cap` bytes."""
        wanted = self.total - mark
        kept = min(wanted, len(self._buffer), cap)
        text = bytes(self._buffer[len(self._buffer) - kept:]).decode("utf-8", errors="replace") if kept else ""
        if kept < wanted:
            text = f"[... {wanted - kept} earlier bytes not kept]\n" + text
        return text


class OutputReader(asyncio.Protocol):
    """Reads a process's output pipe into its OutputTail as the event loop finds bytes there: each read is counted
    in the same step that takes it from the pipe, so what the process has written is always either counted or
    still in the pipe (`unread`), never in between (asyncio's subprocess pipes hand each read on a loop turn later:
    a line written just before an answer could be in neither when the answer was read). At most OUTPUT_RATE bytes
    a second after a burst of OUTPUT_BURST (a flood waits in its pipe, so the program blocks on its own writes);
    after a tiny read the pipe is left to fill for COALESCE_S (tiny writes are read together), unless `hurry`."""

    def __init__(self, tail: OutputTail) -> None:
        self.tail = tail
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()  # done at end of output
        self._transport: Optional[asyncio.ReadTransport] = None
        self._pipe: Optional[int] = None
        self._allowance, self._last = float(OUTPUT_BURST), time.monotonic()
        self._resume: Optional[asyncio.TimerHandle] = None
        self._gathering = False  # paused for tiny writes to gather (hurry ends it; a flood's pause it does not)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport
        if hasattr(transport, "max_size"):
            transport.max_size = READ_BYTES  # (a read's size bounds how far one read overshoots the rate)
        pipe = transport.get_extra_info("pipe")
        self._pipe = pipe.fileno() if pipe is not None else None

    def data_received(self, data: bytes) -> None:
        self.tail.feed(data)
        now = time.monotonic()
        self._allowance = min(float(OUTPUT_BURST), self._allowance + (now - self._last) * OUTPUT_RATE) - len(data)
        self._last = now
        if self._allowance < 0:
            pause = -self._allowance / OUTPUT_RATE
            self.tail.throttled_s += pause
            self._pause(pause, gathering=False)
        elif len(data) < TINY_CHUNK:
            self._pause(COALESCE_S, gathering=True)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if self._resume is not None:
            self._resume.cancel()
        self._pipe = None
        if not self.closed.done():
            self.closed.set_result(None)

    def unread(self) -> Optional[int]:
        """Bytes written and still in the pipe; None when the pipe cannot be asked (closed)."""
        if self._pipe is None:
            return None
        try:
            return int.from_bytes(fcntl.ioctl(self._pipe, termios.FIONREAD, b"\0\0\0\0"), "little")
        except (OSError, ValueError):
            return None

    def hurry(self) -> None:
        """End a pause for tiny writes now: someone waits for what is in the pipe."""
        if self._gathering and self._resume is not None:
            self._resume.cancel()
            self._go_on()

    def close(self) -> None:
        """Stop reading (the pipe is closed; what is left in it is not read)."""
        if self._transport is not None:
            self._transport.close()

    def _pause(self, seconds: float, *, gathering: bool) -> None:
        assert self._transport is not None
        self._transport.pause_reading()
        self._gathering = gathering
        self._resume = asyncio.get_running_loop().call_later(seconds, self._go_on)

    def _go_on(self) -> None:
        self._resume, self._gathering = None, False
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()


class BotProcess:
    """One running instance of a local bot program, sandboxed or not (arena.sandbox)."""

    def __init__(self, manifest: BotManifest, token: str, launcher: Launcher, listen: Optional[Listen] = None) -> None:
        self.manifest = manifest
        self.token = token
        self.launcher = launcher
        self.listen = listen
        self._close_listener: Optional[Callable[[], Awaitable[None]]] = None
        self.output = OutputTail()
        self.plan: Optional[LaunchPlan] = None
        self.launched_at = time.monotonic()
        self.process: Optional[asyncio.subprocess.Process] = None
        self._reader: Optional[OutputReader] = None  # reads what it writes (stdout and stderr: one pipe)
        self._cleaned = False
        self._launch_failure = ""  # launch_failure() as read just before the private folder was removed
        self.final_usage: Optional[CgroupUsage] = None  # what it used, read just before its cgroup went

    @property
    def pid(self) -> int | None:
        """The OS process id once launched (the sandbox's outer process when sandboxed)."""
        return self.process.pid if self.process else None

    @property
    def has_exited(self) -> bool:
        """True once a launched process has ended."""
        return self.process is not None and self.process.returncode is not None

    @property
    def is_running(self) -> bool:
        """True between launch and exit."""
        return self.process is not None and self.process.returncode is None

    async def launch(self) -> None:
        """Start the program (sandboxed unless the operator said otherwise) with what it needs to connect back.

        Raises SandboxUnavailable when the sandbox cannot run here, OSError when the command cannot start.
        """
        manifest = self.manifest
        self.plan = plan = self.launcher.plan(name=manifest.name, directory=manifest.directory,
                                              command=manifest.command, token=self.token,
                                              concurrency=manifest.concurrency, limits=manifest.limits,
                                              env=manifest.env)
        try:
            if self.listen is not None:
                self._close_listener = await self.listen(plan.socket_path, self.token)
                plan.grant_socket()
            argv, fds = plan.open()
            try:
                await self.start(argv, cwd=plan.cwd, env=plan.env, pass_fds=fds, start_new_session=True)
            finally:
                plan.close_fds()
            assert self.process is not None
            plan.started(self.process.pid)
        except BaseException:
            if self.is_running:  # (started, then something failed: not left running unwatched)
                self.kill_tree()
            await self._close_socket()
            self._cleanup()
            raise
        self.launched_at = time.monotonic()

    async def start(self, argv: Sequence[str], *, stdin: int = asyncio.subprocess.DEVNULL, **options: Any) -> None:
        """Start `argv` (`options`: asyncio.create_subprocess_exec's) with its output (stdout and stderr, one pipe)
        read into `output` by an OutputReader. The reader is connected first, so that no await lies between the
        spawn and the return (a cancel during the spawn kills the child, as asyncio does; one after it would leave
        the child running unwatched)."""
        read_end, write_end = os.pipe()
        try:
            pipe = os.fdopen(read_end, "rb", buffering=0)
        except BaseException:
            os.close(read_end)
            os.close(write_end)
            raise
        tail = self.output
        try:
            transport, reader = await asyncio.get_running_loop().connect_read_pipe(lambda: OutputReader(tail), pipe)
        except BaseException:
            pipe.close()
            os.close(write_end)
            raise
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv, stdin=stdin, stdout=write_end, stderr=asyncio.subprocess.STDOUT, **options)
        except BaseException:
            transport.close()
            raise
        finally:
            os.close(write_end)
        self._reader = reader

    async def drain_output(self, timeout_s: float = 0.5, most: Optional[int] = None) -> None:
        """Wait until what the program had written when this is called is read: its last words, however long a
        busy machine takes to read them. What is waited for is fixed now (a bot that writes on cannot hold this
        up), at most `most` bytes of it (a flood in a pipe it made large is read at OUTPUT_RATE: a decision does
        not wait for all of it); `timeout_s` only bounds a reader that makes no progress."""
        written, reader = self._written(), self._reader
        if written is not None and most is not None:
            written = min(written, self.output.total + most)
        read, deadline, turns = self.output.total, time.monotonic() + timeout_s, 0
        while written is not None and self.output.total < written and reader is not None and not reader.closed.done():
            if self.output.total > read:  # progress: the bound is on a reader that makes none
                read, deadline, turns = self.output.total, time.monotonic() + timeout_s, 0
            elif time.monotonic() >= deadline and turns >= DRAIN_TURNS:
                return  # (a busy machine may hold this process off for longer than timeout_s between two turns:
                # the reader gets its turns on the event loop before it is found to make no progress)
            reader.hurry()  # (a pause for tiny writes ends: what is in the pipe is read now)
            await asyncio.sleep(0.001)
            turns += 1

    def has_unread_output(self) -> bool:
        """True when the program has written something not read yet (still in its pipe)."""
        written = self._written()
        return written is not None and written > self.output.total

    def _written(self) -> int | None:
        """The bytes the program has written so far: read, and still in the pipe; None when the pipe cannot be
        asked."""
        unread = self._reader.unread() if self._reader is not None else None
        return None if unread is None else self.output.total + unread

    def launch_failure(self) -> str:
        """Why the launch itself failed before the program ran ('' if it did not): a place no bot can write,
        read before the stop removes it (`_cleanup`) and kept."""
        if self.plan is None:
            return ""
        if self._cleaned:
            return self._launch_failure
        try:
            return (self.plan.private_dir / LAUNCH_FAILED).read_text().strip()
        except OSError:
            return ""

    async def wait(self) -> None:
        """Wait, however long it takes, for the process to end."""
        if self.process is not None:
            await self.process.wait()

    async def wait_exit(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the process to end (and its output to be read); True if it did."""
        if self.process is None:
            return True
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            return False
        if self._reader is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._reader.closed), 1.0)
            except TimeoutError:
                pass
        return True

    def exit_signal(self) -> int | None:
        """The signal that ended the program, if one did (a sandbox reports it as status 128 + n)."""
        code = self.process.returncode if self.process else None
        if code is None:
            return None
        if code < 0:
            return -code
        if self.plan is not None and self.plan.sandboxed and 128 < code < 128 + 65:
            return code - 128
        return None

    @property
    def exited_abnormally(self) -> bool:
        """True once the program has ended with a non-zero status or by a signal."""
        return self.process is not None and self.process.returncode not in (None, 0)

    def exit_description(self) -> str:
        """'exited with status 3' or 'was killed by SIGKILL'."""
        code = self.process.returncode if self.process else None
        if code is None:
            return "is still running"
        signum = self.exit_signal()
        if signum is not None:
            try:
                return f"was killed by {signal.Signals(signum).name}"
            except ValueError:
                return f"was killed by signal {signum}"
        return f"exited with status {code}"

    def cpu_seconds(self) -> Optional[float]:
        """CPU time the process tree used so far, where the kernel counts it; None where it does not."""
        if self.plan is None or self.plan.cgroup is None:
            return None
        return self.plan.cgroup.cpu_seconds()

    def could_have_used(self, cpu_seconds: float) -> bool:
        """False when the tree cannot have used `cpu_seconds` yet: its age times the cores bounds its CPU time."""
        return (time.monotonic() - self.launched_at) * CORES >= cpu_seconds

    def usage(self) -> Optional[CgroupUsage]:
        """What the process tree used so far, where the kernel counts it (cgroups)."""
        if self.plan is None or self.plan.cgroup is None:
            return None
        return self.plan.cgroup.usage()

    def limit_exceeded(self) -> tuple[Termination, str] | None:
        """The resource limit the kernel stopped the program at, if it tells: (reason, detail)."""
        limits = self.plan.limits if self.plan is not None else None
        if limits is None:
            return None
        usage = self.usage()
        signum = self.exit_signal()
        watch = self.plan.memory_watch if self.plan is not None else None
        return (_watch_stopped(watch, limits) or _cgroup_limit_met(usage, limits)
                or _cpu_limit_met(signum, usage, limits))

    def limits_note(self) -> str:
        """The limits in force, for the detail of a crash the kernel did not explain."""
        if self.plan is None:
            return ""
        limits = self.plan.limits
        return (f"limits: memory {limits.memory_mb} MB, {limits.processes} processes, {limits.open_files} open "
                f"files, {limits.cpu_seconds} s CPU, scratch {limits.scratch_mb} MB")

    async def stop(self, grace_s: float = 2.0) -> None:
        """Ask the program to end (SIGTERM), kill its whole process tree after `grace_s`, clean up."""
        if self.process is None:
            await self._close_socket()
            self._cleanup()
            return
        if self.process.returncode is None:
            self._signal_tree(signal.SIGTERM)
            if not await self.wait_exit(grace_s):
                self.kill_tree()
                await self.wait_exit(grace_s)
        self.kill_tree()  # what the program left behind (children that ignored SIGTERM, a fork bomb)
        if self._reader is not None and not self._reader.closed.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._reader.closed), 1.0)
            except TimeoutError:
                self._reader.close()
                await asyncio.shield(self._reader.closed)  # (its descriptor closed before this returns)
        await self._close_socket()
        self._cleanup()

    async def _close_socket(self) -> None:
        """Stop listening on the process's own socket (its streams end with it)."""
        close, self._close_listener = self._close_listener, None
        if close is not None:
            await close()

    def kill_tree(self) -> None:
        """SIGKILL the program and every process it started."""
        self._signal_tree(signal.SIGKILL)
        if self.plan is not None and self.plan.cgroup is not None:
            self.plan.cgroup.kill()

    def _signal_tree(self, signum: int) -> None:
        """Signal the program's process group (its session: it and the children that stayed in it).

        Once the leader is gone the group id is used only while members remain (the kernel does not
        reuse it before), so the group is signalled only when /proc still shows a member.
        (os.kill, not Popen.send_signal: that one reaps the child behind asyncio's watcher.)
        """
        process = self.process
        if process is None:
            return
        if process.returncode is None or _group_has_members(process.pid):
            try:
                os.killpg(process.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass
        if process.returncode is None:
            try:
                os.kill(process.pid, signum)
            except ProcessLookupError:
                pass

    def _cleanup(self) -> None:
        if self._cleaned or self.plan is None:
            return
        self._launch_failure = self.launch_failure()  # (the pool may ask after the stop: the folder goes now)
        self._cleaned = True
        try:
            self.final_usage = self.usage()
        except OSError:
            pass
        self.plan.cleanup()
