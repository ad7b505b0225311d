"""`arena web` against hostile clients, for real (a server in a process of its own): a client that never finishes
its headers is cut off; connections over the cap per address are closed at once while others are served; a huge
body is refused before it is read (the server's memory does not grow); a form body to a JSON route is a 415 and
the token in it reaches no log; X-Forwarded-For from an untrusted client is ignored (sign-ups stay limited per
address); and a whole upload leaves the owner's token and the database password in no log and no process's
command line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.pg import fresh_schema
from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]


class Web:
    """`arena web` in a process of its own, its output kept."""

    def __init__(self, db: str, tmp: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"web-{self.port}.log"
        self.process = subprocess.Popen(  # (the database URL in the environment, as docs/hosting.md says)
            [sys.executable, "-c", "from arena.cli.main import run; run()", "web", "--port", str(self.port),
             "--bot-store", str(tmp / "bots"), *extra], stdout=self.log.open("w"), stderr=subprocess.STDOUT,
            env={**os.environ, "ARENA_DB": db})
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.url + "/api/games", timeout=2).read()
                return
            except OSError:
                assert self.process.poll() is None and time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.1)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
                source: str = "127.0.0.1") -> tuple[int, dict[str, Any]]:
        with socket.create_connection(("127.0.0.1", self.port), source_address=(source, 0), timeout=30) as conn:
            lines = [f"{method} {path} HTTP/1.1", "Host: arena", "Connection: close",
                     *(f"{key}: {value}" for key, value in (headers or {}).items())]
            if body is not None:
                lines.append(f"Content-Length: {len(body)}")
            conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
        head, _, payload = data.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        try:
            return status, json.loads(payload or b"{}")
        except ValueError:
            return status, {}

    def resident_mb(self) -> float:
        return int(Path(f"/proc/{self.process.pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(15)
        return self.log.read_text()


def with_an_owner(db: str) -> None:
    """A database with one owner, as `arena owner add ann` leaves it (a web server never makes one), made here:
    a process of its own for it took a second or more of each server's start."""
    from arena.store import Store
    from arena.submissions import hash_token

    store = Store.open(db)
    try:
        assert store.owners.add("ann", hash_token("ann-token"))
    finally:
        store.close()


def _start_web(tmp: Path) -> Web:
    db = f"sqlite:///{tmp / 'web.db'}"
    with_an_owner(db)
    return Web(db, tmp, "--header-timeout", "1", "--connections-per-address", "8", "--open-signup")


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One server for the module's tests: each counts against caps and rate limits of addresses of its own (the
    sign-ups and the sign-ins of 127.0.0.1 are one test's alone), and leaves no connection open."""
    server = _start_web(tmp_path_factory.mktemp("web"))
    yield server
    server.stop()


@pytest.fixture
def own_web(tmp_path: Path) -> Any:
    """A server of the test's own (a test that stops it to read its whole log)."""
    server = _start_web(tmp_path)
    yield server
    server.stop()


def closed_by_server(conn: socket.socket, within_s: float = 30.0) -> bool:
    conn.settimeout(within_s)
    try:
        return conn.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def test_a_client_that_never_finishes_its_headers_is_cut_off(web: Web) -> None:
    slow = socket.create_connection(("127.0.0.1", web.port))
    slow.sendall(b"GET /api/games HTTP/1.1\r\nHost: arena\r\n")  # ... and nothing more
    silent = socket.create_connection(("127.0.0.1", web.port))  # sends nothing at all
    try:
        assert closed_by_server(slow) and closed_by_server(silent)
    finally:
        slow.close()
        silent.close()


def test_connections_over_the_cap_per_address_are_closed_and_others_are_served(web: Web) -> None:
    held = [socket.create_connection(("127.0.0.1", web.port), source_address=("127.0.3.9", 0)) for _ in range(8)]
    extra = [socket.create_connection(("127.0.0.1", web.port), source_address=("127.0.3.9", 0)) for _ in range(4)]
    try:
        assert all(closed_by_server(conn, 10) for conn in extra)
        assert web.request("GET", "/api/games")[0] == 200  # another address: served at once
        assert web.request("GET", "/api/games", source="127.0.4.9")[0] == 200
    finally:
        for conn in held + extra:
            conn.close()


