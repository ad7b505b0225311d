"""Local bot processes: launch a manifest's command in its sandbox, keep the tail of its output, stop its tree."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Optional

from arena.referee.record import Termination
from arena.rpc.manifest import BotManifest
from arena.sandbox.cgroups import CgroupUsage
from arena.sandbox.launch import Launcher, LaunchPlan

OUTPUT_KEPT_BYTES = 64 * 1024  # the tail of a process's output kept in memory
EVIDENCE_BYTES = 16 * 1024  # at most this much output goes into a match record


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


class OutputTail:
    """The last bytes a process wrote (stdout and stderr together) and a count of all it wrote."""

    def __init__(self, limit: int = OUTPUT_KEPT_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        """Append output, dropping the oldest bytes beyond the limit."""
        self._buffer += data
        self.total += len(data)
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


class BotProcess:
    """One running instance of a local bot program, sandboxed or not (arena.sandbox)."""

    def __init__(self, manifest: BotManifest, token: str, launcher: Launcher) -> None:
        self.manifest = manifest
        self.token = token
        self.launcher = launcher
        self.output = OutputTail()
        self.plan: Optional[LaunchPlan] = None
        self.process: Optional[asyncio.subprocess.Process] = None
        self._pump: Optional[asyncio.Task[None]] = None
        self._cleaned = False
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
            self.process = await asyncio.create_subprocess_exec(
                *plan.argv, cwd=plan.cwd, env=plan.env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        except OSError:
            self._cleanup()
            raise
        self._pump = asyncio.get_running_loop().create_task(self._read_output())

    async def _read_output(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while True:
            chunk = await self.process.stdout.read(65536)
            if not chunk:
                return
            self.output.feed(chunk)

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
        if self._pump is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._pump), 1.0)
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
        if usage is not None and usage.oom_kills:
            peak = f", peak {usage.memory_peak_bytes / 2**20:.0f} MB" if usage.memory_peak_bytes else ""
            return (Termination.MEMORY_LIMIT, f"the kernel killed {usage.oom_kills} process(es) of the bot for "
                    f"going over its memory limit of {limits.memory_mb} MB{peak}")
        if usage is not None and usage.processes_refused:
            return (Termination.PROCESS_LIMIT, f"the bot met its limit of {limits.processes} processes and "
                    f"threads ({usage.processes_refused} fork(s) refused)")
        if signum == signal.SIGXCPU or (signum == signal.SIGKILL and usage is not None and usage.cpu_seconds
                                        and usage.cpu_seconds >= limits.cpu_seconds):
            return (Termination.CPU_LIMIT, f"the bot used its {limits.cpu_seconds} s of CPU time")
        return None

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
            self._cleanup()
            return
        if self.process.returncode is None:
            self._signal_tree(signal.SIGTERM)
            if not await self.wait_exit(grace_s):
                self.kill_tree()
                await self.wait_exit(grace_s)
        self.kill_tree()  # what the program left behind (children that ignored SIGTERM, a fork bomb)
        if self._pump is not None and not self._pump.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._pump), 1.0)
            except TimeoutError:
                self._pump.cancel()
        self._cleanup()

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
        self._cleaned = True
        try:
            self.final_usage = self.usage()
        except OSError:
            pass
        self.plan.cleanup()
