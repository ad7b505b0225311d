"""`arena bot compare NAME A B`: version against version on the opponents both met, per mode, with intervals,
a verdict and the games that would settle it (issue 37, item 2)."""

from __future__ import annotations

import itertools
import json
from datetime import datetime
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.ratings.compare import CompareError, Measure, Verdict, compare_versions, find_versions
from arena.ratings.policy import DEFAULT_POLICY
from arena.referee.players import PlayerKind
from arena.store import BotIdentity, Store
from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot

POOL = "major-general"
_numbers = itertools.count(1)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    yield opened
    opened.close()


def _bot(store: Store, name: str, version: str, content: str, kind: PlayerKind = PlayerKind.PROGRAM) -> int:
    bot, _new = store.bots.add_version(BotIdentity(name, version, content, kind, f"/bots/{name}/{content}", "ann"),
                                       games=["major-general"])
    store.bots.set_status(bot, "live")
    return bot


def _played(store: Store, tournament: int, bot: int, opponent: int, wins: int, losses: int,
            luck: float | None = None) -> None:
    matches = []
    for won in [True] * wins + [False] * losses:
        number = next(_numbers)
        now = datetime(2026, 1, 1) .replace(second=number % 60, minute=number // 60 % 60)
        seats = (SeatBot(bot, "b", "1", PlayerKind.PROGRAM, ""),
                 SeatBot(opponent, "o", "1", PlayerKind.AGENT, "random"))
        job = MatchJob(tournament, number, 0, 0, POOL, {}, number, seats, pool=POOL)
        matches.append(PlayedMatch(job, uid=f"m{number}", ranking=(0, 1) if won else (1, 0), scores=(1.0, 0.0),
                                   reason="score", offender=None, detail="", steps=3, decisions=2, timings={},
                                   record_gz=b"x", record_size=1, started_at=now, finished_at=now,
                                   luck=None if luck is None else (luck, -luck)))
    store.matches.save(matches, DEFAULT_POLICY)


def test_a_better_version_is_named_better_on_the_opponents_both_met(store: Store) -> None:
    old, new = _bot(store, "ann-bot", "2", "aaaa"), _bot(store, "ann-bot", "3", "bbbb")
    rock, paper, easy = (_bot(store, name, "1", name * 2, PlayerKind.AGENT) for name in ("rock", "paper", "easy"))
    tournament = store.tournaments.create(name=None, game=POOL, pool=POOL, options={}, format="ladder", seed=1,
                                          rounds=1, settings={}, bot_ids=[old, new, rock, paper, easy])
    _played(store, tournament, old, rock, wins=6, losses=14)
    _played(store, tournament, old, paper, wins=5, losses=15)
    _played(store, tournament, new, rock, wins=16, losses=4)
    _played(store, tournament, new, paper, wins=15, losses=5)
    _played(store, tournament, new, easy, wins=20, losses=0)  # met by v3 only: it must not count as progress
    a, b = find_versions(store, "ann-bot", "v2", "3")
    [mode] = compare_versions(store, a, b)
    assert mode.pool == POOL and mode.opponents == ["paper", "rock"] and mode.measure is Measure.SCORE
    assert (mode.a.games, mode.b.games) == (40, 40)
    assert mode.a.score is not None and mode.b.score is not None and mode.difference is not None
    assert mode.a.score.value == pytest.approx(11 / 40) and mode.b.score.value == pytest.approx(31 / 40)
    assert mode.difference.value == pytest.approx(0.5) and mode.difference.low > 0 and mode.verdict is Verdict.BETTER
    assert mode.a.score.low < mode.a.score.value < mode.a.score.high
    [reverse] = compare_versions(store, b, a)
    assert reverse.verdict is Verdict.WORSE and reverse.difference is not None
    assert reverse.difference.value == pytest.approx(-0.5)


def test_a_small_difference_is_not_clear_yet_and_says_how_many_games_would_settle_it(store: Store,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old, new = _bot(store, "bea-bot", "1", "cccc"), _bot(store, "bea-bot", "2", "dddd")
    rock = _bot(store, "rock", "1", "rrrr", PlayerKind.AGENT)
    tournament = store.tournaments.create(name=None, game=POOL, pool=POOL, options={}, format="ladder", seed=1,
                                          rounds=1, settings={}, bot_ids=[old, new, rock])
    _played(store, tournament, old, rock, wins=5, losses=5, luck=0.1)
    _played(store, tournament, new, rock, wins=6, losses=4, luck=0.1)
    [mode] = compare_versions(store, *find_versions(store, "bea-bot", "1", "2"))
    assert mode.measure is Measure.SCORE_LESS_LUCK and mode.verdict is Verdict.NOT_CLEAR
    assert mode.difference is not None and mode.difference.value == pytest.approx(0.1)
    assert mode.more_games is not None and mode.more_games > 50
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    assert main(["bot", "compare", "bea-bot", "v1", "v2", "--db", url, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["a"] == "1" and shown["b"] == "2" and shown["modes"][0]["verdict"] == "not clear yet"
    assert main(["bot", "compare", "bea-bot", "v1", "v2", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "bea-bot: v2 against v1" in out and "not clear" in out and "more" in out  # (a table: cells wrap)
    with pytest.raises(CompareError, match=r"no version 'v9' of bea-bot; its versions: v1 \(cccc"):
        find_versions(store, "bea-bot", "v1", "v9")


def test_the_web_serves_the_comparison(store: Store) -> None:
    from fastapi.testclient import TestClient

    from arena.web.app import create_app

    old, new = _bot(store, "cal-bot", "1", "eeee"), _bot(store, "cal-bot", "2", "ffff")
    rock = _bot(store, "rock", "1", "rrrr", PlayerKind.AGENT)
    tournament = store.tournaments.create(name=None, game=POOL, pool=POOL, options={}, format="ladder", seed=1,
                                          rounds=1, settings={}, bot_ids=[old, new, rock])
    _played(store, tournament, old, rock, wins=2, losses=18)
    _played(store, tournament, new, rock, wins=18, losses=2)
    with TestClient(create_app(store)) as client:
        found = client.get("/api/bots/cal-bot/compare", params={"a": "1", "b": "2"})
        assert found.status_code == 200 and found.json()["modes"][0]["verdict"] == "better"
        missing = client.get("/api/bots/cal-bot/compare", params={"a": "1", "b": "7"})
        assert missing.status_code == 404 and "its versions: v1" in missing.json()["detail"]


def test_the_cli_says_scores_in_percent_and_the_difference_in_points_as_the_page_does(
        store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli.show import console

    monkeypatch.setattr(console, "width", 300)  # (one line per row: the cells whole)
    old, new = _bot(store, "dan-bot", "1", "gggg"), _bot(store, "dan-bot", "2", "hhhh")
    rock = _bot(store, "rock", "1", "rrrr", PlayerKind.AGENT)
    tournament = store.tournaments.create(name=None, game=POOL, pool=POOL, options={}, format="ladder", seed=1,
                                          rounds=1, settings={}, bot_ids=[old, new, rock])
    _played(store, tournament, old, rock, wins=11, losses=29)
    _played(store, tournament, new, rock, wins=31, losses=9)
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    assert main(["bot", "compare", "dan-bot", "1", "2", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "27.5% [" in out and "77.5% [" in out and "+50.0 points [" in out and "0.275" not in out, out
    assert main(["bot", "compare", "dan-bot", "2", "1", "--db", url]) == 0
    assert "-50.0 points [" in capsys.readouterr().out
    assert main(["bot", "compare", "dan-bot", "1", "2", "--db", url, "--json"]) == 0
    [mode] = json.loads(capsys.readouterr().out)["modes"]
    assert mode["difference"] == pytest.approx(0.5)  # --json keeps its fractions
