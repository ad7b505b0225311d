"""The system calls a sandboxed bot may not make: a seccomp filter (libseccomp, through pyseccomp),
compiled once per referee process and handed to bubblewrap (`--seccomp FD`).

Modelled on Flatpak's filter (flatpak-run.c, setup_seccomp): a bot computes and talks over its
socket; it has no use for the kernel's administrative calls, for other processes' memory, for new
namespaces or mounts, or for the interfaces that have been the kernel's attack surface (BPF,
perf events, userfaultfd, io_uring, keyrings). Each is refused with EPERM (the program sees an
ordinary "Operation not permitted"); `clone3` answers ENOSYS, so that C libraries fall back to
`clone`, whose flags the filter can see. The filter covers every ABI the machine runs
(x86-64, i386 and x32 on an x86-64 host), so a 32-bit system call is no way around it.

Sockets: a bot talks to the referee over a Unix socket. It may also make Internet sockets (language
runtimes open them at start; its network namespace holds only its own loopback) and route-netlink ones
(what the C library asks for addresses; it sees its own namespace's). Every other family is refused
with EAFNOSUPPORT, as on a kernel without it: no vsock (a network namespace does not cover it: it
reaches the host and its virtual machines), no packet sockets, no other netlink protocols (audit,
uevents, ...), no Bluetooth, no kernel crypto. `socketcall`, the old multiplexed i386 entry whose
arguments a filter cannot see, answers ENOSYS (C libraries since Linux 4.3 make the direct calls).
"""

from __future__ import annotations

import errno
import functools
import platform
import tempfile
from typing import Any

#: System calls refused outright, with why a bot has no use for them.
DENIED = {
    # namespaces, mounts and roots: a bot's sandbox is made for it, never by it
    "unshare": "new namespaces", "setns": "joining namespaces", "mount": "mounts", "umount2": "mounts",
    "pivot_root": "mounts", "chroot": "mounts", "open_tree": "mounts", "move_mount": "mounts", "fsopen": "mounts",
    "fsconfig": "mounts", "fsmount": "mounts", "fspick": "mounts", "mount_setattr": "mounts",
    # other processes and the kernel's internals
    "ptrace": "tracing processes", "process_vm_readv": "other processes' memory",
    "process_vm_writev": "other processes' memory", "kcmp": "comparing processes' kernel objects",
    "bpf": "BPF programs", "perf_event_open": "performance counters", "userfaultfd": "user page-fault handling",
    "io_uring_setup": "io_uring", "io_uring_enter": "io_uring", "io_uring_register": "io_uring",
    "add_key": "kernel keyrings", "keyctl": "kernel keyrings", "request_key": "kernel keyrings",
    "lookup_dcookie": "profiling", "name_to_handle_at": "file handles", "open_by_handle_at": "file handles",
    "fanotify_init": "file-system monitoring of others",
    # the machine's administration
    "syslog": "the kernel log", "acct": "process accounting", "quotactl": "disk quotas", "swapon": "swap",
    "swapoff": "swap", "reboot": "rebooting", "kexec_load": "loading kernels", "kexec_file_load": "loading kernels",
    "init_module": "kernel modules", "finit_module": "kernel modules", "delete_module": "kernel modules",
    "settimeofday": "the clock", "clock_settime": "the clock", "clock_adjtime": "the clock", "adjtimex": "the clock",
    "sethostname": "the host name", "setdomainname": "the host name", "iopl": "I/O ports", "ioperm": "I/O ports",
    "uselib": "obsolete loading", "vhangup": "terminals", "nfsservctl": "NFS",
    "modify_ldt": "segment tables", "mbind": "memory policy", "set_mempolicy": "memory policy",
    "migrate_pages": "memory policy", "move_pages": "memory policy",
}
#: clone() flags that make namespaces (CLONE_NEWNS ... CLONE_NEWNET, CLONE_NEWTIME).
CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 \
    | 0x00000080
#: Socket families a bot may make (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK with NETLINK_ROUTE alone).
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
NETLINK_ROUTE = 0
ALLOWED_FAMILIES = (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)
FAMILY_LIMIT = 64  # families are numbered below this (AF_MAX is 46 in Linux 6.x): all above refused at once
#: ioctl() requests that push input into a terminal or reach the console.
TIOCSTI, TIOCLINUX = 0x5412, 0x541C


class SeccompUnavailable(RuntimeError):
    """The filter cannot be built here (libseccomp missing); the message says what to install."""


@functools.lru_cache(maxsize=1)
def filter_program() -> bytes:
    """The compiled BPF program (what `bwrap --seccomp` reads); SeccompUnavailable if it cannot be built."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as error:  # pyseccomp loads libseccomp.so.2 when imported
        raise SeccompUnavailable(f"the bot sandbox's system-call filter needs libseccomp ({error}): "
                                 "apt-get install libseccomp2, and pip install pyseccomp") from None
    try:
        program = seccomp.SyscallFilter(seccomp.ALLOW)
        for arch in _extra_arches(seccomp):
            program.add_arch(arch)
        denied = seccomp.ERRNO(errno.EPERM)
        for name in DENIED:
            try:
                program.add_rule(denied, name)
            except (ValueError, RuntimeError, OSError):  # a call this architecture does not have
                continue
        for bit in _bits(CLONE_NAMESPACE_FLAGS):
            program.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit))
        program.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
        for request in (TIOCSTI, TIOCLINUX):
            program.add_rule(denied, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
        _socket_rules(seccomp, program)
        with tempfile.TemporaryFile() as compiled:
            program.export_bpf(compiled)
            compiled.seek(0)
            return compiled.read()
    except (RuntimeError, OSError, ValueError) as error:
        raise SeccompUnavailable(f"the bot sandbox's system-call filter cannot be built here: {error}") from None


def _socket_rules(seccomp: Any, program: Any) -> None:
    """socket() and socketpair() of the allowed families only; socketcall not at all."""
    unsupported = seccomp.ERRNO(errno.EAFNOSUPPORT)
    for call in ("socket", "socketpair"):
        for family in range(FAMILY_LIMIT):
            if family not in ALLOWED_FAMILIES:
                program.add_rule(unsupported, call, seccomp.Arg(0, seccomp.MASKED_EQ, 0xFFFFFFFF, family))
        program.add_rule(unsupported, call, seccomp.Arg(0, seccomp.GE, FAMILY_LIMIT))  # (upper bits set too)
    program.add_rule(unsupported, "socket", seccomp.Arg(0, seccomp.MASKED_EQ, 0xFFFFFFFF, AF_NETLINK),
                     seccomp.Arg(2, seccomp.NE, NETLINK_ROUTE))
    try:
        program.add_rule(seccomp.ERRNO(errno.ENOSYS), "socketcall")
    except (ValueError, RuntimeError, OSError):  # no such call on this machine's ABIs
        pass


def _extra_arches(seccomp: object) -> list[object]:
    """The other ABIs this machine's kernel runs beside its native one."""
    arch = getattr(seccomp, "Arch")
    machine = platform.machine()
    if machine == "x86_64":
        return [arch.X86, arch.X32]
    if machine == "aarch64" and hasattr(arch, "ARM"):
        return [arch.ARM]
    return []


def _bits(mask: int) -> list[int]:
    return [1 << shift for shift in range(mask.bit_length()) if mask >> shift & 1]
