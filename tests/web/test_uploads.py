"""Owners over HTTP: uploads answered at once and pre-flighted by a worker process of their own, with
their progress; the limits (size cut off while streaming, uploads per hour, live bots); tokens,
sessions and CSRF; faults only their owner sees; open sign-up; remote bot registration; and
`arena bot submit --server` / `arena login` from the command line against a real `arena web`."""

from __future__ import annotations

import io
import json
import os
import stat
import shutil
import subprocess
import sys
import tempfile
import tarfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.cli.main import main
from arena.ratings.policy import DEFAULT_POLICY
from arena.referee.clock import ClockSettings
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.submissions import hash_token
from arena.tournament.bots import BotSpec
from arena.tournament.jobs import MatchJob, SeatBot
from arena.tournament.referee_executor import RefereeExecutor
from arena.web.app import WebSettings, create_app
from arena.web.uploads import OwnerLimits
from tests.processes import free_port
from tests.submissions.test_submit import GOOD_BOT, make_bot

ANN, BOB = "ann-token-0123456789", "bob-token-0123456789"


def packed(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=".")
    return buffer.getvalue()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[TestClient, Store, Path]]:
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    assert store.owners.add("ann", hash_token(ANN)) and store.owners.add("bob", hash_token(BOB))
    bots = tmp_path / "bots"
    settings = WebSettings(bot_store=str(bots), owner_limits=OwnerLimits(uploads_per_hour=5, live_bots=2,
                                                                         archive_bytes=256 * 1024),
                           preflight_workers=2, open_signup=True, signups_per_hour=2)
    with TestClient(create_app(store, settings), base_url="http://arena.test") as client:
        yield client, store, bots
    store.close()


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def upload(client: TestClient, token: str, data: bytes, name: str = "bot.tar.gz") -> Any:
    return client.post(f"/api/owner/submissions?filename={name}", content=data, headers=bearer(token))


