"""The store: schema from migrations, transactional writes, bot identity, rerating."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from arena.games.registry import load_game
from arena.ratings.rerate import rerate
from arena.ratings.policy import DEFAULT_POLICY
from arena.referee.players import PlayerKind
from arena.store import BotIdentity, Store, StoreError, create_db_engine, resolve_url
from arena.store.db import alembic_config
from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot
from arena.store.models import Base, Match, Rating, RatingEvent, Record
from arena.tournament import InlineExecutor, TournamentRunner, create_tournament, parse_bots


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    yield opened
    opened.close()


def test_migrations_build_exactly_the_models(store: Store) -> None:
    with store.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_opening_twice_is_harmless(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sub' / 'arena.db'}"
    Store.open(url).close()
    Store.open(url).close()
    assert (tmp_path / "sub" / "arena.db").exists()


def test_the_schema_head_is_the_newest_migration_and_an_older_database_is_still_brought_to_it(tmp_path: Path) -> None:
    """A database at SCHEMA_HEAD is opened without alembic; one below it (or without a revision) is migrated."""
    from alembic import command
    from alembic.script import ScriptDirectory

    from arena.store.db import SCHEMA_HEAD

    config = alembic_config()
    assert ScriptDirectory.from_config(config).get_current_head() == SCHEMA_HEAD
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_db_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0009")
    engine.dispose()
    store = Store.open(url)
    try:
        with store.engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == SCHEMA_HEAD
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        store.close()


def test_database_url_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert resolve_url(None, "results") == "sqlite:///results/arena.db"
    monkeypatch.setenv("ARENA_DB", "postgresql+psycopg://postgres@127.0.0.1/test")
    assert resolve_url(None) == "postgresql+psycopg://postgres@127.0.0.1/test"
    assert resolve_url("sqlite:///x.db") == "sqlite:///x.db"
    with pytest.raises(StoreError):
        create_db_engine("not a url")


def test_bot_identity(store: Store) -> None:
    first = store.bots.register(BotIdentity("random", "1", "abc"))
    assert store.bots.register(BotIdentity("random", "1", "abc")) == first
    assert store.bots.register(BotIdentity("random", "2", "abc")) != first
    assert store.bots.register(BotIdentity("random", "1", "def")) != first
    a, b = parse_bots("random,mcts-ish=random")
    assert a.identity().artifact_hash == b.identity().artifact_hash and a.identity().name != b.identity().name


def _one_match(store: Store, tournament: int, bots: tuple[int, ...], key: tuple[int, int, int],
               pool: str = "major-general") -> PlayedMatch:
    now = datetime(2025, 1, 1)
    seats = tuple(SeatBot(bot, f"bot{bot}", "1", PlayerKind.AGENT, "random") for bot in bots)
    job = MatchJob(tournament, *key, "major-general", {}, 1, seats, pool=pool)
    return PlayedMatch(job, uid=f"u{key}", ranking=(0, 1), scores=(3.0, 1.0), reason="score", offender=None,
                       detail="", steps=10, decisions=8, timings={}, record_gz=b"x", record_size=1, started_at=now,
                       finished_at=now)


def test_a_batch_lands_whole_or_not_at_all(store: Store) -> None:
    a = store.bots.register(BotIdentity("a", "1", "1"))
    b = store.bots.register(BotIdentity("b", "1", "1"))
    tournament = store.tournaments.create(name=None, game="major-general", pool="major-general", options={},
                                          format="round-robin", seed=1, rounds=1, settings={}, bot_ids=[a, b])
    first = _one_match(store, tournament, (a, b), (0, 0, 0))
    store.matches.save([first], DEFAULT_POLICY)

    def counts() -> tuple[int, ...]:
        with store.engine.connect() as conn:
            return tuple(conn.execute(select(func.count()).select_from(table)).scalar_one()
                         for table in (Match, Record, RatingEvent, Rating))

    before = counts()
    ratings_before = [(r.mu, r.sigma, r.games) for r in store.ratings.of_pool("major-general")]
    fresh = _one_match(store, tournament, (b, a), (0, 0, 1))
    duplicate = replace(first, uid="other")
    with pytest.raises(IntegrityError):
        store.matches.save([fresh, duplicate], DEFAULT_POLICY)
    assert counts() == before  # the fresh match did not land either
    assert [(r.mu, r.sigma, r.games) for r in store.ratings.of_pool("major-general")] == ratings_before
    store.matches.save([fresh], DEFAULT_POLICY)
    assert counts() == (2, 2, 4, 2)


def test_rerate_reproduces_the_incremental_ratings(store: Store) -> None:
    game = load_game("major-general")
    for seed in (1, 2):  # two tournaments feeding one pool
        tournament = create_tournament(store, game=game, bots=parse_bots("a=random,b=random,c=random"),
                                       format="round-robin", rounds=2, seed=seed)
        TournamentRunner(store, tournament, InlineExecutor()).run()
    incremental = {r.bot_id: (r.mu, r.sigma, r.games, r.wins, r.draws, r.losses, r.last_played)
                   for r in store.ratings.of_pool("major-general")}
    history = {bot: store.ratings.history(bot) for bot in incremental}
    summary = rerate(store, "major-general")
    assert summary.matches == 24 and summary.bots == 3
    recomputed = {r.bot_id: (r.mu, r.sigma, r.games, r.wins, r.draws, r.losses, r.last_played)
                  for r in store.ratings.of_pool("major-general")}
    for bot, row in incremental.items():
        assert recomputed[bot][0] == pytest.approx(row[0], abs=1e-12)
        assert recomputed[bot][1] == pytest.approx(row[1], abs=1e-12)
        assert recomputed[bot][2:] == row[2:]
        assert [(h.match_id, round(h.mu, 9)) for h in store.ratings.history(bot)] == \
            [(h.match_id, round(h.mu, 9)) for h in history[bot]]


def test_free_for_all_results_are_rated_by_rank(store: Store) -> None:
    bots = [store.bots.register(BotIdentity(name, "1", "1")) for name in ("first", "second", "third")]
    tournament = store.tournaments.create(name=None, game="ffa", pool="ffa", options={}, format="round-robin",
                                          seed=1, rounds=1, settings={}, bot_ids=bots)
    match = replace(_one_match(store, tournament, (bots[2], bots[0], bots[1]), (0, 0, 0), pool="ffa"),
                    ranking=(2, 0, 1), scores=(1.0, 5.0, 3.0))
    store.matches.save([match], DEFAULT_POLICY)
    rows = {r.name: r for r in store.ratings.of_pool("ffa")}
    assert rows["first"].mu > rows["second"].mu > rows["third"].mu
    assert (rows["first"].wins, rows["second"].losses, rows["third"].losses) == (1, 1, 1)


@pytest.mark.parametrize("value", [(0, 1), (1, 0), (), (2.5, -1.0), {"scenario": "random"}, [0, 0],
                                   {"wall_ms": 1.5, "think_ms": [0.25, 0.5]}, None, "text", tuple(range(12))])
def test_json_columns_encode_exactly_as_json_dumps(value: object) -> None:
    import json

    from arena.store.db import encode_json

    assert encode_json(value) == json.dumps(value) and encode_json(value) == json.dumps(value)  # cached or not


def test_json_columns_tell_equal_tuples_of_other_types_apart() -> None:
    """(1, 0) == (1.0, -0.0) == (True, False) in Python, but each has its own JSON text."""
    import json

    from arena.store.db import encode_json

    for value in [(1, 0), (1.0, -0.0), (True, False), (1.0, 0.0), ((1, 0),), ((1.0, 0.0),)] * 2:
        assert encode_json(value) == json.dumps(value)


def test_json_columns_tell_equal_tuples_of_ints_and_floats_apart() -> None:
    """Scores are remembered as rankings are: (11, 10) == (11.0, 10.0) and (0.0,) == (-0.0,), each written its
    own way, whichever came first."""
    import json

    from arena.store.db import encode_json

    for value in [(11, 10), (11.0, 10.0), (2, 3), (2.0, 3.0), (0.0, 1.5), (-0.0, 1.5), (1, 2.0), (1.0, 2),
                  (float("inf"), 0.5)] * 2:
        assert encode_json(value) == json.dumps(value)


def test_repeated_values_in_a_batch_are_stored_for_every_row(store: Store) -> None:
    """The bulk insert converts a value repeated from the row before once: every row still gets it."""
    tournament = create_tournament(store, game=load_game("major-general"), bots=parse_bots("a=random,b=random"),
                                   format="round-robin", rounds=3, seed=5)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    with store.engine.connect() as conn:
        rows = conn.execute(select(Match.options, Match.ranking, Match.started_at, Match.finished_at)).all()
    assert len(rows) == 6
    assert all(row.options == {"scenario": "random"} for row in rows)
    assert all(sorted(row.ranking) in ([0, 1], [0, 0]) and row.started_at <= row.finished_at for row in rows)


def test_a_match_is_found_by_id_or_by_a_uid_prefix_even_of_digits(store: Store) -> None:
    a = store.bots.register(BotIdentity("a", "1", "1"))
    b = store.bots.register(BotIdentity("b", "1", "1"))
    tournament = store.tournaments.create(name=None, game="major-general", pool="major-general", options={},
                                          format="round-robin", seed=1, rounds=1, settings={}, bot_ids=[a, b])
    digits = replace(_one_match(store, tournament, (a, b), (0, 0, 0)), uid="12345678" + "a" * 24)
    hexes = replace(_one_match(store, tournament, (b, a), (0, 0, 1)), uid="abcdef01" + "2" * 24)
    first, second = store.matches.save([digits, hexes], DEFAULT_POLICY)
    for key, expected in ((first, first), (str(second), second), ("12345678", first), ("1234", first),
                          ("abcdef", second), (digits.uid, first)):
        found = store.matches.get(key)
        assert found is not None and found.id == expected, key
    for nothing in ("99", "¹", "9" * 30, "zz", "abc"):  # no such id, not a digit to int(), too big, not hex, short
        assert store.matches.get(nothing) is None, nothing


def test_one_stored_match_reads_the_same_through_every_door(store: Store) -> None:
    """By id, by uid, in a page, among its tournament's matches and its faults: one StoredMatch, its record apart."""
    a = store.bots.register(BotIdentity("a", "1", "1"))
    b = store.bots.register(BotIdentity("b", "1", "1"))
    tournament = store.tournaments.create(name=None, game="major-general", pool="major-general", options={},
                                          format="round-robin", seed=1, rounds=1, settings={}, bot_ids=[a, b])
    played = replace(_one_match(store, tournament, (a, b), (0, 0, 0)), uid="abcdef01" * 4, offender=1,
                     reason="timeout")
    [match_id] = store.matches.save([played], DEFAULT_POLICY)
    found = store.matches.get(match_id)
    assert found is not None and found == store.matches.get(played.uid[:8])
    assert [found] == store.matches.page()[1] == store.matches.of_tournament(tournament) == store.matches.faults()
    assert found.bots == (a, b) and [seat.bot for seat in found.seats] == ["a", "b"] and found.offending_bot == b
    assert found.key == (0, 0, 0) and found.reason == "timeout" and found.luck is None
    assert store.matches.record(found) == played.record_gz


