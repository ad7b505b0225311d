"""How the referee starts a bot program: in a bubblewrap sandbox (the default) or, for bots the
operator trusts, as a plain process. Either way the program gets a clean environment, its launch
token where only it can read it, resource limits, and a kill that reaches its whole process tree.

The sandbox (`bwrap`) gives the program new user, PID, IPC, UTS, network and cgroup namespaces, a
system-call filter (arena.sandbox.seccomp) and a filesystem of its own:

    /bot                    the bot's folder, read-only (its working directory)
    /tmp, /dev/shm          private, writable, size-capped (scratch_mb); HOME and TMPDIR point here
    /run/arena/referee.sock its own socket to the referee (the only way out: there is no network)
    /run/arena/token        the launch token (a copy in the sandbox's memory, readable by the bot only)
    /usr, /bin, /lib...     the system's programs and libraries, read-only
    <python>                the interpreter, the virtual environment and the arena package, read-only
                            (but for Arena's own bot programs, arena/bots/: an empty folder there)
    /proc, /dev             its own processes only (/proc/sys read-only); null, zero, random, urandom, tty

and nothing else: no other bot, no results, no database, no checkout, no home, no /sys.

Nothing of a bot's reaches the host side: the programs that start it (a shell joining its cgroups,
`prlimit`, `setpriv`, `bwrap`) run with a fixed environment (arena.sandbox.environment) in `/`,
and the bot's variables are set inside the sandbox only (`--setenv`); the folders bubblewrap binds
are handed to it as open file descriptors, so it follows no path a bot could have planted.

A bot is never root: when the referee runs as root, each bot process runs as an unprivileged user
of its own on the host (`bot_uid_base` + a free slot; `setpriv` drops to it before bubblewrap
starts), so even the kernel's files that only root may write stay shut to it. Inside its user
namespace it is `nobody` (65534), mapped to that user; it may make no namespace of its own.
"""

from __future__ import annotations

import functools
import os
import random
import re
import shlex
import shutil
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from arena.sandbox.cgroups import BotCgroup, CgroupFactory
from arena.sandbox.memory_watch import WATCH, Watched
from arena.sandbox.environment import ENV_FIX, RESERVED_ENV, SYSTEM_PATH, WRAPPER_ENV, env_problems
from arena.sandbox.integrity import TamperedVersion, check_stored
from arena.sandbox.limits import DEFAULT_CAPS, Limits
from arena.sandbox.seccomp import SeccompUnavailable, filter_program

SANDBOX_MODES = ("bwrap", "none")
BOT_DIR = "/bot"
RUN_DIR = "/run/arena"
SOCKET_INSIDE = f"{RUN_DIR}/referee.sock"
TOKEN_INSIDE = f"{RUN_DIR}/token"
SANDBOX_UID = 65534  # the bot's user inside its user namespace ("nobody")
#: Host users for bot processes when the referee runs as root: BOT_UID_BASE .. + BOT_UID_COUNT - 1,
#: a range no distribution hands out (below 2^31: bubblewrap writes uid maps as signed numbers).
BOT_UID_BASE = 2_000_000_000
BOT_UID_COUNT = 65_536
#: System files a program may need to start (dynamic linker cache, time zone, alternatives).
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "nsswitch.conf",
             "ssl/certs", "mime.types")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install "
                "bubblewrap`), or run bots you trust without a sandbox with `--sandbox none`")
LAUNCH_FAILED = "launch-failed"  # written in a bot's private folder when its launch could not be prepared
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_PASSWD = f"bot:x:{SANDBOX_UID}:{SANDBOX_UID}:arena bot:/tmp:/usr/sbin/nologin\n"
_GROUP = f"bot:x:{SANDBOX_UID}:\n"