def test_a_huge_body_is_refused_before_it_is_read(web: Web) -> None:
    before = web.resident_mb()
    with socket.create_connection(("127.0.0.1", web.port)) as conn:
        conn.sendall(b"POST /api/owner/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 268435456\r\n\r\n" + b"{" * 65536)
        answer = conn.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    for _ in range(3):  # nor does a body without a declared length get far: cut off as it comes
        with socket.create_connection(("127.0.0.1", web.port)) as conn:
            conn.sendall(b"POST /api/owner/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            answer = b""
            try:
                for _chunk in range(64):
                    conn.sendall(b"10000\r\n" + b"x" * 0x10000 + b"\r\n")
                conn.sendall(b"0\r\n\r\n")
                answer = conn.recv(65536)
            except (ConnectionResetError, BrokenPipeError):  # refused while it was still sending: closed on it
                pass
            assert answer == b"" or answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert web.request("GET", "/api/games")[0] == 200
    assert web.resident_mb() - before < 50


def test_a_form_body_to_a_json_route_is_a_415_and_its_token_reaches_no_log(own_web: Web) -> None:
    web = own_web
    secret = "form-secret-token-3b1c9"
    status, answer = web.request("POST", "/api/owner/session", f"token={secret}".encode(),
                                 {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 415 and "JSON" in answer["detail"] and secret not in json.dumps(answer)
    status, answer = web.request("POST", "/api/owner/session", b'{"token": "%s"' % secret.encode(),
                                 {"Content-Type": "application/json"})
    assert status == 422 and secret not in json.dumps(answer)  # (what was wrong, never what was sent)
    assert secret not in web.stop()


def test_x_forwarded_for_from_an_untrusted_client_is_ignored(web: Web) -> None:
    answers = [web.request("POST", "/api/signup", json.dumps({"name": f"owner-{n}"}).encode(),
                           {"Content-Type": "application/json", "X-Forwarded-For": f"203.0.113.{n}"})[0]
               for n in range(5)]
    assert answers[:3] == [201, 201, 201] and answers[3:] == [429, 429]  # 3 an hour from the one real address


def test_sign_in_attempts_are_limited_per_address(web: Web) -> None:
    answers = [web.request("POST", "/api/owner/session", b'{"token": "wrong"}',
                           {"Content-Type": "application/json"}, source="127.0.5.9")[0] for _ in range(12)]
    assert answers[:8] == [401] * 8 and answers[8:] == [429] * 4  # (8 wrong tokens free, then a pause)
    assert web.request("POST", "/api/owner/session", b'{"token": "wrong"}',
                       {"Content-Type": "application/json"})[0] == 401  # another address has its own budget


def test_wrong_owner_tokens_pause_the_guessing_address_alone_and_not_for_good(tmp_path: Path) -> None:
    """Owner tokens (an operator's among them) sent as 'Authorization: Bearer' are counted per address as the
    referee counts guesses of its tokens: past 8 wrong ones the address waits (429, even with the right token),
    another address of its network signs in as before, and the pause ends (1 s at first)."""
    db = f"sqlite:///{tmp_path / 'web.db'}"
    added = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "owner", "add", "ann",
                            "--operator", "--db", db, "--json"], capture_output=True, text=True)
    token = json.loads(added.stdout)["token"]
    server = Web(db, tmp_path)
    try:
        def as_owner(bearer: str, source: str) -> int:
            return server.request("GET", "/api/owner", b"", {"Authorization": f"Bearer {bearer}"}, source=source)[0]

        guesses = [as_owner(f"guess-{n}", "127.0.6.1") for n in range(9)]
        assert guesses == [401] * 8 + [429], guesses  # the 9th wrong one: shut out, and told so
        assert as_owner(token, "127.0.6.1") == 429  # shut is shut
        assert as_owner(token, "127.0.6.2") == 200  # the operator at another address of the same /24
        deadline = time.monotonic() + 30.0
        while as_owner(token, "127.0.6.1") != 200:  # the pause ends: no lockout for good
            assert time.monotonic() < deadline, "still shut out after 30 s (the first pause is 1 s)"
            time.sleep(0.2)
    finally:
        server.stop()


def _visible_to_everyone() -> str:
    """Every process's command line, as `ps` shows any user."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                continue
    return "\n".join(found)


def test_a_whole_upload_leaves_the_token_and_the_database_password_in_no_log_and_no_command_line(
        tmp_path: Path) -> None:
    password = "pw-4f1e9c0d7b"
    with fresh_schema(password) as db:
        made = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "owner", "add", "ann",
                               "--json"], capture_output=True, text=True, env={**os.environ, "ARENA_DB": db})
        assert made.returncode == 0, made.stderr
        token = json.loads(made.stdout)["token"]
        web = Web(db, tmp_path, "--sandbox", "none")
        seen = [_visible_to_everyone()]
        try:
            archive = tmp_path / "bot.tar.gz"
            folder = tmp_path / "upload-bot"
            folder.mkdir()
            (folder / "bot.toml").write_text('name = "upload-bot"\nversion = "1"\ncommand = ["{python}", "bot.py"]\n'
                                             'games = ["major-general"]\n')
            (folder / "bot.py").write_text((ROOT / "arena" / "bots" / "random" / "bot.py").read_text())
            with tarfile.open(archive, "w:gz") as tar:
                for path in folder.iterdir():
                    tar.add(path, arcname=path.name)
            status, answer = web.request("POST", "/api/owner/submissions?filename=bot.tar.gz", archive.read_bytes(),
                                         {"Authorization": f"Bearer {token}"})
            assert status == 202, answer
            deadline = time.monotonic() + 240
            while True:  # the worker and the bot run meanwhile: look at every command line as it goes
                seen.append(_visible_to_everyone())
                _status, state = web.request("GET", answer["status_url"], headers={"Authorization": f"Bearer {token}"})
                if state.get("final"):
                    break
                assert time.monotonic() < deadline, state
                time.sleep(0.2)
            assert state["status"] in ("live", "failed"), state
        finally:
            log = web.stop()
        for text in seen + [log]:
            assert password not in text and token not in text
