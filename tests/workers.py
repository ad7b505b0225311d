"""Real `arena worker` processes on the test Redis, for the tests that kill them: each in a process group of its
own (so it is killed whole), on a Redis database of these tests' own (ARENA_TEST_OUTAGE_REDIS, default db 14; a
test module with a database of its own passes its `broker`)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from typing import IO, Any

import pytest

REDIS_URL = os.environ.get("ARENA_TEST_OUTAGE_REDIS", "redis://127.0.0.1:6379/14")


def redis_reason(broker: str = REDIS_URL) -> str | None:
    """Why tests of real workers on `broker` cannot run here (None: they can)."""
    if importlib.util.find_spec("celery") is None or importlib.util.find_spec("redis") is None:
        return "Celery is not installed (pip install 'arena[distributed]')"
    import redis

    try:
        redis.Redis.from_url(broker, socket_connect_timeout=1).ping()
    except Exception as error:
        return f"no Redis at {broker}: {error}"
    return None


needs_redis = pytest.mark.skipif(redis_reason() is not None, reason=str(redis_reason()))


# An `arena` command run by a test as its own program: the kernel sends it SIGTERM when the test's process dies
# (Linux's PR_SET_PDEATHSIG, set as it starts; a parent already gone is checked after), so a test run killed from
# outside leaves no service or worker running on, replacing its own killed workers.
_TIED_TO_ITS_TEST = ("import ctypes, os, signal, sys; parent = int(sys.argv.pop(1)); "
                     "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM); "
                     "os.getppid() == parent or os.kill(os.getpid(), signal.SIGTERM); "
                     "from arena.cli.main import run; run()")


def arena_command(*args: str) -> list[str]:
    """The command line of `arena ARGS` for a test's subprocess, ended with the test's process."""
    return [sys.executable, "-c", _TIED_TO_ITS_TEST, str(os.getpid()), *args]


def start_worker(queue: str, log: IO[bytes], broker: str = REDIS_URL) -> subprocess.Popen[bytes]:
    """An `arena worker` with one process serving `queue`."""
    return subprocess.Popen(arena_command("worker", "--broker", broker, "--queue", queue, "-j", "1"), stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def stop_worker(worker: subprocess.Popen[bytes] | None) -> None:
    """End a worker (and its pool) if it still runs."""
    if worker is None or worker.poll() is not None:
        return
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


def is_playing(app: Any, worker: subprocess.Popen[bytes]) -> bool:
    """Whether `worker` (from start_worker) is playing a match now. Its own reply alone counts: the workers of
    other tests share the broker's control channel, and one of theirs at work says nothing of this one."""
    with app.connection_for_write() as connection:
        active = app.control.inspect(timeout=0.5, connection=connection).active() or {}
    return any(tasks for node, tasks in active.items() if node.startswith(f"arena-{worker.pid}@"))


def kill_worker(worker: subprocess.Popen[bytes]) -> None:
    """SIGKILL a worker and its pool, as a machine lost does."""
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)


def forget_queue(queue: str, broker: str = REDIS_URL) -> None:
    """Remove a test queue, the messages a killed worker left unacknowledged (Redis would hand them out again in an
    hour) and the broker's bookkeeping."""
    import redis

    client = redis.Redis.from_url(broker)
    for tag, message in client.hgetall("unacked").items():
        if queue.encode() in message:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)
    keys = list(client.scan_iter(match=f"*{queue}*"))
    if keys:
        client.delete(*keys)