def finished(client: TestClient, token: str, submission: int, timeout_s: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        state = client.get(f"/api/owner/submissions/{submission}", headers=bearer(token)).json()
        if state["final"]:
            return state  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, state
        time.sleep(0.1)


def test_an_upload_is_answered_at_once_and_its_preflight_followed_to_live(
        site: tuple[TestClient, Store, Path], tmp_path: Path) -> None:
    client, store, bots = site
    answer = upload(client, ANN, packed(make_bot(tmp_path / "b", "ann-bot")))
    assert answer.status_code == 202, answer.text
    submission = answer.json()["id"]
    assert answer.headers["location"] == f"/api/owner/submissions/{submission}"
    with client.stream("GET", f"/api/owner/submissions/{submission}/events", headers=bearer(ANN)) as events:
        text = "".join(events.iter_text())
    progress = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert any(item.get("kind") == "step" for item in progress[:-1])
    end = progress[-1]
    assert end["status"] == "live" and end["result"]["name"] == "ann-bot", end
    assert end["result"]["preflight"]["ok"] is True
    bot = client.get("/api/bots/ann-bot").json()
    assert [v["status"] for v in bot["versions"]] == ["live"] and bot["owner"] == "ann"
    assert "output_tail" not in bot["versions"][0]["preflight"]  # the bot's own words: its owner's only
    assert not any((bots / ".uploads").iterdir())  # the upload is gone once handled
    mine = client.get("/api/owner/bots", headers=bearer(ANN)).json()
    assert [b["name"] for b in mine["bots"]] == ["ann-bot"] and "output_tail" in mine["bots"][0]["versions"][0][
        "preflight"]


def test_a_broken_archive_names_every_problem_and_stores_nothing(site: tuple[TestClient, Store, Path],
                                                                 tmp_path: Path) -> None:
    client, store, _bots = site
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, kind, link in (("bot.toml", tarfile.REGTYPE, ""), ("/etc/evil", tarfile.REGTYPE, ""),
                                 ("../up.py", tarfile.REGTYPE, ""), ("out", tarfile.SYMTYPE, "/etc/passwd"),
                                 ("null", tarfile.CHRTYPE, "")):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, link
            data = b'name = "x"\ncommand = ["{python}", "bot.py"]\n' if name == "bot.toml" else b""
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    state = finished(client, ANN, upload(client, ANN, buffer.getvalue()).json()["id"])
    assert state["status"] == "rejected"
    named = {problem["where"] for problem in state["result"]["problems"]}
    assert named == {"archive: /etc/evil", "archive: ../up.py", "archive: out", "archive: null"}
    assert not store.bots.find("x")


def test_a_fake_zip_is_named_by_the_owners_own_file_name(site: tuple[TestClient, Store, Path]) -> None:
    """Not a zip, uploaded as one: the problem names the file the owner sent, not the server's copy of it."""
    client, _store, bots = site
    state = finished(client, ANN, upload(client, ANN, b"these are not the bytes of a zip\n" * 20, "my-bot.zip").json()["id"])
    assert state["status"] == "rejected"
    [problem] = state["result"]["problems"]
    assert problem["where"] == "my-bot.zip" and problem["message"].startswith("cannot be read: "), problem
    assert state["result"]["source"] == "my-bot.zip"
    assert ".uploads" not in json.dumps(state) and str(bots) not in json.dumps(state)


def test_the_archive_cap_holds_by_header_and_while_streaming(site: tuple[TestClient, Store, Path]) -> None:
    client, store, bots = site
    big = os.urandom(300 * 1024)
    answer = upload(client, ANN, big)
    assert answer.status_code == 413 and "over the 262144 bytes" in answer.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: cut off as it comes
        for _ in range(64):
            yield os.urandom(64 * 1024)

    answer = client.post("/api/owner/submissions?filename=bot.zip", content=chunks(), headers=bearer(ANN))
    assert answer.status_code == 413 and "cut off as it came" in answer.json()["detail"]
    assert client.get("/api/owner/submissions", headers=bearer(ANN)).json()["submissions"] == []
    assert not list((bots / ".uploads").iterdir())


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic YTpi"}])
def test_no_token_or_a_wrong_one_stores_nothing(site: tuple[TestClient, Store, Path], tmp_path: Path,
                                                headers: dict[str, str]) -> None:
    client, store, bots = site
    answer = client.post("/api/owner/submissions?filename=bot.tar.gz",
                         content=packed(make_bot(tmp_path / "b", "nobody-bot")), headers=headers)
    assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
    assert not (bots / ".uploads").exists() or not list((bots / ".uploads").iterdir())
    assert not store.bots.find("nobody-bot")


def test_uploads_per_hour_and_file_kinds(site: tuple[TestClient, Store, Path]) -> None:
    client, _store, _bots = site
    assert upload(client, BOB, b"PK", name="bot.rar").status_code == 415
    for _ in range(5):
        assert upload(client, BOB, b"not really a tarball").status_code == 202
    answer = upload(client, BOB, b"one too many")
    assert answer.status_code == 429 and "5 uploads in the last hour" in answer.json()["detail"]
    assert answer.headers["retry-after"]


def test_live_bots_quota_refuses_a_new_name_not_a_new_version(site: tuple[TestClient, Store, Path],
                                                               tmp_path: Path) -> None:
    client, _store, _bots = site
    for index, name in enumerate(("b1", "b2")):
        state = finished(client, ANN, upload(client, ANN, packed(make_bot(tmp_path / name, f"ann-{name}"))).json()["id"])
        assert state["status"] == "live", state
    third = finished(client, ANN, upload(client, ANN, packed(make_bot(tmp_path / "b3", "ann-b3"))).json()["id"])
    assert third["status"] == "rejected" and "2 live bots, the most" in third["result"]["message"]
    newer = make_bot(tmp_path / "b1v2", "ann-b1", GOOD_BOT + "# v2\n", version="2")
    again = finished(client, ANN, upload(client, ANN, packed(newer)).json()["id"])
    assert again["status"] == "live", again


def test_sessions_need_their_csrf_token_and_end_on_sign_out(site: tuple[TestClient, Store, Path]) -> None:
    client, _store, _bots = site
    assert client.post("/api/owner/session", json={"token": "wrong"}).status_code == 401
    signed = client.post("/api/owner/session", json={"token": ANN})
    assert signed.status_code == 200
    cookie = signed.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    csrf = signed.json()["csrf"]
    assert client.get("/api/owner/session").json()["owner"] == "ann"
    register = "/api/owner/remote-bots"
    assert client.post(register, json={"name": "far-away"}).status_code == 403  # no CSRF token
    assert client.post(register, json={"name": "far-away"}, headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert client.post(register, json={"name": "far-away"}, headers={"X-CSRF-Token": csrf,
                                                                      "Origin": "http://evil.test"}).status_code == 403
    made = client.post(register, json={"name": "far-away"}, headers={"X-CSRF-Token": csrf})
    assert made.status_code == 201 and len(made.json()["token"]) == 48
    assert client.post(register, json={"name": "far-away"}, headers={"X-CSRF-Token": csrf}).status_code == 409
    assert client.post(register, json={"name": "Bad Name"}, headers={"X-CSRF-Token": csrf}).status_code == 422
    assert client.delete("/api/owner/session", headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.get("/api/owner/session").status_code == 401


def test_a_new_token_ends_the_old_one_and_every_session(site: tuple[TestClient, Store, Path]) -> None:
    client, _store, _bots = site
    csrf = client.post("/api/owner/session", json={"token": BOB}).json()["csrf"]
    rotated = client.post("/api/owner/token", headers=bearer(BOB))
    assert rotated.status_code == 200
    assert client.get("/api/owner", headers=bearer(BOB)).status_code == 401
    assert client.get("/api/owner", headers=bearer(rotated.json()["token"])).status_code == 200
    assert client.get("/api/owner/session", headers={"X-CSRF-Token": csrf}).status_code == 401


def test_fault_evidence_is_its_owners_alone(site: tuple[TestClient, Store, Path], tmp_path: Path) -> None:
    """A version of ann's that crashes: the public record keeps none of its output; ann sees it, bob does not."""
    client, store, _bots = site
    crasher = make_bot(tmp_path / "crasher", "ann-crash", "import sys\nprint('my secret debug line', file=sys.stderr)\n"
                       "sys.exit(3)\n")
    state = finished(client, ANN, upload(client, ANN, packed(crasher)).json()["id"])
    assert state["status"] == "failed"  # it crashes at start: kept with its report, never on a ladder
    [bot] = store.bots.find("ann-crash")
    opponent = store.bots.register(BotSpec("random", "random").identity())
    tournament = store.tournaments.create(name="t", game="major-general", pool="major-general",
                                          options={}, format="round-robin", seed=1, rounds=1, settings={},
                                          bot_ids=[bot.id, opponent])
    job = MatchJob(tournament, 0, 0, 0, "major-general", {}, 1,
                   (SeatBot(bot.id, "ann-crash", "1", PlayerKind.PROGRAM, bot.spec),
                    SeatBot(opponent, "random", "1", PlayerKind.AGENT, "random")), pool="major-general")
    with RefereeExecutor(1, clock=ClockSettings(move_time_s=2.0, bank_s=2.0, grace_s=1.0)) as executor:
        [played] = list(executor.run([job]))
    store.matches.save([played], DEFAULT_POLICY)
    [match] = store.matches.of_tournament(tournament)
    assert match.reason == "crash" and match.offender == 0
    public = client.get(f"/api/matches/{match.id}/record").text
    assert "my secret debug line" not in public and json.loads(public.splitlines()[0])["type"] == "header"
    assert client.get("/api/owner/bots/ann-crash/faults", headers=bearer(BOB)).status_code == 404
    faults = client.get("/api/owner/bots/ann-crash/faults", headers=bearer(ANN)).json()["faults"]
    assert faults and "my secret debug line" in faults[0]["output"] and faults[0]["reason"] == "crash"
    # the match page's evidence: ann's seat for ann, nothing for bob, every seat for an operator, 401 for nobody
    url = f"/api/owner/matches/{match.id}/evidence"
    mine = client.get(url, headers=bearer(ANN)).json()
    assert [seat["bot"] for seat in mine["seats"]] == ["ann-crash"] and not mine["operator"]
    assert "my secret debug line" in mine["seats"][0]["evidence"]["output"]
    assert client.get(url, headers=bearer(BOB)).json()["seats"] == []
    assert client.get(url).status_code == 401
    assert store.owners.add("ops", hash_token("ops-token-0123456789"), operator=True)
    everything = client.get(url, headers=bearer("ops-token-0123456789")).json()
    assert everything["operator"] and [seat["bot"] for seat in everything["seats"]] == ["ann-crash", "random"]
    assert "my secret debug line" in everything["seats"][0]["evidence"]["output"]
    assert everything["seats"][1]["evidence"] is None
    assert client.get("/api/owner/matches/99999/evidence", headers=bearer(ANN)).status_code == 404


def test_open_sign_up_is_rate_limited_per_address(site: tuple[TestClient, Store, Path]) -> None:
    client, store, _bots = site
    first = client.post("/api/signup", json={"name": "cara"})
    assert first.status_code == 201 and len(first.json()["token"]) == 48
    assert client.post("/api/signup", json={"name": "cara"}).status_code == 409  # taken (counts as a try)
    assert client.post("/api/signup", json={"name": "dan"}).status_code == 429
    assert client.get("/api/owner", headers=bearer(first.json()["token"])).json()["owner"] == "cara"


# --- the command line against a real server ---------------------------------------------------------

@pytest.fixture
def web_server(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """`arena web` in a process of its own, with an owner; (its URL, the owner's token, the database)."""
    database = tmp_path / "arena.db"
    out = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "owner", "add", "ann",
                          "--db", str(database), "--json"], capture_output=True, text=True, check=True, cwd=tmp_path)
    token = json.loads(out.stdout)["token"]
    port = free_port()
    log = (tmp_path / "web.log").open("w")
    server = subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "web", "--port",
                               str(port), "--db", str(database), "--bot-store", str(tmp_path / "store")],
                              stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            get_json(f"{url}/api/games")
            break
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "web.log").read_text()
            time.sleep(0.1)
    try:
        yield url, token, database
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_arena_bot_submit_to_a_server_goes_live(web_server: tuple[str, str, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    url, token, _database = web_server
    folder = make_bot(tmp_path / "cli-bot", "cli-bot")
    code = main(["bot", "submit", str(folder), "--server", url, "--owner", "ann", "--token", token, "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["status"] == "live" and document["name"] == "cli-bot", document
    assert document["preflight"]["ok"] is True and document["submission"]["server"] == url
    assert [v["status"] for v in get_json(f"{url}/api/bots/cli-bot")["versions"]] == ["live"]
    code = main(["bot", "submit", str(folder), "--server", url, "--owner", "ann", "--token", "wrong"])
    err = capsys.readouterr().err
    assert code == 1 and "answered 401" in err and "Traceback" not in err
    code = main(["bot", "submit", str(folder), "--server", url, "--owner", "bob", "--token", token])
    assert code == 1 and "not 'bob'" in capsys.readouterr().err


def test_arena_login_keeps_the_token_for_the_server(web_server: tuple[str, str, Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    url, token, _database = web_server
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARENA_OWNER_TOKEN", raising=False)
    assert main(["login", "--server", url, "--token", "wrong"]) == 1
    assert main(["login", "--server", url + "/", "--token", token]) == 0
    credentials = tmp_path / "config" / "arena" / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert json.loads(credentials.read_text())["servers"][url] == {"owner": "ann", "token": token}
    capsys.readouterr()
    code = main(["bot", "submit", str(make_bot(tmp_path / "saved", "saved-bot")), "--server", url, "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["status"] == "live"


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(),
                    reason="runs the web as another user: needs root and setpriv (util-linux)")
def test_preflights_in_a_service_of_their_own_and_a_web_that_cannot_write_the_bots_store(
        capsys: pytest.CaptureFixture[str]) -> None:
    """As the docker deployment runs them: `arena web --preflight-workers 0` as a user who may not write the bots'
    store (only the uploads folder), `arena preflights` as the one who may; an upload still goes live."""
    tmp_path = Path(tempfile.mkdtemp(prefix="arena-split-"))  # (pytest's own folders are root's alone)
    tmp_path.chmod(0o755)
    try:
        run_split(tmp_path, capsys)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def run_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shared = tmp_path / "shared"  # the database and the uploads: both services write them
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    uploads = shared / "uploads"
    uploads.mkdir(mode=0o777)
    uploads.chmod(0o777)
    database = shared / "arena.db"
    store = tmp_path / "store"  # the preflights' alone (root's, 0755): the web only reads it
    store.mkdir(mode=0o755)
    out = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "owner", "add", "ann",
                          "--db", str(database), "--json"], capture_output=True, text=True, check=True, cwd=tmp_path)
    token = json.loads(out.stdout)["token"]
    for path in shared.glob("arena.db*"):
        path.chmod(0o666)
    port = free_port()
    arena = [sys.executable, "-c", "from arena.cli.main import run; run()"]
    web_log, preflight_log = (tmp_path / "web.log").open("w"), (tmp_path / "preflights.log").open("w")
    web = subprocess.Popen(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *arena, "web",
                            "--port", str(port), "--db", str(database), "--bot-store", str(store), "--uploads",
                            str(uploads), "--preflight-workers", "0"],
                           stdout=web_log, stderr=subprocess.STDOUT, cwd="/", env={**os.environ, "HOME": "/"})
    preflights = subprocess.Popen([*arena, "preflights", "--db", str(database), "--bot-store", str(store)],
                                  stdout=preflight_log, stderr=subprocess.STDOUT, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                get_json(f"{url}/api/games")
                break
            except OSError:
                assert web.poll() is None and time.monotonic() < deadline, (tmp_path / "web.log").read_text()
                time.sleep(0.1)
        folder = make_bot(tmp_path / "split-bot", "split-bot")
        code = main(["bot", "submit", str(folder), "--server", url, "--owner", "ann", "--token", token, "--json"])
        captured = capsys.readouterr()
        assert code == 0, (captured, (tmp_path / "web.log").read_text(), (tmp_path / "preflights.log").read_text())
        document = json.loads(captured.out)
        assert document["status"] == "live", document
        assert [v["status"] for v in get_json(f"{url}/api/bots/split-bot")["versions"]] == ["live"]
        assert (store / "split-bot").is_dir() and not any(uploads.iterdir())  # stored by the preflights; taken
        assert (store / "split-bot").stat().st_uid == 0  # (not by the web's user)
    finally:
        for process in (web, preflights):
            process.terminate()
            process.wait(timeout=30)
        web_log.close()
        preflight_log.close()
