"""`arena ladder serve --broker` whose only worker is SIGKILLed: the service waits for one (saying so once, in
its log and in `arena ladder status`) instead of exiting, and when a worker is started again it carries on,
playing what was left; nothing is lost or stored twice."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import tempfile
import uuid

from arena.store import Store
from tests.ladder.test_ladder_serve import Service, environment  # noqa: F401 (the fixture)
from tests.workers import REDIS_URL, forget_queue, kill_worker, needs_redis, start_worker, stop_worker

WAITING = "no Arena worker consumes queue"


def _status(env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "ladder", "status",
                           "--json"], env=env, capture_output=True, check=True, timeout=120)
    [ladder] = json.loads(done.stdout)["ladders"]
    return ladder  # type: ignore[no-any-return]


def _stored_rounds(service: Service) -> list[int]:
    """The round numbers of the logged rounds that stored a match."""
    return [int(found.group(1)) for line in service.rounds()
            if (found := re.search(r"round (\d+): ([1-9]\d*) stored", line))]


@needs_redis
def test_the_service_waits_for_its_workers_and_carries_on(environment: dict[str, str]) -> None:  # noqa: F811
    queue = f"arena-test-ladder-gone-{uuid.uuid4().hex[:8]}"
    log = tempfile.TemporaryFile()
    first = start_worker(queue, log)
    second = None
    service = Service(["--games", "major-general", "--every", "1s", "--matches-per-round", "4", "--builtins",
                       "random,greedy", "--broker", REDIS_URL, "--queue", queue, "-j", "1"], environment)
    store = Store.open(environment["ARENA_DB"])
    try:
        service.wait_for(lambda: _stored_rounds(service), 180, "a round that stores matches")
        kill_worker(first)  # its only worker: nobody serves the queue now
        service.wait_for(lambda: any(WAITING in line for line in service.lines()), 180, "the service to wait")
        status = _status(environment)
        assert status["service"]["running"] and WAITING in str(status["service"]["waiting"])  # type: ignore[index]
        assert service.process.poll() is None
        second = start_worker(queue, log)
        service.wait_for(lambda: any("a worker serves the queue again" in line for line in service.lines()), 180,
                         "the service to say a worker is back")
        back = len(service.rounds())
        service.wait_for(lambda: any(re.search(r"round \d+: [1-9]\d* stored", line)
                                     for line in service.rounds()[back:]), 180,
                         "a round that stores matches after the worker came back")
        ladder = store.tournaments.get("ladder:major-general")
        assert ladder is not None
        before = max(_stored_rounds(service)) - 1  # (rounds are shown from 1)

        def settled() -> bool:  # every match planned up to then is stored: the lost ones were played again
            stored = store.tournaments.finished_keys(ladder.id)
            return all((row.round, row.index, rotation) in stored for row in store.tournaments.pairings(ladder.id)
                       if row.round < before for rotation in range(2))

        service.wait_for(settled, 180, "the matches planned before the worker was lost to be stored")
        assert _status(environment)["service"]["waiting"] is None  # type: ignore[index]
    finally:
        code = service.stop()
        stop_worker(first)
        stop_worker(second)
        log.close()
        forget_queue(queue)
    assert code in (0, 130, -signal.SIGTERM), "\n".join(service.lines()[-30:])
    assert sum(WAITING in line for line in service.lines()) == 1, "said more than once"
    assert "Traceback" not in "\n".join(service.lines())
    matches = store.matches.of_tournament(ladder.id)
    keys = [(m.round, m.pairing, m.rotation) for m in matches]
    assert len(keys) == len(set(keys)) and all(m.reason != "infrastructure" for m in matches)
    assert sum(row.games for row in store.ratings.of_pool("major-general")) == 2 * len(matches)
    store.close()
