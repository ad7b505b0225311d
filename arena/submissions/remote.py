"""`arena bot submit --server URL` and `arena login`: the owners' API of a hosted Arena (arena web), from
the command line, with the standard library only (urllib).

The owner's token comes from `--token`, else $ARENA_OWNER_TOKEN, else the credentials file that
`arena login --server URL` writes (mode 0600; $XDG_CONFIG_HOME/arena/credentials.json), keyed by server.
"""

from __future__ import annotations

import io
import json
import os
import ssl
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.submissions.archive import CLUTTER_DIRS, CLUTTER_FILES, CLUTTER_SUFFIXES, kind_of

TOKEN_ENV = "ARENA_OWNER_TOKEN"
POLL_S = 0.3


class RemoteError(Exception):
    """The server refused, or could not be reached; the message is one line to show."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def credentials_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "arena" / "credentials.json"


def normal_server(url: str) -> str:
    """'http://host:port' (no trailing slash, no path); RemoteError for what is not an http(s) URL."""
    parsed = urllib.parse.urlparse(url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise RemoteError(f"{url!r} is not a server address: give it as http://HOST:PORT or https://HOST")
    return f"{parsed.scheme}://{parsed.netloc}"


def saved_token(server: str) -> tuple[str, str] | None:
    """(owner, token) saved for `server` by `arena login`, or None."""
    try:
        data = json.loads(credentials_path().read_text())
    except (OSError, ValueError):
        return None
    entry = data.get("servers", {}).get(normal_server(server))
    return (str(entry["owner"]), str(entry["token"])) if isinstance(entry, dict) and "token" in entry else None


def save_token(server: str, owner: str, token: str) -> Path:
    """Keep the token for `server` in the credentials file (made 0600 before anything is written)."""
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data.setdefault("servers", {})[normal_server(server)] = {"owner": owner, "token": token}
    descriptor = os.open(path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(data, handle, indent=2)
    os.chmod(path.with_suffix(".tmp"), 0o600)
    os.replace(path.with_suffix(".tmp"), path)
    return path


def find_token(server: str, token: str | None) -> str:
    """The token to send: given, else $ARENA_OWNER_TOKEN, else saved by `arena login`; RemoteError if none."""
    if token:
        return token
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV]
    saved = saved_token(server)
    if saved is None:
        raise RemoteError(f"no owner token for {normal_server(server)}: run `arena login --server "
                          f"{normal_server(server)}`, or pass --token (or set {TOKEN_ENV})")
    return saved[1]


class OwnerClient:
    """Calls to one server's owners' API with one owner's token."""

    def __init__(self, server: str, token: str, *, ca_file: str | None = None, timeout_s: float = 60.0) -> None:
        self.server = normal_server(server)
        self.token = token
        self.timeout_s = timeout_s
        self.context = ssl.create_default_context(cafile=ca_file) if self.server.startswith("https") else None

    def call(self, method: str, path: str, body: bytes | io.BufferedReader | None = None,
             headers: dict[str, str] | None = None) -> Any:
        """JSON from `method path`; RemoteError with the server's reason for anything but success."""
        request = urllib.request.Request(f"{self.server}{path}", data=body, method=method,
                                         headers={"Authorization": f"Bearer {self.token}", "Accept": "application/json",
                                                  **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s, context=self.context) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise RemoteError(f"{self.server} answered {error.code}: {_reason(error)}", error.code) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise RemoteError(f"cannot reach {self.server}: {reason}") from None

    def whoami(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.call("GET", "/api/owner")
        return answer

    def upload(self, archive: Path) -> int:
        """Send an archive; the submission id the server gave it."""
        size = archive.stat().st_size
        with open(archive, "rb") as body:
            answer = self.call("POST", f"/api/owner/submissions?filename={urllib.parse.quote(archive.name)}", body,
                               {"Content-Type": "application/octet-stream", "Content-Length": str(size)})
        return int(answer["id"])

    def follow(self, submission_id: int, on_event: Callable[[dict[str, Any]], None],
               timeout_s: float = 3600.0) -> dict[str, Any]:
        """Poll a submission until it is final, handing each progress event over as it comes; its last state."""
        seen = 0
        deadline = time.monotonic() + timeout_s
        while True:
            state: dict[str, Any] = self.call("GET", f"/api/owner/submissions/{submission_id}?since={seen}")
            for event in state.get("events", []):
                on_event(event)
            seen = int(state.get("event_count", seen))
            if state.get("final"):
                return state
            if time.monotonic() > deadline:
                raise RemoteError(f"submission {submission_id} was not done within {timeout_s:.0f} s; follow it at "
                                  f"{self.server}/account")
            time.sleep(POLL_S)


@contextmanager
def as_archive(source: Path) -> Iterator[Path]:
    """`source` as an archive to upload: itself, or (a folder) a .tar.gz of it made here, clutter left out."""
    if kind_of(source) != "folder":
        yield source
        return
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as folder:
        archive = Path(folder) / f"{source.resolve().name or 'bot'}.tar.gz"

        def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
            parts = Path(info.name).parts
            if any(part in CLUTTER_DIRS for part in parts) or Path(info.name).name in CLUTTER_FILES \
                    or info.name.endswith(CLUTTER_SUFFIXES):
                return None
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            return info

        with tarfile.open(archive, "w:gz") as packed:
            packed.add(source, arcname=".", filter=keep)
        yield archive


def _reason(error: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(error.read() or b"{}").get("detail")
    except (ValueError, OSError):
        detail = None
    if isinstance(detail, list):
        return "; ".join(str(item.get("msg", item)) for item in detail)
    return str(detail or error.reason)