__all__ = ["BOT_DIR", "BOT_UID_BASE", "LaunchPlan", "LaunchRefused", "Launcher", "RESERVED_ENV", "SANDBOX_MODES",
           "SYSTEM_PATH", "SandboxSettings", "SandboxUnavailable", "hidden_paths", "runtime_paths"]


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run on this machine; the message says how to install it or opt out."""


class LaunchRefused(ValueError):
    """This bot may not be launched as it is (its environment, its files); the message says what to fix."""


@dataclass(frozen=True)
class SandboxSettings:
    """The operator's side of launching bots (never a bot's manifest's)."""

    mode: str = "bwrap"
    read_only_paths: tuple[Path, ...] = ()  # more runtime folders visible (read-only) in every sandbox
    caps: Limits = DEFAULT_CAPS  # no bot gets more than this, whatever its bot.toml says
    env: Mapping[str, str] = field(default_factory=dict)  # extra environment for every bot (--bot-env)
    cgroup_root: Optional[Path] = None  # a delegated cgroup v2 folder to make bot groups in
    bot_uid_base: int = BOT_UID_BASE  # first host user of bot processes when the referee runs as root

    def __post_init__(self) -> None:
        if self.mode not in SANDBOX_MODES:
            raise ValueError(f"unknown sandbox {self.mode!r}: use {' or '.join(SANDBOX_MODES)}")
        problems = env_problems(self.env)
        if problems:
            raise ValueError(f"--bot-env may not set {problems[0][1]}")
        if not 1000 <= self.bot_uid_base <= 2**31 - 1 - BOT_UID_COUNT:
            raise ValueError(f"bot_uid_base {self.bot_uid_base} is not a range of unprivileged users")


@dataclass
class LaunchPlan:
    """One bot process to start: the wrappers' argv and (fixed) environment, what the bot itself gets,
    and what to clean up after. `socket_path` must be listened on (and `grant_socket` called) before
    `open()`, which gives the final argv and the descriptors the process inherits."""

    argv_template: list[str]  # "{fd:NAME}" in a part stands for a descriptor open() makes
    env: dict[str, str]  # the environment of the first program started (the wrappers')
    cwd: str
    bot_env: dict[str, str]  # what the bot itself sees
    private_dir: Path  # the socket, and (without a sandbox) the token and scratch; removed with the process
    socket_path: Path
    limits: Limits
    cgroup: Optional[BotCgroup] = None
    sandboxed: bool = True
    uid: Optional[int] = None  # the host user the bot runs as, where it is not the referee's own
    token: str = ""
    argv: list[str] = field(default_factory=list)
    pass_fds: list[int] = field(default_factory=list)
    on_cleanup: Optional[Callable[[], None]] = None
    memory_watch: Optional[Watched] = None  # where no cgroup bounds the tree's memory: the referee's watch

    @property
    def memory_bound(self) -> str:
        """What bounds the memory of the bot's processes together: 'cgroup' or 'watch'."""
        return "cgroup" if self.cgroup is not None and self.cgroup.limits_memory else "watch"

    def started(self, pid: int, *, tree_memory_mb: Optional[int] = None) -> None:
        """The process runs as `pid`: where no cgroup bounds its tree's memory, the referee's watch does (at the
        bot's memory limit, or `tree_memory_mb`)."""
        if self.memory_bound == "watch":
            self.memory_watch = WATCH.watch(pid, (tree_memory_mb or self.limits.memory_mb) * 2**20)

    def grant_socket(self) -> None:
        """Let the bot's user, and only it, connect to its socket (once the referee listens on it)."""
        if self.uid is not None:
            os.chown(self.socket_path, self.uid, self.uid)
        self.socket_path.chmod(0o600)

    def open(self) -> tuple[list[str], list[int]]:
        """The final argv and the descriptors the process must inherit (closed again by `close_fds`)."""
        opened: dict[str, int] = {}
        try:
            if self.sandboxed:
                opened["passwd"] = _memfd("passwd", _PASSWD.encode())
                opened["group"] = _memfd("group", _GROUP.encode())
                opened["token"] = _memfd("token", self.token.encode())
                opened["seccomp"] = _memfd("seccomp", filter_program())
        except (OSError, SeccompUnavailable):
            for descriptor in opened.values():
                os.close(descriptor)
            raise
        self.pass_fds = list(opened.values())
        self.argv = [_FD.sub(lambda match: str(opened[match.group(1)]), part) for part in self.argv_template]
        return self.argv, self.pass_fds

    def close_fds(self) -> None:
        """Close the descriptors handed to the process (it has its own copies once started)."""
        for descriptor in self.pass_fds:
            try:
                os.close(descriptor)
            except OSError:
                pass
        self.pass_fds = []

    def cleanup(self) -> None:
        """Remove the cgroup and the private folder (the process tree must be gone)."""
        self.close_fds()
        if self.memory_watch is not None:
            WATCH.forget(self.memory_watch)
        if self.cgroup is not None:
            self.cgroup.remove()
        shutil.rmtree(self.private_dir, ignore_errors=True)
        if self.on_cleanup is not None:
            self.on_cleanup()
            self.on_cleanup = None


