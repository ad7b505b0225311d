"""How to start worker processes safely: a fork of this process while it has a single thread (quick, and the
workers share its imports), else a fork of a clean fork server. A fork copies only the forking thread: the
locks other threads held stay locked in the child, and gRPC's own threads (a referee, a client made earlier in
the process) left it crashing now and then in the child (a test process that had run a referee before fitting
the luck model lost a pool worker that way, and the pool waited for its task for ever)."""

from __future__ import annotations

import multiprocessing
import os
import threading


def worker_start_method() -> str:
    """"fork" while this process has one thread, else "forkserver" (or "spawn" where there is none)."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and thread_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def thread_count() -> int:
    """Threads of this process, the ones Python did not start included (gRPC's, a C library's)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()
