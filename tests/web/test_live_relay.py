"""The web relays each live match once: however many browsers follow it, the referee serves one watcher (the
web, with its token: not counted against the anonymous caps), every browser gets every step and the result,
and browsers beyond the web's own cap per address never lock a newcomer out: each takes the place of the oldest
stream of that address, which is told so and ends."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import httpx2 as httpx

from arena.bots import BUILTIN_BOTS
from arena.referee.clock import ClockSettings
from arena.rpc.background import BackgroundReferee
from arena.rpc.server import ServerConfig
from arena.web.live import LiveLimits
from tests.web.test_browser import WebServer

BROWSERS = 20  # from one address: the web holds 16 of them at once


async def follow(url: str) -> tuple[int, list[str]]:
    """(status, event kinds) of one browser's server-sent events."""
    kinds: list[str] = []
    async with httpx.AsyncClient(timeout=120) as client:
        async with client.stream("GET", url) as response:
            if response.status_code != 200:
                return response.status_code, kinds
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    kinds.append(line.removeprefix("event: "))
                    if kinds[-1] in ("finished", "error"):
                        break
    return 200, kinds


def test_many_browsers_one_relay_every_step_and_a_cap_per_address_that_ends_the_oldest(web_db: str, tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    shutil.copytree(Path(__file__).parent / "bots", bots)
    config = ServerConfig(port=0, bot_dirs=(bots, BUILTIN_BOTS), results_dir=None, startup_timeout_s=60.0,
                          clock=ClockSettings(move_time_s=5.0, bank_s=30.0, grace_s=1.0), viewer_token="v" * 32)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        token = tmp_path / "viewer-token"  # the web holds only the viewer token: it lists and watches, no more
        token.write_text("v" * 32)
        server = WebServer(web_db, "--server", referee.address, "--viewer-token-file", str(token))
        try:
            async def start() -> Any:
                return referee.server.start_match("major-general", ["slow", "slow"], seed=4)

            live = referee.call(start())

            async def crowd() -> list[tuple[int, list[str]]]:
                return list(await asyncio.gather(*(follow(f"{server.url}/api/live/{live.match_id}/events")
                                                   for _ in range(BROWSERS))))

            results = asyncio.run(crowd())
        finally:
            server.stop()
        record = live.task.result()
        assert record.result is not None and record.result.reason == "score"
        assert all(status == 200 for status, _kinds in results)  # every browser answered: none locked out
        served = [kinds for _status, kinds in results if kinds[-1:] == ["finished"]]
        ended = [kinds for _status, kinds in results if kinds[-1:] == ["error"]]
        assert len(served) == LiveLimits().per_address and len(ended) == BROWSERS - LiveLimits().per_address
        for kinds in served:
            assert kinds[0] == "header" and kinds[-1] == "finished"
            assert kinds.count("step") == len(record.steps)  # every step, once
        assert referee.server.spectators.refused == 0  # the web's one stream was never counted as anonymous
        assert live.feed._joined == 1  # one watcher at the referee for all the browsers