_FD = re.compile(r"\{fd:(\w+)\}")


def _memfd(name: str, data: bytes) -> int:
    descriptor = os.memfd_create(f"arena-{name}", os.MFD_CLOEXEC)
    try:
        os.write(descriptor, data)
        os.lseek(descriptor, 0, os.SEEK_SET)
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


def runs_as_root() -> bool:
    """True when this process is root (bots must then run as users of their own)."""
    return os.geteuid() == 0


def namespace_args() -> list[str]:
    """New namespaces of every kind, no capabilities, `nobody` inside, its own session and host name."""
    return ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "arena-bot"]


def system_args() -> list[str]:
    """/usr and the top-level links or folders into it, /etc's few runtime files, /proc (with /proc/sys
    read-only) and /dev."""
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
    args += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    # /dev by hand rather than --dev: no pseudo-terminals, so bubblewrap needs no intermediate user
    # namespace, and the bot's user maps straight to its host user (/proc/self/uid_map tells the truth)
    args += ["--tmpfs", "/dev"]
    for device in DEVICES:
        args += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for link, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        args += ["--symlink", target, f"/dev/{link}"]
    return args


def drop_to(uid: int) -> list[str]:
    """The wrapper that makes the rest run as host user `uid` (no groups, no capabilities)."""
    setpriv = shutil.which("setpriv", path=WRAPPER_ENV["PATH"])
    if setpriv is None:
        raise SandboxUnavailable("the referee runs as root, and bots must not: it needs `setpriv` (util-linux) "
                                 "to run them as users of their own")
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]


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
    builtin = Path(__file__).resolve().parents[1] / "bots"
    return tuple(path for path in (builtin,) if any(path.is_relative_to(outer) for outer in runtime_paths()))


@functools.lru_cache(maxsize=1)
def game_paths() -> tuple[Path, ...]:
    """Folders holding a registered game family's distribution outside this interpreter's prefixes
    (a game installed on a path of its own): its bots need them, on PYTHONPATH too."""
    from importlib import metadata

    prefixes = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    found: list[Path] = []
    for entry in metadata.entry_points(group="arena.games"):
        if entry.dist is None or entry.dist.name == "arena":
            continue
        location = Path(str(entry.dist.locate_file(""))).resolve()
        if location.is_dir() and not any(location.is_relative_to(prefix) for prefix in prefixes) \
                and location not in found:
            found.append(location)
    return tuple(found)


