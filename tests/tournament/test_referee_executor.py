"""Bot programs in a tournament: matches refereed by the embedded referee server, stored like any other."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store import Store

pytest.importorskip("grpc", reason="the referee server needs grpcio")
BOTS = Path(__file__).resolve().parents[2] / "bots"


@pytest.mark.skipif(not (BOTS / "random" / "bot.toml").is_file(), reason="no bots/random program in this checkout")
def test_bot_programs_play_a_round_robin_through_the_referee(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    program = str(BOTS / "random")
    code = main(["tournament", "run", "major-general", "--bots", f"a={program},b={program}", "--rounds", "1",
                 "-j", "2", "--seed", "3", "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)["tournaments"][0]
    assert report["finished"] and report["stored"] == 2
    store = Store.open(url)
    assert {bot["kind"] for bot in store.bots()} == {"program"}
    matches = store.tournament_matches(report["id"])
    assert [m["bots"] for m in matches][0] == list(reversed([m["bots"] for m in matches][1]))
    record = MatchRecord.from_jsonl(gzip.decompress(store.record(matches[0]["id"])[1]).decode())
    assert [p.kind for p in record.players] == ["program", "program"]
    replay(record)
    store.close()


def test_agents_and_programs_do_not_mix(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["tournament", "run", "major-general", "--bots", f"random,p={BOTS / 'random'}", "--rounds", "1",
                 "--db", f"sqlite:///{tmp_path / 'arena.db'}"])
    err = capsys.readouterr().err
    assert code != 0 and "cannot share a tournament" in err and err.count("\n") == 1
