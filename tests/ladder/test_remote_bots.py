"""Remote bots on the ladder (bring your own computer): registered by name, they connect to the ladder's
referee with their token and are paired while connected; one offline is not paired and loses nothing;
one that drops in a match is scored under the fault policy; the web shows online or offline."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.games.registry import load_game
from arena.ladder import ladder_status, LadderService, LadderSettings, Schedule
from arena.referee.clock import ClockSettings
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.store.hosting import Hosting
from arena.submissions import hash_token
from arena.submissions.submit import register_remote
from arena.tournament import parse_bots
from arena.tournament.referee_executor import NetworkSettings
from arena.tournament.service import PlaySettings

GAME = load_game("major-general")
MISBEHAVE = Path(__file__).resolve().parents[1] / "rpc" / "bots" / "misbehave.py"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    assert opened.owners.add("ann", hash_token("ann-token"))
    yield opened
    opened.close()


@pytest.fixture
def service(store: Store) -> Iterator[LadderService]:
    settings = LadderSettings(games=(GAME,), schedule=Schedule.parse("1s"), matches_per_round=4, max_pending=4,
                              builtins={GAME.name: tuple(parse_bots("random,greedy"))}, seed=5)
    play = PlaySettings(concurrency=2, network=NetworkSettings("127.0.0.1", 0, connect_timeout_s=3.0),
                        clock=ClockSettings(move_time_s=2.0, bank_s=5.0, grace_s=1.0))
    ladder = LadderService(store, settings, play, log=lambda _line: None)
    ladder.prepare()
    yield ladder
    ladder.close()


def remote_bot(address: str, name: str, token: str, log: Path, *command: str) -> subprocess.Popen[bytes]:
    """A bot program run on 'its owner's computer' (a process of its own, no sandbox), connecting by itself:
    an SDK bot told where by its one setting (ARENA_REMOTE), or a raw one (`command`) by ARENA_SERVER & co."""
    token_file = log.with_suffix(".token")
    token_file.write_text(token)
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    if command:
        env.update(ARENA_SERVER=address, ARENA_TOKEN_FILE=str(token_file), ARENA_BOT_NAME=name)
    else:
        env["ARENA_REMOTE"] = f"arena://{name}:{token}@{address}"
    argv = list(command) or [sys.executable, str(BUILTIN_BOTS / "random" / "bot.py")]
    with log.open("w") as stderr:
        return subprocess.Popen(argv, stderr=stderr, env=env)


def wait_online(service: LadderService, name: str, bot: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    programs = service.executors.for_kinds({PlayerKind.PROGRAM})
    while programs.open_streams().get(name, 0) < 1:  # type: ignore[attr-defined]
        assert bot.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.05)


def test_a_connected_remote_bot_is_seated_and_rated(store: Store, service: LadderService, tmp_path: Path) -> None:
    name, token = register_remote(store, "ann", "far-bot")
    assert service.remote_address
    bot = remote_bot(service.remote_address, name, token, tmp_path / "far.log")
    try:
        wait_online(service, name, bot, tmp_path / "far.log")
        report = service.play_round()
        assert report.pools[0].bots == 3 and report.pools[0].stored > 0, report.pools[0]
        [far] = [row for row in store.bots.find(name)]
        ladder = service.ladders[GAME.name][1]
        played = [m for m in store.matches.of_tournament(ladder) if far.id in m.bots]
        assert played and all(m.reason == "score" for m in played), [(m.reason, m.detail) for m in played]
        assert len(played) <= 2 * 1  # one stream open: at most one table (its seat rotations) this round
        [rating] = [row for row in store.ratings.of_pool(GAME.name) if row.bot_id == far.id]
        assert rating.games == len(played)
        presence = Hosting(store).remote_bot(name)
        assert presence is not None and presence.last_seen is not None
    finally:
        bot.kill()
        bot.wait()


def test_an_offline_remote_bot_is_not_paired_and_loses_nothing(store: Store, service: LadderService) -> None:
    name, _token = register_remote(store, "ann", "sleepy-bot")
    report = service.play_round()
    [sleepy] = store.bots.find(name)
    ladder = service.ladders[GAME.name][1]
    assert report.pools[0].bots == 2 and report.pools[0].stored > 0
    assert not any(sleepy.id in m.bots for m in store.matches.of_tournament(ladder))
    assert not [row for row in store.ratings.of_pool(GAME.name) if row.bot_id == sleepy.id]
    presence = Hosting(store).remote_bot(name)
    assert presence is not None and presence.online == 0 and presence.last_seen is None
    [status] = ladder_status(store)  # listed all the same, as offline (it was left out of the round's field)
    [listed] = [bot for bot in status.bots if bot.bot == name]
    assert listed.online is False and listed.last_seen is None and listed.kind == PlayerKind.REMOTE
    assert all(bot.online is None for bot in status.bots if bot.kind != PlayerKind.REMOTE)


def test_a_remote_bot_with_a_wrong_token_is_never_seated(store: Store, service: LadderService,
                                                         tmp_path: Path) -> None:
    name, _token = register_remote(store, "ann", "wrong-bot")
    bot = remote_bot(service.remote_address, name, "not-its-token", tmp_path / "wrong.log")
    try:
        assert bot.wait(timeout=60) != 0  # refused at Hello
        assert "UNAUTHENTICATED" in (tmp_path / "wrong.log").read_text()
    finally:
        if bot.poll() is None:
            bot.kill()
    report = service.play_round()
    assert report.pools[0].bots == 2


def test_a_remote_bot_that_drops_in_a_match_is_scored_by_the_fault_policy(store: Store, service: LadderService,
                                                                          tmp_path: Path) -> None:
    name, token = register_remote(store, "ann", "dropping-bot")
    bot = remote_bot(service.remote_address, name, token, tmp_path / "drop.log", sys.executable, str(MISBEHAVE),
                     "disconnect")
    try:
        wait_online(service, name, bot, tmp_path / "drop.log")
        service.play_round()
        [dropping] = store.bots.find(name)
        ladder = service.ladders[GAME.name][1]
        played = [m for m in store.matches.of_tournament(ladder) if dropping.id in m.bots]
        assert played, (tmp_path / "drop.log").read_text()[-2000:]
        faulted = [m for m in played if m.offender is not None and m.bots[m.offender] == dropping.id]
        assert faulted and all(m.reason == "disconnect" for m in faulted), [(m.reason, m.detail) for m in played]
    finally:
        bot.kill()
        bot.wait()


def test_the_ladders_matches_can_be_listed_and_watched_with_its_viewer_token(store: Store, tmp_path: Path) -> None:
    """`arena ladder serve --port P --viewer-token-file F`: the matches its referee plays (here a remote bot's)
    are listed and watched with that token, as `arena web --server HOST:P --viewer-token-file F` does."""
    import asyncio

    from arena.rpc.client import AdminClient, AdminError

    viewer = "viewer-token-0123456789abcdef"
    settings = LadderSettings(games=(GAME,), schedule=Schedule.parse("1s"), matches_per_round=4, max_pending=4,
                              builtins={GAME.name: tuple(parse_bots("random,greedy"))}, seed=5)
    play = PlaySettings(concurrency=2, network=NetworkSettings("127.0.0.1", 0, connect_timeout_s=3.0,
                                                               viewer_token=viewer),
                        clock=ClockSettings(move_time_s=2.0, bank_s=5.0, grace_s=1.0))
    service = LadderService(store, settings, play, log=lambda _line: None)
    service.prepare()
    name, token = register_remote(store, "ann", "seen-bot")
    bot = remote_bot(service.remote_address, name, token, tmp_path / "seen.log")
    try:
        wait_online(service, name, bot, tmp_path / "seen.log")
        assert service.play_round().pools[0].stored > 0

        async def look() -> tuple[list[str], list[str]]:
            async with AdminClient(service.remote_address, viewer) as admin:
                listed = await admin.matches()
                players = [player.name for status in listed for player in status.players]
                events = [event.WhichOneof("kind") async for event in admin.watch(listed[0].match_id)]
            return players, events

        players, events = asyncio.run(look())
        assert name in players and events[0] == "header" and events[-1] == "finished"

        async def anonymous() -> None:
            async with AdminClient(service.remote_address, None) as admin:
                await admin.matches()

        with pytest.raises(AdminError):
            asyncio.run(anonymous())
    finally:
        bot.kill()
        bot.wait()
        service.close()