def test_the_store_is_a_thin_door_to_its_aggregates() -> None:
    """Store keeps no queries of its own: each aggregate (bots, owners, ...) is a module that owns its tables."""
    own = [name for name, value in vars(Store).items() if callable(value) or isinstance(value, (property, classmethod))]
    assert len(own) <= 15, own


def test_a_database_from_before_agent_names_gets_them(tmp_path: Path) -> None:
    """Revision 0004 renames the built-in agents an older Arena stored under their spec; named ones stay."""
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_db_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
        for name, spec in (("mcts:iterations=30", "mcts:iterations=30"), ("fast", "mcts:iterations=5"),
                           ("random", "random")):
            connection.exec_driver_sql(
                "INSERT INTO bots (name, version, artifact_hash, owner, kind, spec, created_at, status) "
                f"VALUES ('{name}', '1', 'h-{name}', '', 'agent', '{spec}', '2026-01-01', 'live')")
    engine.dispose()
    store = Store.open(url)
    try:
        assert sorted(bot.name for bot in store.bots.find()) == ["fast", "mcts(30)", "random"]
    finally:
        store.close()


def test_kept_leaderboards_follow_every_change_and_the_match_count_the_tallies(store: Store) -> None:
    from arena.ratings.leaderboard import Leaderboards, leaderboard

    game = load_game("major-general")
    tournament = create_tournament(store, game=game, bots=parse_bots("a=random,b=random,c=random"),
                                   format="round-robin", rounds=1, seed=3)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    kept = Leaderboards(store)
    first = kept.rows("major-general")
    assert first == [s.to_json() for s in leaderboard(store, "major-general")]
    assert kept.rows("major-general") is first  # nothing changed: not read again
    assert store.ratings.match_count("major-general") == store.matches.rated_count("major-general") == 6
    more = create_tournament(store, game=game, bots=parse_bots("a=random,b=random,c=random"),
                             format="round-robin", rounds=1, seed=4)
    TournamentRunner(store, more, InlineExecutor()).run()  # results stored: the ratings moved
    assert kept.rows("major-general") == [s.to_json() for s in leaderboard(store, "major-general")] != first
    assert store.ratings.match_count("major-general") == 12
    rerate(store, "major-general")  # the same tallies, other numbers: still noticed
    assert kept.rows("major-general") == [s.to_json() for s in leaderboard(store, "major-general")]
    bot = kept.standings("major-general")[0].bot_id
    assert kept.rank("major-general", bot) == 1
    store.bots.set_status(bot, "retired")  # a version retired: off the live leaderboard at once
    assert bot not in {s.bot_id for s in kept.standings("major-general")}
    assert kept.rank("major-general", bot) == 1  # (ranked among every version)


