"""How the referee starts a bot program: in a bubblewrap sandbox (the default) or, for bots the
operator trusts, as a plain process. Either way the program gets a clean environment, its launch
token in a file only it can see, resource limits, and a kill that reaches its whole process tree.

The sandbox (`bwrap`) gives the program new user, PID, IPC, UTS, network and cgroup namespaces
and a filesystem of its own:

    /bot                    the bot's folder, read-only (its working directory)
    /tmp, /dev/shm          private, writable, size-capped (scratch_mb); HOME and TMPDIR point here
    /run/arena/referee.sock the referee's bot socket (the only way out: there is no network)
    /run/arena/token        the launch token
    /usr, /bin, /lib...     the system's programs and libraries, read-only
    <python>                the interpreter, the virtual environment and the arena package, read-only
                            (but for Arena's own bot programs, arena/bots/: an empty folder there)
    /proc, /dev             its own processes only; null, zero, random, urandom, tty

and nothing else: no other bot, no results, no database, no checkout, no home. The environment
holds only ARENA_SERVER, ARENA_BOT_NAME, ARENA_CONCURRENCY, ARENA_TOKEN_FILE, PATH, HOME, TMPDIR,
LANG, the bot.toml's [env] and what the operator passes with --bot-env.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence

from arena.sandbox.cgroups import BotCgroup, CgroupFactory
from arena.sandbox.limits import DEFAULT_CAPS, Limits

SANDBOX_MODES = ("bwrap", "none")
BOT_DIR = "/bot"
RUN_DIR = "/run/arena"
SOCKET_INSIDE = f"{RUN_DIR}/referee.sock"
TOKEN_INSIDE = f"{RUN_DIR}/token"
SANDBOX_UID = 65534  # the bot's user inside its user namespace ("nobody")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
#: Variables the referee sets for each bot; neither the operator nor a bot.toml may set them.
RESERVED_ENV = frozenset({"ARENA_SERVER", "ARENA_TOKEN", "ARENA_TOKEN_FILE", "ARENA_BOT_NAME", "ARENA_CONCURRENCY"})
#: System files a program may need to start (dynamic linker cache, time zone, alternatives).
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "nsswitch.conf",
             "ssl/certs", "mime.types")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install "
                "bubblewrap`), or run bots you trust without a sandbox with `--sandbox none`")
# Joins the bot's cgroups, then becomes the rest of its arguments: sh -c SCRIPT arena-bot FILE... -- CMD...
_JOIN_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run on this machine; the message says how to install it or opt out."""


@dataclass(frozen=True)
class SandboxSettings:
    """The operator's side of launching bots (never a bot's manifest's)."""

    mode: str = "bwrap"
    read_only_paths: tuple[Path, ...] = ()  # more runtime folders visible (read-only) in every sandbox
    caps: Limits = DEFAULT_CAPS  # no bot gets more than this, whatever its bot.toml says
    env: Mapping[str, str] = field(default_factory=dict)  # extra environment for every bot (--bot-env)
    cgroup_root: Optional[Path] = None  # a delegated cgroup v2 folder to make bot groups in

    def __post_init__(self) -> None:
        if self.mode not in SANDBOX_MODES:
            raise ValueError(f"unknown sandbox {self.mode!r}: use {' or '.join(SANDBOX_MODES)}")
        bad = sorted(set(self.env) & RESERVED_ENV)
        if bad:
            raise ValueError(f"--bot-env may not set {', '.join(bad)}: the referee sets it for each bot")


