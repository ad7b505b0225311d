"""The ladder service's state: one frozen value, written and read back as the JSON the service has always kept in
its ladder's settings (the same keys, values and order)."""

from __future__ import annotations

import json
from dataclasses import replace

from arena.ladder.state import LadderState, LastRound

STORED = ('{"seen_match_id": 8, "settings": {"schedule": "every 200ms", "matches_per_round": 4, "max_pending": 8, '
          '"retries": 2, "round_timeout_s": 1800.0, "notify": false}, "heartbeat": "2026-01-01T10:00:00", "pid": 41, '
          '"field": [1, 2, 3], "durations": {"1": 0.21, "3": 0.5, "2": 0.3}, "last_round": {"pool": "major-general", '
          '"round": 1, "bots": 3, "planned": 4, "carried": 0, "stored": 4, "infrastructure": 0, "left": 0, '
          '"seconds": 0.42, "note": "", "started_at": "2026-01-01T09:59:59"}, "next_round_at": "2026-01-01T10:00:01", '
          '"stopped_at": "2026-01-01T10:00:00"}')


def test_the_stored_state_reads_back_typed_and_writes_the_same_json() -> None:
    state = LadderState.from_json(json.loads(STORED))
    assert state.seen_match_id == 8 and state.field == (1, 2, 3) and state.durations == {1: 0.21, 3: 0.5, 2: 0.3}
    assert state.last_round == LastRound(1, "2026-01-01T09:59:59", "major-general", 3, 4, 0, 4, 0, 0, 0.42, "")
    assert state.settings is not None and state.settings["schedule"] == "every 200ms"
    assert json.dumps(state.to_json()) == STORED
    assert state.last_field([9]) == (1, 2, 3) and state.match_seconds == {1: 0.21, 3: 0.5, 2: 0.3}


def test_a_new_ladder_has_nothing_written_until_the_service_writes_it() -> None:
    state = LadderState.from_json({})
    assert state == LadderState() and state.to_json() == {} and state.last_field([4, 5]) == [4, 5]
    first = replace(state, seen_match_id=0, heartbeat="2026-01-01T10:00:00", pid=7)
    assert list(first.to_json()) == ["seen_match_id", "heartbeat", "pid"]  # (what prepare writes first)
    assert LadderState.from_json(first.to_json()) == first
