"""Real `arena worker` processes on the test Redis, for the tests that kill them: each in a process group of its
own (so it is killed whole), on a Redis database of these tests' own (ARENA_TEST_OUTAGE_REDIS, default db 14)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from typing import IO

import pytest

REDIS_URL = os.environ.get("ARENA_TEST_OUTAGE_REDIS", "redis://127.0.0.1:6379/14")


def _redis_reason() -> str | None:
    if importlib.util.find_spec("celery") is None or importlib.util.find_spec("redis") is None:
        return "Celery is not installed (pip install 'arena[distributed]')"
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except Exception as error:
        return f"no Redis at {REDIS_URL}: {error}"
    return None


needs_redis = pytest.mark.skipif(_redis_reason() is not None, reason=str(_redis_reason()))


def start_worker(queue: str, log: IO[bytes]) -> subprocess.Popen[bytes]:
    """An `arena worker` with one process serving `queue`."""
    return subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "worker", "--broker",
                             REDIS_URL, "--queue", queue, "-j", "1"], stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


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


def kill_worker(worker: subprocess.Popen[bytes]) -> None:
    """SIGKILL a worker and its pool, as a machine lost does."""
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)


def forget_queue(queue: str) -> None:
    """Remove a test queue, the messages a killed worker left unacknowledged and the broker's bookkeeping."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for tag, message in client.hgetall("unacked").items():
        if queue.encode() in message:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)
    keys = list(client.scan_iter(match=f"*{queue}*"))
    if keys:
        client.delete(*keys)
