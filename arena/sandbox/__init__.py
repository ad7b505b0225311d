"""Running untrusted bot programs: a bubblewrap sandbox, resource limits, process-tree control.

environment  what a bot's environment may hold; the wrappers' fixed environment
limits       what a bot.toml may ask for ([limits]) and the operator's caps
seccomp      the system calls a sandboxed bot may not make
cgroups      kernel control groups: tree-wide memory and process limits, peak use, tree kill
launch       the argv and environment of a bot process, sandboxed (bwrap) or not (--sandbox none)
check        `arena sandbox check`: a probe inside a real sandbox, each protection pass or fail
leftovers    what a killed referee left behind, removed at the next start
"""

from arena.sandbox.check import quick_check
from arena.sandbox.launch import (
    SANDBOX_MODES,
    Launcher,
    LaunchPlan,
    LaunchRefused,
    SandboxSettings,
    SandboxUnavailable,
)
from arena.sandbox.limits import DEFAULT_CAPS, DEFAULT_LIMITS, Limits

__all__ = ["SANDBOX_MODES", "LaunchPlan", "LaunchRefused", "Launcher", "SandboxSettings", "SandboxUnavailable",
           "quick_check", "DEFAULT_CAPS", "DEFAULT_LIMITS", "Limits"]
