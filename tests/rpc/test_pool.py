"""The bot pool: remote streams are seated only in games they play; tokens are checked; launches are undone."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Awaitable, Callable

import grpc
import pytest

from arena.paths import BUILTIN_BOTS
from arena.rpc.manifest import load_manifest
from arena.rpc.pool import AdmissionError, BotPool, BotUnavailable
from arena.rpc.session import BotSession
from arena.sandbox.launch import Launcher, SandboxSettings


def test_a_remote_stream_is_seated_only_in_games_it_plays() -> None:
    async def scenario() -> None:
        pool = BotPool({}, {"far": "secret"}, connect_timeout_s=0.2)
        assert pool.admit("far", "secret", 1, on_bot_socket=False) == ("far", None)
        picky = BotSession(None, name="far", version="2", games=("major-general/hold-the-centre",), omit_labels=True)
        pool.offer(picky, None)
        with pytest.raises(BotUnavailable, match="no stream open for major-general/no-scenario"):
            await pool.acquire("far", "major-general/no-scenario", "major-general")
        assert await pool.acquire("far", "major-general/hold-the-centre", "major-general") is picky
        waiting = asyncio.ensure_future(pool.acquire("far", "major-general", "major-general"))
        await asyncio.sleep(0)
        anything = BotSession(None, name="far", version="2", games=("*",), omit_labels=True)
        pool.offer(anything, None)
        assert await waiting is anything

    asyncio.run(scenario())


@pytest.mark.parametrize("name, token, version, on_bot_socket, code", [
    ("far", "wrong", 1, False, grpc.StatusCode.UNAUTHENTICATED),
    ("far", "", 1, False, grpc.StatusCode.UNAUTHENTICATED),
    ("nobody", "secret", 1, False, grpc.StatusCode.UNAUTHENTICATED),
    ("far", "secret", 2, False, grpc.StatusCode.FAILED_PRECONDITION),
    ("far", "secret", 1, True, grpc.StatusCode.UNAUTHENTICATED),  # a registered token is for the network only
])
def test_bad_hellos_are_refused(name: str, token: str, version: int, on_bot_socket: bool,
                                code: grpc.StatusCode) -> None:
    pool = BotPool({}, {"far": "secret"})
    with pytest.raises(AdmissionError) as refused:
        pool.admit(name, token, version, on_bot_socket=on_bot_socket)
    assert refused.value.code == code


def test_new_tokens_never_read_as_command_line_options() -> None:
    """A token goes on a bot's command line (`--token T`): one starting with '-' would be taken for
    an option (urlsafe base64 tokens did that one time in 64), so tokens are hex."""
    from arena.agents import make_agent
    from arena.rpc.pool import new_token
    from arena.rpc.sdk import settings_from_environment

    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert all(len(token) == 48 and set(token) <= set("0123456789abcdef") for token in tokens)
    token = BotPool({}, {}).register_remote("far")
    assert len(token) == 48 and not token.startswith("-")
    settings = settings_from_environment(make_agent("random"), ["--server", "127.0.0.1:1", "--token", token])
    assert settings.token == token


def test_a_match_stopped_while_its_bot_launches_leaves_nothing_seated(tmp_path: Path) -> None:
    """A match cancelled while its bot's process is being launched (the referee stopping, the match's time up):
    the half-launched process is not left counted as running with a match seated on it, and a match that was
    waiting for that process's stream is seated elsewhere instead of waiting out the startup timeout."""
    manifest = load_manifest(BUILTIN_BOTS / "random")
    manifest = dataclasses.replace(manifest, concurrency=2)

    async def scenario() -> None:
        pool = BotPool({manifest.name: manifest}, {}, startup_timeout_s=600.0)
        pool.launcher = Launcher(SandboxSettings(mode="none"), tmp_path)
        launching: asyncio.Queue[str] = asyncio.Queue()

        async def never_listens(path: Path, token: str) -> Callable[[], Awaitable[None]]:
            await launching.put(token)
            await asyncio.Event().wait()  # the launch hangs here until the match is stopped
            raise AssertionError("unreachable")

        pool.listen = never_listens
        first = asyncio.ensure_future(pool.acquire(manifest.name, "major-general", "major-general"))
        first_token = await launching.get()
        second = asyncio.ensure_future(pool.acquire(manifest.name, "major-general", "major-general"))
        await asyncio.sleep(0)  # (seated on the launching process: it has room for two matches)
        assert pool.status()[0]["playing"] == 2
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        # the second match launches a process of its own (before: it waited for the first's stream, 600 s)
        assert await asyncio.wait_for(launching.get(), 60) != first_token
        assert pool.status()[0]["playing"] == 1 and pool.status()[0]["processes"] == 1
        second.cancel()
        with pytest.raises(asyncio.CancelledError):
            await second
        assert pool.status()[0]["playing"] == 0 and pool.status()[0]["processes"] == 0

    asyncio.run(scenario())