class Launcher:
    """Turns a bot's manifest and launch token into a LaunchPlan, for one referee."""

    def __init__(self, settings: SandboxSettings, runtime_dir: Path) -> None:
        self.settings = settings
        self.runtime_dir = runtime_dir
        self.cgroups = CgroupFactory(settings.cgroup_root)
        self._count = 0
        self._uids_in_use: set[int] = set()
        self._readable: set[Path] = set()  # bot folders found readable by the bots' users
        self._random = random.SystemRandom()
        self.referee_id = f"{self._random.getrandbits(64):016x}"  # marks this referee's bot processes (ARENA_REFEREE)

    @property
    def is_sandboxed(self) -> bool:
        return self.settings.mode == "bwrap"

    @property
    def switches_user(self) -> bool:
        """True when bot processes run as host users of their own (a sandbox, and a root referee)."""
        return self.is_sandboxed and runs_as_root()

    def describe(self) -> str:
        """One line: the sandbox, the bots' users, and where limits come from."""
        limits = f"limits by {self.cgroups.describe()} and rlimits"
        if not self.cgroups.available:
            limits += "; the memory of each bot's processes together watched by the referee"
        if not self.is_sandboxed:
            return f"bots run with NO sandbox (--sandbox none); {limits}"
        who = (f"as users of their own from uid {self.settings.bot_uid_base}" if self.switches_user
               else "as this user, mapped to nobody")
        return f"bots run in a bubblewrap sandbox with a system-call filter, {who}; {limits}"

    def plan(self, *, name: str, directory: Path, command: Sequence[str], token: str, concurrency: int,
             limits: Limits, env: Mapping[str, str]) -> LaunchPlan:
        """Everything needed to start one process of a bot (LaunchRefused for a bot that may not start)."""
        _refuse_unfit(name, directory, env)
        limits = limits.capped(self.settings.caps)
        uid = self._take_uid() if self.switches_user else None
        private, cgroup = self._private_folder(name, uid)
        if cgroup is not None:
            cgroup.limit(limits.memory_mb * 2**20, limits.processes)
        socket_path = private / "referee.sock"
        scratch, server, token_path = self._contact(private, socket_path, token)
        bot_env = self._bot_env(env, scratch)
        bot_env.update({"ARENA_SERVER": server, "ARENA_TOKEN_FILE": token_path, "ARENA_BOT_NAME": name,
                        "ARENA_CONCURRENCY": str(concurrency), "ARENA_REFEREE": self.referee_id})
        if uid is not None:
            self._check_runtime_readable()
        binds = self._bind_sources(private, directory, socket_path, staged=uid is not None)
        argv = self._argv(command, directory, limits, bot_env, binds, cgroup, uid, private)
        plan = LaunchPlan(argv, dict(WRAPPER_ENV), "/", bot_env, private, socket_path, limits, cgroup,
                          self.is_sandboxed, uid, token)
        plan.on_cleanup = functools.partial(self._give_back, uid)
        return plan

    def _private_folder(self, name: str, uid: Optional[int]) -> tuple[Path, Optional[BotCgroup]]:
        """A new private folder for one process of a bot, and its cgroup (None where there are none); the
        user `uid` is given back if either cannot be made."""
        self._count += 1
        private = self.runtime_dir / "bots" / f"{self._count}"
        try:
            # the bot's own user passes through (not lists) the private folders to reach its socket
            passable = 0o711 if uid is not None else 0o700
            private.parent.mkdir(mode=passable, exist_ok=True)
            private.mkdir(mode=passable)
            if uid is not None:
                self.runtime_dir.chmod(0o711)
            return private, self.cgroups.create(f"{name}-{self._count}")
        except BaseException:
            self._give_back(uid)
            raise

    def _contact(self, private: Path, socket_path: Path, token: str) -> tuple[str, str, str]:
        """Where the bot finds (its scratch folder, the referee, its token): fixed paths inside the sandbox;
        without one, a scratch folder and a token file made in its private folder."""
        if self.is_sandboxed:
            return "/tmp", f"unix:{SOCKET_INSIDE}", TOKEN_INSIDE
        scratch_dir = private / "scratch"
        scratch_dir.mkdir(mode=0o700)
        token_file = private / "token"
        token_file.write_text(token)
        token_file.chmod(0o400)
        return str(scratch_dir), f"unix:{socket_path}", str(token_file)

    def _bot_env(self, env: Mapping[str, str], scratch: str) -> dict[str, str]:
        """The bot's environment but Arena's own variables: the basics, the operator's settings, then the
        bot.toml's [env] (less what is reserved)."""
        bot_env = {"PATH": f"{Path(sys.executable).parent}:{SYSTEM_PATH}", "HOME": scratch, "TMPDIR": scratch,
                   "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if game_paths():  # games installed on paths of their own: the bot's Python finds them too
            bot_env["PYTHONPATH"] = ":".join(str(path) for path in game_paths())
        bot_env.update(self.settings.env)
        bot_env.update({key: value for key, value in env.items() if key not in RESERVED_ENV})
        return bot_env

    def _argv(self, command: Sequence[str], directory: Path, limits: Limits, bot_env: Mapping[str, str],
              binds: dict[str, tuple[Path, str, Path]], cgroup: Optional[BotCgroup], uid: Optional[int],
              private: Path) -> list[str]:
        """The command line that starts the bot: in bubblewrap (or not), as its own user (or not), under its
        limits, prepared by the launch wrapper where it needs one."""
        sandboxed = self.is_sandboxed
        if sandboxed:
            inner = self._bwrap_argv(limits, bot_env, binds) + _processes_inside(limits, cgroup) + \
                _fill(command, BOT_DIR)
        else:
            inner = _environment_then(bot_env, str(directory), _fill(command, str(directory)))
            setpriv = shutil.which("setpriv", path=WRAPPER_ENV["PATH"])
            if setpriv is not None:  # bwrap's --die-with-parent, for the program itself (not what it forks)
                inner = [setpriv, "--pdeathsig", "KILL", "--", *inner]
        if uid is not None:
            inner = drop_to(uid) + inner
        argv = _with_limits(inner, limits, cgroup, uid, processes_outside=not sandboxed)
        if sandboxed:
            return _prepared(argv, cgroup, private, copy=(directory, binds["bot"][0]),
                             share_files=uid is None or self._is_readable_by_all(directory),
                             staged={view: source for name, (view, _inside, source) in binds.items()
                                     if name.startswith("runtime") and view != source})
        if cgroup is not None:
            return _prepared(argv, cgroup, private)
        return argv

    def _bind_sources(self, private: Path, directory: Path, socket_path: Path, *,
                      staged: bool) -> dict[str, tuple[Path, str, Path]]:
        """What the sandbox binds, read-only: name -> (where bubblewrap takes it, path inside, host path).

        The bot's folder is a copy in its private folder (hard links where the file system allows), so
        that the sandbox shows no host path of it; `staged`: the runtime folders come from the staging
        view (see `_prepared`), for a bot whose own user may not reach them.
        """
        binds: dict[str, tuple[Path, str, Path]] = {}
        for index, path in enumerate((*runtime_paths(), *self.settings.read_only_paths)):
            view = private / "view" / str(index) if staged else path
            if staged:
                view.mkdir(mode=0o755, parents=True)
            binds[f"runtime{index}"] = (view, str(path), path)
        binds["bot"] = (private / "bot", BOT_DIR, directory)
        binds["socket"] = (socket_path, SOCKET_INSIDE, socket_path)
        return binds

    def _bwrap_argv(self, limits: Limits, bot_env: Mapping[str, str],
                    binds: dict[str, tuple[Path, str, Path]]) -> list[str]:
        """bubblewrap's arguments."""
        binary = shutil.which("bwrap", path=WRAPPER_ENV["PATH"]) or shutil.which("bwrap") or "bwrap"
        size = str(limits.scratch_mb * 2**20)
        args = [binary, *namespace_args(), "--clearenv"]
        for key, value in bot_env.items():
            args += ["--setenv", key, value]
        args += ["--seccomp", "{fd:seccomp}", *system_args()]
        # the scratch first: a runtime living under /tmp (a virtual environment there) is bound over it
        args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
        args += ["--ro-bind-data", "{fd:passwd}", "/etc/passwd", "--ro-bind-data", "{fd:group}", "/etc/group"]
        for name, (view, inside, _source) in binds.items():
            if inside == BOT_DIR:
                for path in hidden_paths():  # in the arena package, but other bots' folders: an empty one instead
                    args += ["--tmpfs", str(path), "--remount-ro", str(path)]
            args += ["--ro-bind", str(view), inside]
        args += ["--perms", "0400", "--ro-bind-data", "{fd:token}", TOKEN_INSIDE,
                 "--remount-ro", "/dev", "--remount-ro", "/",  # writable: /tmp and /dev/shm, nothing else
                 "--chdir", BOT_DIR, "--"]
        return args

    def _take_uid(self) -> int:
        """A host user no running bot of this referee has (drawn at random, so referees rarely share one)."""
        base = self.settings.bot_uid_base
        for _ in range(64):
            uid = base + self._random.randrange(BOT_UID_COUNT)
            if uid not in self._uids_in_use:
                self._uids_in_use.add(uid)
                return uid
        raise SandboxUnavailable("no free bot user left in the range (too many bot processes at once)")

    def _give_back(self, uid: Optional[int]) -> None:
        if uid is not None:
            self._uids_in_use.discard(uid)

    def _check_runtime_readable(self) -> None:
        """The runtime folders must be readable by anyone (a bot's own user reads them): LaunchRefused if not."""
        for path in (*runtime_paths(), *self.settings.read_only_paths):
            mode = path.stat().st_mode
            if mode & (stat.S_IROTH | stat.S_IXOTH) != stat.S_IROTH | stat.S_IXOTH:
                raise LaunchRefused(f"{path} cannot be read by the bots' own users: chmod a+rX {path} "
                                    "(as a package installed by pip would be)")

    def _is_readable_by_all(self, directory: Path) -> bool:
        """True when every file of the folder is readable and every folder searchable by anyone (then the
        copy a bot gets may share the files' inodes; else it is a copy made readable)."""
        if directory not in self._readable:
            for top, folders, files in os.walk(directory):
                for name in [*folders, *files, "."]:
                    info = os.lstat(os.path.join(top, name))
                    needed = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(info.st_mode) else 0)
                    if not stat.S_ISLNK(info.st_mode) and info.st_mode & needed != needed:
                        return False
            self._readable.add(directory)
        return True

    def close(self) -> None:
        """Remove this referee's cgroup folders."""
        self.cgroups.close()