@dataclass
class LaunchPlan:
    """One bot process to start: its argv, environment and folder, and what to clean up after."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    private_dir: Path  # token and (without a sandbox) scratch; removed when the process is gone
    limits: Limits
    cgroup: Optional[BotCgroup] = None
    sandboxed: bool = True

    def cleanup(self) -> None:
        """Remove the cgroup and the private folder (the process tree must be gone)."""
        if self.cgroup is not None:
            self.cgroup.remove()
        shutil.rmtree(self.private_dir, ignore_errors=True)


@functools.lru_cache(maxsize=1)
def _bwrap_problem() -> str:
    """'' if bubblewrap runs here, else one line saying why not and what to do."""
    binary = shutil.which("bwrap")
    if binary is None:
        return f"the bot sandbox needs bubblewrap (`bwrap`), which is not installed: {INSTALL_HINT}"
    probe = [binary, *_namespace_args(), *_system_args(), "--tmpfs", "/tmp", "--", "/usr/bin/true"]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap cannot start ({error}); {INSTALL_HINT}"
    if result.returncode != 0:
        said = (result.stderr.strip().splitlines() or ["no message"])[-1]
        return (f"bubblewrap cannot make a sandbox here ({said}): it needs user namespaces (run as root, "
                "or enable unprivileged user namespaces), or run bots you trust with `--sandbox none`")
    return ""


def check_sandbox(mode: str) -> None:
    """Raise SandboxUnavailable (one line) when bots cannot be launched in `mode` here."""
    if mode == "bwrap":
        problem = _bwrap_problem()
        if problem:
            raise SandboxUnavailable(problem)


def _namespace_args() -> list[str]:
    return ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "arena-bot"]


def _system_args() -> list[str]:
    """/usr and the top-level links or folders into it, /etc's few runtime files, /proc and /dev."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    for name in ETC_FILES:
        if Path("/etc", name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    return args + ["--proc", "/proc", "--dev", "/dev"]


@functools.lru_cache(maxsize=1)
def runtime_paths() -> tuple[Path, ...]:
    """The interpreter's folders, the arena package (an editable install lives outside them) and the
    folders of the game families installed elsewhere: what a bot needs to load the games it plays."""
    import arena

    candidates = [Path(sys.base_prefix), Path(sys.prefix), Path(arena.__file__).resolve().parent,
                  *game_paths()]
    kept: list[Path] = []
    for path in sorted({p.resolve() for p in candidates if p.exists()}, key=lambda p: len(p.parts)):
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return tuple(kept)


def hidden_paths() -> tuple[Path, ...]:
    """Folders inside runtime_paths() that no bot may see: the built-in bot programs (each bot sees its
    own folder at /bot, whoever it is)."""
    from arena.bots import BUILTIN_BOTS

    return tuple(path for path in (BUILTIN_BOTS,) if any(path.is_relative_to(outer) for outer in runtime_paths()))


@functools.lru_cache(maxsize=1)
def game_paths() -> tuple[Path, ...]:
    """Folders holding a registered game family's distribution outside this interpreter's prefixes
    (a game installed on a path of its own): its bots need them, on PYTHONPATH too."""
    from importlib import metadata

    from arena.games.registry import ENTRY_POINT_GROUP

    prefixes = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    found: list[Path] = []
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.dist is None or entry.dist.name == "arena":
            continue
        location = Path(str(entry.dist.locate_file(""))).resolve()
        if location.is_dir() and not any(location.is_relative_to(prefix) for prefix in prefixes) \
                and location not in found:
            found.append(location)
    return tuple(found)


class Launcher:
    """Turns a bot's manifest and launch token into a LaunchPlan, for one referee."""

    def __init__(self, settings: SandboxSettings, runtime_dir: Path, socket_path: Path) -> None:
        self.settings = settings
        self.runtime_dir = runtime_dir
        self.socket_path = socket_path
        self.cgroups = CgroupFactory(settings.cgroup_root)
        self._count = 0
        self._shared = runtime_dir / "shared"
        self._shared.mkdir(mode=0o755, exist_ok=True)
        (self._shared / "passwd").write_text(f"bot:x:{SANDBOX_UID}:{SANDBOX_UID}:arena bot:/tmp:/usr/sbin/nologin\n")
        (self._shared / "group").write_text(f"bot:x:{SANDBOX_UID}:\n")

    @property
    def is_sandboxed(self) -> bool:
        return self.settings.mode == "bwrap"

    def describe(self) -> str:
        """One line: the sandbox and where limits come from."""
        sandbox = "bubblewrap sandbox" if self.is_sandboxed else "NO sandbox (--sandbox none)"
        return f"bots run in a {sandbox}; limits by {self.cgroups.describe()} and rlimits"

    def plan(self, *, name: str, directory: Path, command: Sequence[str], token: str, concurrency: int,
             limits: Limits, env: Mapping[str, str]) -> LaunchPlan:
        """Everything needed to start one process of a bot (writes its token file)."""
        check_sandbox(self.settings.mode)
        limits = limits.capped(self.settings.caps)
        self._count += 1
        private = self.runtime_dir / "bots" / f"{name}-{os.getpid()}-{self._count}"
        private.mkdir(mode=0o700, parents=True)
        token_file = private / "token"
        token_file.write_text(token)
        token_file.chmod(0o400)
        cgroup = self.cgroups.create(private.name)
        if cgroup is not None:
            cgroup.limit(limits.memory_mb * 2**20, limits.processes)
        sandboxed = self.is_sandboxed
        if sandboxed:
            scratch = "/tmp"
            inner = self._bwrap_argv(directory, token_file, limits) + _fill(command, BOT_DIR)
            cwd, server, token_path = str(directory), f"unix:{SOCKET_INSIDE}", TOKEN_INSIDE
        else:
            scratch_dir = private / "scratch"
            scratch_dir.mkdir(mode=0o700)
            scratch = str(scratch_dir)
            inner = _fill(command, str(directory))
            setpriv = shutil.which("setpriv")
            if setpriv is not None:  # bwrap's --die-with-parent, for the program itself (not what it forks)
                inner = [setpriv, "--pdeathsig", "KILL", "--", *inner]
            cwd, server, token_path = str(directory), f"unix:{self.socket_path}", str(token_file)
        environment = {"PATH": f"{Path(sys.executable).parent}:{SYSTEM_PATH}", "HOME": scratch, "TMPDIR": scratch,
                       "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if game_paths():  # games installed on paths of their own: the bot's Python finds them too
            environment["PYTHONPATH"] = ":".join(str(path) for path in game_paths())
        environment.update(self.settings.env)
        environment.update({key: value for key, value in env.items() if key not in RESERVED_ENV})
        environment.update({"ARENA_SERVER": server, "ARENA_TOKEN_FILE": token_path, "ARENA_BOT_NAME": name,
                            "ARENA_CONCURRENCY": str(concurrency)})
        argv = _with_limits(inner, limits, cgroup)
        return LaunchPlan(argv, environment, cwd, private, limits, cgroup, sandboxed)

    def _bwrap_argv(self, directory: Path, token_file: Path, limits: Limits) -> list[str]:
        binary = shutil.which("bwrap") or "bwrap"
        size = str(limits.scratch_mb * 2**20)
        args = [binary, *_namespace_args(), *_system_args()]
        # the scratch first: a runtime living under /tmp (a virtual environment there) is bound over it
        args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
        args += ["--ro-bind", str(self._shared / "passwd"), "/etc/passwd",
                 "--ro-bind", str(self._shared / "group"), "/etc/group"]
        for path in (*runtime_paths(), *self.settings.read_only_paths):
            args += ["--ro-bind", str(path), str(path)]
        for path in hidden_paths():  # in the arena package, but other bots' folders: an empty one instead
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        args += ["--ro-bind", str(directory), BOT_DIR,
                 "--ro-bind", str(self.socket_path), SOCKET_INSIDE,
                 "--ro-bind", str(token_file), TOKEN_INSIDE,
                 "--remount-ro", "/dev", "--remount-ro", "/",  # writable: /tmp and /dev/shm, nothing else
                 "--chdir", BOT_DIR, "--"]
        return args

    def close(self) -> None:
        """Remove this referee's cgroup folders."""
        self.cgroups.close()


def _fill(command: Sequence[str], directory: str) -> list[str]:
    return [part.replace("{python}", sys.executable).replace("{dir}", directory) for part in command]


def _with_limits(argv: list[str], limits: Limits, cgroup: Optional[BotCgroup]) -> list[str]:
    """argv wrapped to join the cgroup and set the rlimits before it runs (no Python in the child)."""
    prlimit = shutil.which("prlimit")
    if prlimit is not None:
        rlimits = [f"--nofile={limits.open_files}:{limits.open_files}",
                   f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}"]
        if cgroup is None or not cgroup.limits_memory:  # per process only: the tree is not bounded
            memory = limits.memory_mb * 2**20
            rlimits.append(f"--as={memory}:{memory}")
        if (cgroup is None or not cgroup.limits_processes) and os.getuid() != 0:
            allowance = _tasks_of_user(os.getuid()) + limits.processes  # RLIMIT_NPROC counts the whole user
            rlimits.append(f"--nproc={allowance}:{allowance}")
        argv = [prlimit, *rlimits, "--", *argv]
    if cgroup is not None:
        argv = ["/bin/sh", "-c", _JOIN_CGROUPS, "arena-bot", *map(str, cgroup.procs_files()), "--", *argv]
    return argv


def _tasks_of_user(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += sum(1 for _ in (entry / "task").iterdir())
            except OSError:
                continue
    return count