def test_rerate_reports_its_progress_and_a_bots_match_pages_come_from_its_seats(store: Store) -> None:
    from arena.ratings import rerate as rerating

    game = load_game("major-general")
    tournament = create_tournament(store, game=game, bots=parse_bots("a=random,b=random,c=random,d=random"),
                                   format="round-robin", rounds=2, seed=5)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    seen: list[tuple[int, int]] = []
    every, rerating.PROGRESS_EVERY = rerating.PROGRESS_EVERY, 5
    try:
        summary = rerate(store, "major-general", on_progress=lambda done, total: seen.append((done, total)))
    finally:
        rerating.PROGRESS_EVERY = every
    assert summary.matches == 24
    assert seen == [(5, 24), (10, 24), (15, 24), (20, 24), (24, 24)]
    bot = store.bots.find("a")[0].id
    total, everything = store.matches.page(bot_id=bot, limit=100)
    assert total == 12 == len(everything) and [m.id for m in everything] == sorted(
        (m.id for m in everything), reverse=True)
    assert all(bot in m.bots for m in everything)
    pages = [store.matches.page(bot_id=bot, offset=offset, limit=5)[1] for offset in (0, 5, 10)]
    assert [m.id for page in pages for m in page] == [m.id for m in everything]
    assert store.matches.page(bot_id=bot, pool="general-orders-wwii/island")[0] == 0


