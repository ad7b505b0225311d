"""Run inside a sandbox by `arena sandbox check` (arena.sandbox.check): tries what a hostile bot
would, harmlessly, and prints one JSON object of what it found. Standard library only.

    python -I probe.py [--full] [--port PORT]
    python -I probe.py --tree-memory       (children that together hold 3x the memory limit)

Every attempt is harmless to the host: a kernel setting is opened for writing and closed unwritten,
a namespace is asked for and (if given) dropped with the process, memory and processes are
spent in children that the limits are meant to stop.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import socket
import subprocess
import sys
import threading

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
#: System call numbers of the calls the filter must refuse, per machine.
SYSCALLS = {
    "x86_64": {"keyctl": 250, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "ptrace": 101,
               "add_key": 248, "mount": 165, "init_module": 175},
    "aarch64": {"keyctl": 219, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "ptrace": 117,
                "add_key": 217, "mount": 40, "init_module": 105},
}
TIOCSTI = 0x5412
_libc = ctypes.CDLL(None, use_errno=True)


def _call(function: str, *args: int) -> int:
    """0 if the libc call succeeded, else its errno."""
    result = getattr(_libc, function)(*args)
    return 0 if result >= 0 else ctypes.get_errno()


def uid_map() -> list[list[int]]:
    """This process's user mapping: [inside, outside, count] per line."""
    with open("/proc/self/uid_map") as handle:
        return [[int(part) for part in line.split()] for line in handle if line.strip()]


def kernel_settings() -> dict[str, object]:
    """Whether a kernel setting opens for writing, and how many under /proc/sys are writable."""
    try:
        descriptor = os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY)
    except OSError as error:
        opened = f"refused: {error.strerror}"
    else:
        os.close(descriptor)  # opened, never written
        opened = "OPENED FOR WRITING"
    writable = []
    for top, folders, files in os.walk("/proc/sys"):
        for name in files:
            path = os.path.join(top, name)
            if os.access(path, os.W_OK):
                writable.append(path)
    trigger = "absent"
    if os.path.exists("/proc/sysrq-trigger"):
        trigger = "writable" if os.access("/proc/sysrq-trigger", os.W_OK) else "read-only"
    return {"core_pattern": opened, "writable": len(writable), "examples": writable[:5], "sysrq_trigger": trigger,
            "sys_mounted": os.path.isdir("/sys/kernel")}


def namespaces() -> dict[str, object]:
    """What the process can see of the machine: processes, network interfaces, host name."""
    pids = [entry for entry in os.listdir("/proc") if entry.isdigit()]
    with open("/proc/net/dev") as handle:
        interfaces = [line.split(":")[0].strip() for line in handle.readlines()[2:]]
    return {"processes_visible": len(pids), "interfaces": interfaces, "hostname": socket.gethostname(),
            "pid": os.getpid()}


def network(port: int) -> str:
    """'' if no connection could be made, else where it went."""
    for host, target in (("127.0.0.1", port), ("10.0.2.2", 80), ("1.1.1.1", 53)):
        if not target:
            continue
        try:
            with socket.create_connection((host, target), timeout=1.0):
                return f"connected to {host}:{target}"
        except OSError:
            continue
    return ""


def new_namespaces() -> dict[str, str]:
    """The answer to asking for a new user, mount and network namespace (each in a child, so nothing stays)."""
    answers = {}
    for name, flag in (("user", CLONE_NEWUSER), ("mount", CLONE_NEWNS), ("network", CLONE_NEWNET)):
        pid = os.fork()
        if pid == 0:
            code = _call("unshare", flag)
            os._exit(min(code, 255))
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        answers[name] = "MADE" if code == 0 else f"refused: {errno.errorcode.get(code, code)}"
    return answers


def system_calls() -> dict[str, str]:
    """What the filter answers to calls a bot has no use for (each made with harmless arguments)."""
    numbers = SYSCALLS.get(platform.machine(), {})
    answers = {}
    for name, number in numbers.items():
        pid = os.fork()
        if pid == 0:  # in a child: a call that did go through changes nothing of the parent's
            result = _libc.syscall(number, 0, 0, 0, 0, 0)
            os._exit(0 if result >= 0 else min(ctypes.get_errno(), 255))
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        answers[name] = "refused" if code == errno.EPERM else f"answered {errno.errorcode.get(code, code)}"
    code = _call("ioctl", 0, TIOCSTI, ctypes.c_char_p(b"x"))  # type: ignore[arg-type]
    answers["ioctl TIOCSTI"] = "refused" if code == errno.EPERM else f"answered {errno.errorcode.get(code, code)}"
    with open("/proc/self/status") as handle:
        mode = next((line.split()[1] for line in handle if line.startswith("Seccomp:")), "?")
    answers["seccomp mode"] = {"0": "none", "1": "strict", "2": "filter"}.get(mode, mode)
    return answers


