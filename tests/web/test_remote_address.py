"""Where a remote bot connects is said everywhere an owner looks: /api/server, the answer to registering one
(the exact command line), `arena bot register` and the docs section it names (issue 37, item 3)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.cli.main import main
from arena.store import Store
from arena.submissions import hash_token
from arena.web.app import WebSettings, create_app

ROOT = Path(__file__).resolve().parents[2]
ANN = "ann-token-0123456789"


@pytest.mark.parametrize("address, tls", [("arena.example.org:50052", True), ("", False)])
def test_the_server_says_where_remote_bots_connect(tmp_path: Path, address: str, tls: bool) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    assert store.owners.add("ann", hash_token(ANN))
    settings = WebSettings(bot_store=str(tmp_path / "bots"), preflight_workers=0, remote_address=address,
                           remote_tls=tls)
    try:
        with TestClient(create_app(store, settings), base_url="http://arena.test") as client:
            said = client.get("/api/server").json()
            assert said["protocol"] == "arena.v1" and said["version"]
            made = client.post("/api/owner/remote-bots", json={"name": "far-away"},
                               headers={"Authorization": f"Bearer {ANN}"}).json()
    finally:
        store.close()
    if address:
        assert said["remote_bots"] == {"address": address, "tls": True,
                                       "url": "arenas://NAME:TOKEN@arena.example.org:50052"}
        assert made["connect"]["command"] == (f"ARENA_REMOTE=arenas://far-away:{made['token']}@{address} "
                                              "python3 bot.py")
    else:
        assert said["remote_bots"] is None and made["connect"] is None


def test_arena_bot_register_prints_the_setting_and_a_docs_section_that_exists(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "register", "far-away", "--remote", "--db", f"sqlite:///{tmp_path / 'arena.db'}"]) == 0
    captured = capsys.readouterr()
    assert f"ARENA_REMOTE=arena://far-away:TOKEN@HOST:PORT {sys.executable} bot.py" in captured.err  # this Python
    [section] = re.findall(r"docs/writing-a-bot\.md, '([^']+)'", captured.err)
    headings = [line.lstrip("#").strip() for line in (ROOT / "docs" / "writing-a-bot.md").read_text().splitlines()
                if line.startswith("#")]
    assert section in headings