def test_a_pairing_is_settled_once_every_rotation_is_stored_and_open_reads_skip_it(store: Store) -> None:
    game = load_game("major-general")
    tournament = create_tournament(store, game=game, bots=parse_bots("a=random,b=random,c=random"),
                                   format="round-robin", rounds=1, seed=3)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    assert store.tournaments.pairings(tournament) and store.tournaments.open_pairings(tournament) == []
    assert store.tournaments.open_finished_keys(tournament) == set()
    last = store.tournaments.last_round(tournament)
    assert last is not None
    assert store.tournaments.open_pairings(tournament, since_round=last) == [
        row for row in store.tournaments.pairings(tournament) if row.round >= last]
    assert store.tournaments.open_finished_keys(tournament, since_round=last) == {
        key for key in store.tournaments.finished_keys(tournament) if key[0] >= last}
    from arena.store.rows import PairingRow

    store.tournaments.add_pairings(tournament, [PairingRow(last + 1, 0, 7, (1, 2), ""),
                                                PairingRow(last + 1, 1, 8, (3,), "")])
    assert store.tournaments.open_pairings(tournament) == [PairingRow(last + 1, 0, 7, (1, 2), "")]  # (a bye is settled)


def test_migration_0007_settles_the_pairings_already_played(store: Store) -> None:
    from alembic import command

    from arena.store.models import Pairing

    game = load_game("major-general")
    tournament = create_tournament(store, game=game, bots=parse_bots("a=random,b=random,c=random"),
                                   format="round-robin", rounds=1, seed=3)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    config = alembic_config()
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    with store.engine.begin() as connection:
        settled = list(connection.execute(select(Pairing.settled)).scalars())
        assert settled and all(settled)
        first = connection.execute(select(Match.id).order_by(Match.id).limit(1)).scalar_one()
        connection.execute(Match.__table__.delete().where(Match.id == first))  # one rotation not stored
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")
        command.upgrade(config, "head")
    with store.engine.connect() as connection:
        assert sorted(connection.execute(select(Pairing.settled)).scalars()).count(False) == 1


@pytest.mark.parametrize("value", [datetime(2026, 11, 29, 0, 1, 2, 345678), datetime(2026, 11, 29), datetime(7, 1, 2, 3),
                                   datetime(2026, 1, 1, tzinfo=timezone.utc), date(2026, 3, 4), None])
def test_bulk_inserts_write_datetimes_as_sqlalchemy_does(value: object) -> None:
    """The bulk insert's quicker conversion of naive datetimes writes SQLite's DATETIME text exactly."""
    from sqlalchemy.dialects import sqlite

    from arena.store.models import Match
    from arena.store.writes import _insert_plan

    dialect = sqlite.dialect()
    process = Match.__table__.c.finished_at.type._cached_bind_processor(dialect)
    plan = _insert_plan(Match.__table__, ("id", "finished_at"), dialect)
    assert plan is not None
    [(index, quick)] = plan[1]
    assert index == 1 and quick is not process and quick(value) == process(value)