def _fill(command: Sequence[str], directory: str) -> list[str]:
    return [part.replace("{python}", sys.executable).replace("{dir}", directory) for part in command]


def _environment_then(bot_env: Mapping[str, str], directory: str, command: list[str]) -> list[str]:
    """`env -i -C DIR K=V... CMD`: the program alone gets its environment and folder (no sandbox)."""
    env = shutil.which("env", path=WRAPPER_ENV["PATH"]) or "/usr/bin/env"
    return [env, "-i", "-C", directory, *(f"{key}={value}" for key, value in bot_env.items()), *command]


def _refuse_unfit(name: str, directory: Path, env: Mapping[str, str]) -> None:
    """LaunchRefused for a bot whose bot.toml's [env] sets what it may not, or whose stored files changed."""
    problems = env_problems(env)
    if problems:
        raise LaunchRefused(f"bot {name!r}: its bot.toml's [env] may not set {problems[0][1]} ({ENV_FIX})")
    try:
        check_stored(directory)  # a submitted version launches only with the files it was stored with
    except TamperedVersion as error:
        raise LaunchRefused(str(error)) from None


def _processes_inside(limits: Limits, cgroup: Optional[BotCgroup]) -> list[str]:
    """Without a cgroup to count them, the process limit is set inside the sandbox, as RLIMIT_NPROC: there
    the kernel counts the processes of the bot's own user namespace only (Linux 5.14 on), however many
    processes other programs of the same host user run (other containers' included)."""
    if cgroup is not None and cgroup.limits_processes:
        return []
    return ["/usr/bin/prlimit", f"--nproc={limits.processes}:{limits.processes}", "--"]


