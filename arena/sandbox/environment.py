"""What a bot's environment may hold, and the fixed environment of the programs that start it.

A bot's variables (its bot.toml's `[env]`, the operator's `--bot-env`) are set inside the sandbox
only (`bwrap --setenv`); the wrappers that run on the host side (the shell that joins the cgroups,
`prlimit`, `setpriv`, `bwrap`) get `WRAPPER_ENV` and nothing else, and start in `/`. On top of that,
variables that change how programs load or start (the dynamic linker's, glibc's, the shells') are
refused wherever a bot's environment is read: at submit, at launch, and in `--bot-env`.
"""

from __future__ import annotations

from typing import Iterable

#: Variables the referee sets for each bot; neither the operator nor a bot.toml may set them.
RESERVED_ENV = frozenset({"ARENA_SERVER", "ARENA_TOKEN", "ARENA_TOKEN_FILE", "ARENA_BOT_NAME", "ARENA_CONCURRENCY",
                          "ARENA_REFEREE"})
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The whole environment of the host-side wrappers: nothing of a bot's, nothing of the referee's.
WRAPPER_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}

#: Variables that change how a program is loaded or started: glibc's list of variables it ignores in
#: setuid programs (sysdeps/generic/unsecvars.h), and the shells' start-up files and options.
UNSAFE_ENV = frozenset({
    "GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE",
    "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR",
    "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH", "GLOBIGNORE", "PROMPT_COMMAND",
})
UNSAFE_PREFIXES = ("LD_", "DYLD_", "BASH_FUNC_", "MALLOC_")


def is_unsafe(name: str) -> bool:
    """True for a variable that changes how programs load or start (LD_PRELOAD, GCONV_PATH, BASH_ENV...)."""
    return name in UNSAFE_ENV or name.startswith(UNSAFE_PREFIXES) or "=" in name or "\0" in name or not name


def env_problems(names: Iterable[str]) -> list[tuple[str, str]]:
    """(variable, what is wrong) for each variable a bot's environment may not set (reserved, or unsafe)."""
    problems = []
    for name in names:
        if name in RESERVED_ENV:
            problems.append((name, f"{name}: the referee sets it for each bot"))
        elif is_unsafe(name):
            problems.append((name, f"{name or 'an empty name'}: it would change how programs are loaded or started"))
    return problems


ENV_FIX = ("remove it: a bot may set plain settings only (no LD_*, GCONV_PATH, GLIBC_TUNABLES, BASH_ENV, ENV...); "
           "link a library into your program or load it from your own code instead")
