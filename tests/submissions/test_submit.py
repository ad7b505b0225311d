"""`arena bot submit` end to end, in the real sandbox: checks with lines, content-addressed read-only copies,
the pre-flight's steps and report, versions, owners, retirement."""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.store import Store
from arena.submissions import SubmissionError, retire, submit
from arena.submissions.submit import hash_token

GOOD_BOT = '''
from arena.agents import RandomAgent
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(RandomAgent())
'''

ILLEGAL_BOT = '''
from arena.agents.base import Agent
from arena.sdk import run_bot


class Liar(Agent):
    name = "liar"

    def act(self, request):
        return max(request.legal_actions) + 1000


if __name__ == "__main__":
    run_bot(Liar())
'''

CRASHING_BOT = '''
import sys
print("loading the model from weights.bin", flush=True)
print("FileNotFoundError: weights.bin", file=sys.stderr, flush=True)
sys.exit(3)
'''

FRAGILE_BOT = '''
import sys

from arena.agents import RandomAgent
from arena.sdk import run_bot


class Fragile(RandomAgent):
    """Plays well, but gives up after a match that ended before it could answer its second request."""

    count = None

    def reset(self, game, seat, seed):
        if self.count == 2:  # the edge step ends the match at its second request
            print("fragile: my last match ended while I was thinking", file=sys.stderr, flush=True)
            sys.exit(5)
        super().reset(game, seat, seed)
        self.count = 0

    def act(self, request):
        self.count += 1
        return super().act(request)


if __name__ == "__main__":
    run_bot(Fragile())
'''

SLOW_STARTER = '''
import time
time.sleep(30)
'''


def make_bot(folder: Path, name: str, code: str = GOOD_BOT, version: str = "1",
             games: str = '["major-general"]') -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "{version}"\ncommand = ["{{python}}", "bot.py"]\n'
                                     f"games = {games}\n")
    (folder / "bot.py").write_text(code)
    return folder


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    yield opened
    opened.close()


def test_a_good_folder_is_stored_by_its_hash_read_only_and_goes_live(tmp_path: Path, store: Store) -> None:
    source = make_bot(tmp_path / "src", "ann-bot")
    area = tmp_path / "bots"
    result = submit(source, store, area)
    assert result.status == "live" and result.ok, result.message
    stored = Path(result.path)
    assert stored.parent == area / "ann-bot" and stored.name == result.artifact_hash and len(stored.name) == 64
    assert (stored / "bot.py").read_text() == GOOD_BOT and not os.stat(stored / "bot.py").st_mode & 0o222
    bot = store.bots.get(result.bot_id)
    assert bot.status == "live" and bot.spec == str(stored) and bot.games == ("major-general",)
    report = store.bots.report(result.bot_id)
    assert report["ok"] and [step["step"] for step in report["steps"]] == ["start", "play", "play", "play", "edge"]
    assert [step.get("seat") for step in report["steps"][1:]] == [0, 1, 0, 0]
    assert report["steps"][-2]["opponent"].startswith("mcts")
    assert re.search(r"decision \d+ \(step \d+\) open", report["steps"][-1]["detail"])
    assert "same process" in report["steps"][-1]["detail"]
    assert all(step["ok"] and step["seconds"] >= 0 for step in report["steps"])
    assert report["usage"]["launches"] >= 1 and report["limits"]["memory_mb"] > 0
    (source / "bot.py").write_text(GOOD_BOT + "# changed\n")  # the uploaded path is never what runs
    assert (stored / "bot.py").read_text() == GOOD_BOT
    again = submit(make_bot(tmp_path / "copy", "ann-bot"), store, area)
    assert again.status == "duplicate" and again.bot_id == result.bot_id and "nothing changed" in again.message