#: Socket families: (family, type, protocol) and whether a bot may make one.
FAMILIES = {"unix": (1, socket.SOCK_STREAM, 0, True), "inet": (2, socket.SOCK_STREAM, 0, True),
            "netlink route": (16, socket.SOCK_RAW, 0, True), "vsock": (40, socket.SOCK_STREAM, 0, False),
            "packet": (17, socket.SOCK_RAW, 0, False), "netlink audit": (16, socket.SOCK_RAW, 9, False),
            "netlink uevent": (16, socket.SOCK_DGRAM, 15, False), "kernel crypto": (38, socket.SOCK_SEQPACKET, 0, False),
            "bluetooth": (31, socket.SOCK_STREAM, 3, False)}


def socket_families() -> dict[str, str]:
    """Which socket families a socket can be made of: 'made' or 'refused: ERRNO'."""
    answers = {}
    for name, (family, kind, protocol, _allowed) in FAMILIES.items():
        try:
            socket.socket(family, kind, protocol).close()
            answers[name] = "made"
        except OSError as error:
            answers[name] = f"refused: {errno.errorcode.get(error.errno or 0, error.errno)}"
    return answers


def tree_memory(limit_mb: int, children: int = 6) -> None:
    """Children that each hold half the memory limit (all together 3x it; each under its own address-space
    limit): prints how many held at once, then waits to be ended."""
    share = limit_mb // 2
    script = (f"import sys\nblock = bytearray({share} * 2**20)\nfor at in range(0, len(block), 4096):\n"
              "    block[at] = 1\nprint('held', flush=True)\nsys.stdin.read()\n")
    started = [subprocess.Popen([sys.executable, "-I", "-c", script], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for _ in range(children)]
    held = sum(1 for child in started if child.stdout is not None and child.stdout.readline().strip() == b"held")
    print(json.dumps({"tree_memory": {"held": held, "children": children, "share_mb": share}}), flush=True)
    sys.stdin.read()  # until the check ends the tree


def mounts() -> list[str]:
    """Mounts whose source path is shown (a bind of a host folder elsewhere than its own path)."""
    shown = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            parts = line.split()
            root, point, kind = parts[3], parts[4], parts[parts.index("-") + 1]
            system = (root.startswith(("/usr/", "/etc/", "/newroot")) or kind in ("devtmpfs", "proc")
                      or point.startswith("/dev/"))  # a device node bound in shows nothing of the host
            if root not in ("/", point) and "/deleted" not in root and not system:
                shown.append(f"{point} <- {root}")
    return shown


def memory(limit_mb: int) -> str:
    """What happens to a child that allocates three times the memory limit."""
    script = (f"import sys\nblocks=[]\nfor _ in range({limit_mb * 3}):\n"
              "    blocks.append(bytearray(2**20))\nprint('allocated', flush=True)\n")
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True)
    if done.returncode == 0:
        return f"ALLOCATED {limit_mb * 3} MB"
    return f"stopped (status {done.returncode}{', MemoryError' if 'MemoryError' in done.stderr else ''})"


def processes(limit: int) -> str:
    """How many threads the process could start when it asked for three times the limit."""
    started = 0
    events = []
    try:
        for _ in range(limit * 3):
            event = threading.Event()
            thread = threading.Thread(target=event.wait, daemon=True)
            thread.start()
            events.append(event)
            started += 1
    except RuntimeError:
        pass
    for event in events:
        event.set()
    return f"started {started} of {limit * 3}"


def main() -> None:
    if "--tree-memory" in sys.argv:
        tree_memory(int(json.loads(os.environ.get("PROBE_LIMITS", "{}")).get("memory_mb", 64)))
        return
    full = "--full" in sys.argv
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
    found: dict[str, object] = {"uid_map": uid_map(), "uid": os.getuid(), "namespaces": namespaces(),
                                "network": network(port), "kernel": kernel_settings(),
                                "new_namespaces": new_namespaces(), "system_calls": system_calls(),
                                "sockets": socket_families(),
                                "environment": sorted(os.environ), "mounts": mounts()}
    if full:
        limits = json.loads(os.environ.get("PROBE_LIMITS", "{}"))
        found["memory"] = memory(int(limits.get("memory_mb", 64)))
        found["threads"] = processes(int(limits.get("processes", 16)))
    print(json.dumps(found), flush=True)


if __name__ == "__main__":
    main()