def _with_limits(argv: list[str], limits: Limits, cgroup: Optional[BotCgroup], uid: Optional[int], *,
                 processes_outside: bool = True) -> list[str]:
    """argv wrapped to set the rlimits before it runs (the process limit only where `processes_outside`)."""
    prlimit = shutil.which("prlimit", path=WRAPPER_ENV["PATH"])
    if prlimit is None:
        return argv
    rlimits = [f"--nofile={limits.open_files}:{limits.open_files}",
               f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}"]
    if cgroup is None or not cgroup.limits_memory:  # per process only: the tree is not bounded
        memory = limits.memory_mb * 2**20
        rlimits.append(f"--as={memory}:{memory}")
    if processes_outside and (cgroup is None or not cgroup.limits_processes) and (uid is not None or os.getuid() != 0):
        # RLIMIT_NPROC counts the whole user: a user of the bot's own holds its processes alone
        allowance = limits.processes if uid is not None else _tasks_of_user(os.getuid()) + limits.processes
        rlimits.append(f"--nproc={allowance}:{allowance}")
    return [prlimit, *rlimits, "--", *argv]


def _prepared(argv: list[str], cgroup: Optional[BotCgroup], private: Path, *,
              copy: Optional[tuple[Path, Path]] = None, share_files: bool = True,
              staged: Optional[dict[Path, Path]] = None) -> list[str]:
    """argv run by a shell that first joins the bot's cgroups, copies its folder (`copy`: from, to) and
    binds the `staged` folders (view -> host path), all before the bot's own code runs (no Python in the
    child). What cannot be done is written to `<private>/launch-failed` (a place no bot can write), so
    the referee can tell a failed launch from a bot that exited.

    The copy shares the files' inodes (hard links) where it may: on one file system, and when they are
    readable by anyone (`share_files`); else it is a real copy, made readable for the bot's user.

    The staging view: a bot's own user cannot reach folders below one only root may enter (a Python
    under /root), and bubblewrap, already running as that user, finds what it binds by path. So, as
    root, in a mount namespace of its own (the host's mounts do not change, and nothing is left if the
    referee is killed), the launch binds each folder the sandbox needs into the bot's private folder
    (which the bot's user may pass through, not list), and bubblewrap binds them from there.
    """
    failed = shlex.quote(str(private / LAUNCH_FAILED))
    steps = []
    if copy is not None:
        steps.append(_copy_step(copy, share_files, failed))
    for view, folder in (staged or {}).items():
        steps.append(f"mount --bind {shlex.quote(str(folder))} {shlex.quote(str(view))} || "
                     f"{{ echo 'a runtime folder could not be bound' > {failed}; exit 125; }}")
    script = (f'while [ "$1" != -- ]; do echo $$ > "$1" || {{ echo "cannot join $1" > {failed}; exit 125; }}; '
              f'shift; done; shift; {"; ".join(steps)}{"; " if steps else ""}exec "$@"')
    joins = list(map(str, cgroup.procs_files())) if cgroup is not None else []
    shell = ["/bin/sh", "-c", script, "arena-bot", *joins, "--", *argv]
    if not staged:
        return shell
    return _in_own_mounts(shell)


def _copy_step(copy: tuple[Path, Path], share_files: bool, failed: str) -> str:
    """The launch script's step copying the bot's folder (`copy`: from, to), hard links first where `share_files`;
    if it fails, it writes why to `failed` (quoted) and exits 125."""
    source, target = (shlex.quote(str(path)) for path in copy)
    copied = f"cp -RP -- {source} {target} && chmod -R a+rX -- {target}"
    if share_files:
        copied = f"cp -RlP -- {source} {target} 2>/dev/null || {{ rm -rf -- {target} && {copied}; }}"
    return f"{{ {copied}; }} || {{ echo 'the bot folder could not be copied' > {failed}; exit 125; }}"


def _in_own_mounts(shell: list[str]) -> list[str]:
    """`shell` run in a mount namespace of its own (`unshare`); SandboxUnavailable without unshare or mount."""
    unshare = shutil.which("unshare", path=WRAPPER_ENV["PATH"])
    if unshare is None or shutil.which("mount", path=WRAPPER_ENV["PATH"]) is None:
        raise SandboxUnavailable("the referee runs as root and must run bots as users of their own: it needs "
                                 "`unshare` and `mount` (util-linux)")
    return [unshare, "--mount", "--propagation", "private", "--", *shell]


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
