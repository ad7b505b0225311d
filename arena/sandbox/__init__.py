"""Running untrusted bot programs: a bubblewrap sandbox, resource limits, process-tree control.

limits   what a bot.toml may ask for ([limits]) and the operator's caps
cgroups  kernel control groups: tree-wide memory and process limits, peak use, tree kill
launch   the argv and environment of a bot process, sandboxed (bwrap) or not (--sandbox none)
"""

from arena.sandbox.launch import (
    SANDBOX_MODES,
    Launcher,
    LaunchPlan,
    SandboxSettings,
    SandboxUnavailable,
    check_sandbox,
)
from arena.sandbox.limits import DEFAULT_CAPS, DEFAULT_LIMITS, Limits

__all__ = ["SANDBOX_MODES", "LaunchPlan", "Launcher", "SandboxSettings", "SandboxUnavailable", "check_sandbox",
           "DEFAULT_CAPS", "DEFAULT_LIMITS", "Limits"]