def test_a_new_version_replaces_the_live_one_and_follows_it(tmp_path: Path, store: Store) -> None:
    area = tmp_path / "bots"
    first = submit(make_bot(tmp_path / "v1", "ann-bot"), store, area)
    second = submit(make_bot(tmp_path / "v2", "ann-bot", GOOD_BOT + "# v2\n", version="2"), store, area)
    assert second.status == "live" and second.retired == [f"ann-bot@1 ({first.artifact_hash[:12]})"]
    assert store.bots.get(first.bot_id).status == "retired" and store.bots.get(second.bot_id).parent_id == first.bot_id
    retired = retire(store, "ann-bot")
    assert retired.id == second.bot_id and retired.status == "retired"
    with pytest.raises(SubmissionError, match="no live version"):
        retire(store, "ann-bot")
    with pytest.raises(SubmissionError, match="already retired"):
        retire(store, f"ann-bot@{first.artifact_hash[:8]}")


def test_a_bot_that_crashes_at_start_is_stored_failed_with_its_output_and_what_to_fix(
        tmp_path: Path, store: Store) -> None:
    result = submit(make_bot(tmp_path / "src", "crashy", CRASHING_BOT), store, tmp_path / "bots")
    assert result.status == "failed" and not result.ok
    report = result.preflight
    start = report.steps[0]
    assert start.ok is False and start.reason == "crash" and "exited with status 3" in start.detail
    assert all(step.skipped for step in report.steps[1:])
    assert "FileNotFoundError: weights.bin" in report.output_tail
    assert any("ended before it connected" in fix for fix in report.fix)
    assert store.bots.get(result.bot_id).status == "failed" and store.bots.report(result.bot_id)["ok"] is False
    assert store.bots.find(status="live") == []


def test_an_illegal_action_fails_the_preflight_with_the_rule_it_broke(tmp_path: Path, store: Store) -> None:
    result = submit(make_bot(tmp_path / "src", "liar", ILLEGAL_BOT), store, tmp_path / "bots")
    assert result.status == "failed"
    failed = next(step for step in result.preflight.steps if step.ok is False)
    assert failed.game == "major-general" and failed.seat == 0 and failed.reason == "illegal_action"
    assert any("legal actions" in fix for fix in result.preflight.fix)


def test_a_bot_that_cannot_take_an_early_match_end_fails_the_edge_step(tmp_path: Path, store: Store) -> None:
    result = submit(make_bot(tmp_path / "src", "fragile", FRAGILE_BOT), store, tmp_path / "bots")
    assert result.status == "failed"
    failed = next(step for step in result.preflight.steps if step.ok is False)
    assert failed.name == "edge" and failed.reason == "crash", failed
    assert all(step.ok for step in result.preflight.steps[:-1])
    assert "my last match ended while I was thinking" in result.preflight.output_tail
    assert result.preflight.fix


def test_a_bot_slow_to_start_fails_with_the_start_limit(tmp_path: Path, store: Store) -> None:
    result = submit(make_bot(tmp_path / "src", "sloth", SLOW_STARTER), store, tmp_path / "bots",
                    startup_timeout_s=1.0)
    start = result.preflight.steps[0]
    assert start.ok is False and start.reason == "timeout" and start.seconds < 10
    assert any("within 1 s" in fix for fix in result.preflight.fix)


def test_on_a_server_with_owners_only_the_owner_may_submit_or_retire_a_name(tmp_path: Path, store: Store) -> None:
    area = tmp_path / "bots"
    store.owners.add("ann", hash_token("ann-secret"))
    store.owners.add("bob", hash_token("bob-secret"))
    source = make_bot(tmp_path / "src", "ann-bot")
    with pytest.raises(SubmissionError, match="pass --owner NAME and --token"):
        submit(source, store, area)
    with pytest.raises(SubmissionError, match="wrong token for owner 'ann'"):
        submit(source, store, area, owner="ann", token="bob-secret")
    assert submit(source, store, area, owner="ann", token="ann-secret").status == "live"
    assert store.bots.find("ann-bot")[0].owner == "ann"
    bump = make_bot(tmp_path / "src2", "ann-bot", GOOD_BOT + "#2\n", version="2")
    with pytest.raises(SubmissionError, match="belongs to another owner"):
        submit(bump, store, area, owner="bob", token="bob-secret")
    with pytest.raises(SubmissionError, match="pass --owner"):
        retire(store, "ann-bot", token=None)
    with pytest.raises(SubmissionError, match="wrong token"):
        retire(store, "ann-bot", owner="ann", token="guess")
    assert retire(store, "ann-bot", owner="ann", token="ann-secret").status == "retired"
    assert store.bots.find(status="live") == []
    assert not (area / "ann-bot" / "2").exists() and len(list((area / "ann-bot").iterdir())) == 1


