"""`arena sandbox check`: does the bot sandbox hold on this machine? A probe (arena.sandbox.probe)
runs inside a real sandbox, launched exactly as a bot would be, and each protection is graded
pass or fail with what to do.

The referee runs the quick part (`quick_check`) once per process before it launches a bot
program, and refuses to launch where a protection it relies on fails (unless the operator chose
`--sandbox none`); the full check also spends memory and processes to see the limits enforced,
and checks that nothing of the probe is left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.environment import is_unsafe
from arena.sandbox.launch import (
    INSTALL_HINT,
    SANDBOX_UID,
    Launcher,
    LaunchPlan,
    SandboxSettings,
    SandboxUnavailable,
    namespace_args,
    runs_as_root,
)
from arena.sandbox.leftovers import new_runtime_folder
from arena.sandbox.limits import Limits
from arena.sandbox.memory_watch import WATCH_S, Watched, kill_tree
from arena.sandbox.probe import FAMILIES
from arena.sandbox.seccomp import SeccompUnavailable, filter_program

PROBE = Path(__file__).with_name("probe.py")
PROBE_LIMITS = Limits(memory_mb=96, processes=16, open_files=64, cpu_seconds=60, scratch_mb=16)
PROBE_TIMEOUT_S = 120.0
PROBE_TREE_MB = 3 * PROBE_LIMITS.memory_mb  # the probe's tree: itself and one child at its own limit, with room


@dataclass(frozen=True)
class Protection:
    """One protection of the sandbox, as found on this machine."""

    name: str
    passed: bool
    found: str  # what the probe saw
    fix: str = ""  # what to do when it failed

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "found": self.found, "fix": self.fix}


def bubblewrap_problem() -> str:
    """'' if bubblewrap and the filter are here, else one line saying what is missing and what to do."""
    if shutil.which("bwrap") is None:
        return f"the bot sandbox needs bubblewrap (`bwrap`), which is not installed: {INSTALL_HINT}"
    try:
        filter_program()
    except SeccompUnavailable as error:
        return f"{error}; or run bots you trust without a sandbox with `--sandbox none`"
    return ""


@contextlib.contextmanager
def launched_probe(settings: SandboxSettings, *arguments: str) -> Iterator[tuple[LaunchPlan, list[str], list[int]]]:
    """The probe's launch, exactly as a bot's: (its plan, argv, descriptors); everything removed after."""
    runtime = new_runtime_folder()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    launcher = Launcher(settings, runtime)
    folder = runtime / "probe"
    folder.mkdir(mode=0o755)
    command = [sys.executable, "-I", str(PROBE), "--port", str(listener.getsockname()[1]), *arguments]
    env = {"PROBE_LIMITS": json.dumps(PROBE_LIMITS.to_json())}
    plan = launcher.plan(name="sandbox-probe", directory=folder, command=command, token="probe", concurrency=1,
                         limits=PROBE_LIMITS, env=env)
    bot_socket = socket.socket(socket.AF_UNIX)
    try:
        bot_socket.bind(str(plan.socket_path))
        plan.grant_socket()
        argv, fds = plan.open()
        try:
            yield plan, argv, fds
        finally:
            plan.close_fds()
            plan.cleanup()
            launcher.close()
    finally:
        bot_socket.close()
        listener.close()
        shutil.rmtree(runtime, ignore_errors=True)


def run_probe(settings: SandboxSettings, *, full: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Launch the probe as a bot; (what it printed, what was left after it: processes, folders)."""
    with launched_probe(settings, *(["--full"] if full else [])) as (plan, argv, fds):
        stdout, stderr, returncode = _probe_output(plan, argv, fds)
        left = _after_the_probe(plan)
        lines = [line for line in stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise _probe_failure(stderr, returncode, plan.memory_watch)
        found = json.loads(lines[-1])
        if full:
            found["tree_memory"] = tree_memory(settings)
        return found, left


def _probe_output(plan: LaunchPlan, argv: list[str], fds: list[int]) -> tuple[str, str, int]:
    """Run the launched probe to its end: (what it printed, what it wrote on stderr, its exit status)."""
    with subprocess.Popen(argv, env=plan.env, cwd=plan.cwd, pass_fds=fds, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                          start_new_session=True) as process:
        plan.close_fds()
        # (the probe's memory test makes a child run into its own address-space limit while the probe waits:
        # the two together pass the tree's limit for a moment, and where the referee's watch bounds the tree
        # (in a container) a scan in that moment killed the probe with its child: "exit status -9", more
        # often the busier the machine. The tree's bound is checked by itself, `tree_memory`.)
        plan.started(process.pid, tree_memory_mb=PROBE_TREE_MB)
        try:
            stdout, stderr = process.communicate(timeout=PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            raise
    return stdout, stderr, process.returncode


def _after_the_probe(plan: LaunchPlan) -> dict[str, Any]:
    """Stop what is left of the probe's tree and clean up after it, as the referee does: what was left."""
    usage = plan.cgroup.usage() if plan.cgroup is not None else None
    leftover_pids = _stop_tree(plan.cgroup)
    cgroup_dirs = list(plan.cgroup.dirs.values()) if plan.cgroup is not None else []
    private = plan.private_dir
    plan.cleanup()
    return {"processes": leftover_pids, "folders": [str(p) for p in [*cgroup_dirs, private] if p.exists()],
            "oom_kills": usage.oom_kills if usage is not None else None,
            "processes_refused": usage.processes_refused if usage is not None else None,
            "uid": plan.uid, "runtime": str(plan.private_dir.parents[1])}


def _probe_failure(stderr: str, returncode: int, watch: Optional[Watched]) -> SandboxUnavailable:
    """Why the probe printed no findings: the referee's memory watch stopped it, or the sandbox could not start."""
    said = (stderr.strip().splitlines() or [f"exit status {returncode}"])[-1]
    if watch is not None and watch.killed_at_bytes is not None:
        return SandboxUnavailable(f"the referee's memory watch stopped the probe at "
                                  f"{watch.killed_at_bytes / 2**20:.0f} MB ({said})")
    return SandboxUnavailable(f"the sandbox could not start the probe here ({said}): it needs user "
                              "namespaces (kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0), "
                              "or run bots you trust with `--sandbox none`")


def tree_memory(settings: SandboxSettings) -> dict[str, Any]:
    """Six processes of one bot each holding half its memory limit at once: what stopped them, if anything.
    (Each is under its own address-space limit: only a bound over the whole tree stops them.)"""
    with launched_probe(settings, "--tree-memory") as (plan, argv, fds):
        with subprocess.Popen(argv, env=plan.env, cwd=plan.cwd, pass_fds=fds, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, stdin=subprocess.PIPE, start_new_session=True) as process:
            plan.close_fds()
            plan.started(process.pid)
            try:
                assert process.stdout is not None
                line = process.stdout.readline()  # once every child held, or one was stopped (or the tree was)
                held = json.loads(line)["tree_memory"]["held"] if line.startswith(b"{") else 0
                watch = plan.memory_watch
                if watch is not None and held:
                    watch.wait_scans(2, PROBE_TIMEOUT_S)  # a whole scan after they all held
                usage = plan.cgroup.usage() if plan.cgroup is not None else None
                return {"bound": plan.memory_bound, "held": held, "children": 6,
                        "share_mb": PROBE_LIMITS.memory_mb // 2,
                        "watch_killed_mb": round(watch.killed_at_bytes / 2**20) if watch and watch.killed_at_bytes
                        else None, "oom_kills": usage.oom_kills if usage is not None else None}
            finally:
                kill_tree(process.pid)
                if plan.cgroup is not None:
                    _stop_tree(plan.cgroup)
                process.wait()


def _stop_tree(cgroup: Optional[BotCgroup]) -> list[int]:
    """Kill what is left of a finished probe's tree, as the referee does; the processes that survive it."""
    if cgroup is None:
        return []
    deadline = time.monotonic() + 10.0
    while cgroup.pids() and time.monotonic() < deadline:
        cgroup.kill()
        time.sleep(0.01)
    return cgroup.pids()


def grade(found: dict[str, Any], left: Optional[dict[str, Any]] = None) -> list[Protection]:
    """Each protection, pass or fail, from the probe's findings (and what was left after it)."""
    rows = [_namespaces(found), _no_network(found), _not_host_root(found), _kernel_settings(found),
            _no_nested_namespaces(found), _system_call_filter(found), _socket_families(found),
            _clean_environment(found), _no_host_path(found, (left or {}).get("runtime", ""))]
    if "memory" in found:
        rows.append(_memory_limit(found))
        tree = found.get("tree_memory")
        if tree is not None:
            rows.append(tree_memory_row(tree))
        rows.append(_process_limit(found))
    if left is not None:
        rows.append(_cleanup(left))
    return rows


def _namespaces(found: dict[str, Any]) -> Protection:
    seen = found["namespaces"]
    isolated = seen["processes_visible"] <= 8 and seen["hostname"] == "arena-bot" and seen["interfaces"] == ["lo"]
    return Protection("namespaces", isolated,
                      f"{seen['processes_visible']} processes visible, host name {seen['hostname']}, "
                      f"network interfaces {', '.join(seen['interfaces'])}",
                      "bubblewrap must be able to make PID, UTS and network namespaces")


def _no_network(found: dict[str, Any]) -> Protection:
    return Protection("no network", not found["network"], found["network"] or "no connection, not even to "
                      "the host's loopback", "the sandbox must have a network namespace of its own")


def _not_host_root(found: dict[str, Any]) -> Protection:
    outside = [line[1] for line in found["uid_map"]]
    maps_root = any(start <= 0 < start + count for _, start, count in found["uid_map"])
    who = f"uid {found['uid']} inside, mapped to host uid {', '.join(map(str, outside))}"
    return Protection("not host root", not maps_root and found["uid"] == SANDBOX_UID, who,
                      "run the referee as an ordinary user, or as root with `setpriv` (util-linux) installed "
                      "so that each bot runs as a user of its own")


def _kernel_settings(found: dict[str, Any]) -> Protection:
    kernel = found["kernel"]
    shut = kernel["core_pattern"].startswith("refused") and kernel["writable"] == 0 and \
        kernel["sysrq_trigger"] != "writable" and not kernel["sys_mounted"]
    return Protection("kernel settings read-only", shut,
                      f"core_pattern {kernel['core_pattern']}; {kernel['writable']} writable under /proc/sys"
                      f"{' (' + ', '.join(kernel['examples']) + ')' if kernel['examples'] else ''}; "
                      f"sysrq-trigger {kernel['sysrq_trigger']}; "
                      f"/sys {'mounted' if kernel['sys_mounted'] else 'absent'}",
                      "bots must not run as host root, and /proc/sys must be bound read-only")


def _no_nested_namespaces(found: dict[str, Any]) -> Protection:
    made = found["new_namespaces"]
    return Protection("no nested namespaces", not any(answer == "MADE" for answer in made.values()),
                      _answers(made), "the system-call filter must refuse unshare and clone with namespace flags")


def _system_call_filter(found: dict[str, Any]) -> Protection:
    calls = found["system_calls"]
    filtered = calls.get("seccomp mode") == "filter" and all(
        answer == "refused" for name, answer in calls.items() if name != "seccomp mode")
    return Protection("system-call filter", filtered, _answers(calls),
                      "install libseccomp2 (and pyseccomp), so that bubblewrap can load the filter")


def _socket_families(found: dict[str, Any]) -> Protection:
    families = found.get("sockets", {})
    allowed = {name for name, (_f, _t, _p, may) in FAMILIES.items() if may}
    wrong = [name for name, answer in families.items() if (answer == "made") != (name in allowed)]
    return Protection("socket families", bool(families) and not wrong, _answers(families),
                      "the system-call filter must refuse every socket family but Unix, Internet and "
                      "route netlink (install libseccomp2 and pyseccomp)")


def _answers(answers: dict[str, str]) -> str:
    """'name answer, name answer, ...' as the probe gave them."""
    return ", ".join(f"{name} {answer}" for name, answer in answers.items())


def _clean_environment(found: dict[str, Any]) -> Protection:
    unexpected = [name for name in found["environment"] if is_unsafe(name) or "TOKEN" in name.replace("TOKEN_FILE", "")
                  or "SECRET" in name or "PASSWORD" in name]
    return Protection("clean environment", not unexpected,
                      f"{len(found['environment'])} variables" + (f", unexpected: {', '.join(unexpected)}"
                                                                  if unexpected else ""),
                      "the referee's own environment must not reach bots")


def _no_host_path(found: dict[str, Any], runtime: str) -> Protection:
    shown = [mount for mount in found["mounts"] if not (runtime and mount.split(" <- ")[1].startswith(runtime))]
    return Protection("no host path", not shown,
                      "mounts show only the referee's scratch folder" if not shown else
                      f"mounts show {', '.join(shown)}",
                      "report this: the sandbox must bind only copies and the runtime's own folders")


def _memory_limit(found: dict[str, Any]) -> Protection:
    return Protection("memory limit", not found["memory"].startswith("ALLOCATED"),
                      f"a child asking for 3x the {PROBE_LIMITS.memory_mb} MB limit was {found['memory']}",
                      "the referee needs a writable cgroup (root, or a delegated cgroup v2 subtree: "
                      "--config's [sandbox] cgroup_root)")


def _process_limit(found: dict[str, Any]) -> Protection:
    started = int(found["threads"].split()[1])
    return Protection("process limit", started <= PROBE_LIMITS.processes,
                      f"{found['threads']} threads (limit {PROBE_LIMITS.processes} processes and threads)",
                      "the referee needs a writable cgroup with the pids controller, or RLIMIT_NPROC")


def _cleanup(left: dict[str, Any]) -> Protection:
    clean = not left["processes"] and not left["folders"]
    return Protection("cleanup", clean,
                      "nothing left behind" if clean else
                      f"left: {len(left['processes'])} processes, folders {', '.join(left['folders'])}",
                      "report this: the referee must remove what a bot leaves")


def tree_memory_row(tree: dict[str, Any]) -> Protection:
    """The memory of a bot's processes together: bounded by a cgroup, by the referee's watch, or not at all."""
    asked = f"{tree['children']} processes each holding {tree['share_mb']} MB (together 3x the " \
        f"{PROBE_LIMITS.memory_mb} MB limit)"
    if tree["watch_killed_mb"] is not None:
        return Protection("memory of the tree", True, f"{asked}: the referee's watch stopped the tree at "
                          f"{tree['watch_killed_mb']} MB (no memory cgroup here: it scans every {WATCH_S:g} s)")
    if tree["held"] < tree["children"]:
        by = "the kernel's memory cgroup" if tree["bound"] == "cgroup" else "their address-space limits"
        return Protection("memory of the tree", True, f"{asked}: only {tree['held']} held, {by} stopped the rest")
    return Protection("memory of the tree", False, f"{asked}: ALL HELD at once",
                      "the referee needs a writable memory cgroup, or its memory watch must run (report this)")


_checked: dict[tuple[Any, ...], str] = {}


def _quick(settings: SandboxSettings) -> str:
    key = (settings.mode, settings.read_only_paths, settings.caps, tuple(sorted(settings.env.items())),
           settings.cgroup_root, settings.bot_uid_base)
    if key not in _checked:
        _checked[key] = _probe_quickly(settings)
    return _checked[key]


def _probe_quickly(settings: SandboxSettings) -> str:
    problem = bubblewrap_problem()
    if problem:
        return problem
    try:
        found, left = run_probe(settings, full=False)
    except SandboxUnavailable as error:
        return str(error)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the sandbox could not be checked here ({error}); or run bots you trust with `--sandbox none`"
    failed = [row for row in grade(found, left) if not row.passed]
    if failed:
        row = failed[0]
        return (f"the bot sandbox does not hold here: {row.name} failed ({row.found}); {row.fix}; "
                "see `arena sandbox check`, or run bots you trust with `--sandbox none`")
    return ""


def quick_check(settings: SandboxSettings) -> None:
    """Raise SandboxUnavailable (one line) unless every protection the referee relies on holds here
    (checked once per process and settings)."""
    if settings.mode != "bwrap":
        return
    problem = _quick(settings)
    if problem:
        raise SandboxUnavailable(problem)


def describe_host() -> str:
    """Who bots run as here, for the check's header."""
    if runs_as_root():
        return "the referee runs as root: each bot runs as a host user of its own"
    return f"the referee runs as uid {os.getuid()}: bots run as this user, mapped to nobody"


__all__ = ["Protection", "bubblewrap_problem", "describe_host", "grade", "namespace_args", "quick_check", "run_probe"]