def test_a_broken_archive_gets_a_report_naming_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    """What a new user sees for a broken upload: every problem at once, each where it is and how to fix it."""
    manifest = ('name = "Random"\n'              # 1: upper case
                'version = "1"\n'                 # 2
                'command = ["./run.sh"]\n'        # 3: not in the archive
                'games = ["chess", "major-general"]\n'  # 4: no chess here
                'colour = "red"\n'                # 5: unknown key
                '[limits]\n'                      # 6
                'memory_mb = "lots"\n')           # 7
    archive = tmp_path / "broken.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        for name, data in (("bot/bot.toml", manifest.encode()), ("bot/bot.py", b"print(1)\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            packed.addfile(info, io.BytesIO(data))
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    code = main(["bot", "submit", str(archive), "--db", url, "--bot-store", str(tmp_path / "bots"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["status"] == "rejected" and report["preflight"] is None
    where = {(problem["where"], problem["message"].split(" ")[0]) for problem in report["problems"]}
    assert where == {("bot.toml:1", "name"), ("bot.toml:3", "the"), ("bot.toml:4", "no"), ("bot.toml:5", "unknown"),
                     ("bot.toml:7", "[limits]")}, report["problems"]
    assert all(problem["fix"] for problem in report["problems"])
    assert not (tmp_path / "bots" / "Random").exists() and Store.open(url).bots.find() == []
    # the same archive, unsafe too: its escapes are named before anything else is looked at
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as packed:
        for name in ("bot.toml", "../../etc/cron.d/x"):
            info = tarfile.TarInfo(name)
            info.size = 1
            packed.addfile(info, io.BytesIO(b"x"))
        link = tarfile.TarInfo("key")
        link.type = tarfile.SYMTYPE
        link.linkname = "/root/.ssh/id_rsa"
        packed.addfile(link)
    code = main(["bot", "submit", str(evil), "--db", url, "--bot-store", str(tmp_path / "bots")])
    out = capsys.readouterr().out
    assert code == 1 and "2 problem(s)" in out and "../../etc/cron.d/x" in out and "/root/.ssh/id_rsa" in out


def test_the_cli_shows_each_step_and_lists_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    source = make_bot(tmp_path / "src", "ann-bot")
    assert main(["bot", "submit", str(source), "--db", url, "--bot-store", str(tmp_path / "bots")]) == 0
    out = capsys.readouterr().out
    assert "✓ start in the sandbox" in out and "major-general against random, seat 1" in out
    assert "peak memory" in out and "ann-bot version 1 is live" in out
    assert main(["bot", "versions", "ann-bot", "--db", url, "--json"]) == 0
    [version] = json.loads(capsys.readouterr().out)
    assert version["status"] == "live" and version["preflight"]["ok"] is True and len(version["artifact_hash"]) == 64
    assert main(["bot", "retire", f"ann-bot@{version['artifact_hash'][:10]}", "--db", url]) == 0
    assert "retired ann-bot version 1" in capsys.readouterr().out
    assert main(["bot", "retire", "nobody", "--db", url]) == 1
    assert "no submitted bot named 'nobody'" in capsys.readouterr().err
    assert main(["owner", "add", "ann", "--db", url, "--json"]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    assert len(token) == 48
    assert main(["bot", "submit", str(source), "--db", url, "--bot-store", str(tmp_path / "bots")]) == 1
    assert "this server has owners" in capsys.readouterr().err
    assert main(["owner", "list", "--db", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["owner"] == "ann"
