"""Passwords kept in files, not in URLs: a deployment gives a service its database's and its broker's
password as a file only that service may read (ARENA_DB_PASSWORD_FILE, ARENA_BROKER_PASSWORD_FILE) and the
URL without one (`postgresql+psycopg://arena@postgres/arena`, `redis://redis:6379/0`), so that no password
sits in a compose file, an environment listing or a command line. A URL that carries a password keeps it.
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

DB_PASSWORD_FILE_ENV = "ARENA_DB_PASSWORD_FILE"
BROKER_PASSWORD_FILE_ENV = "ARENA_BROKER_PASSWORD_FILE"


class SecretFileError(OSError):
    """The password file named in the environment cannot be read; the message says which and why."""


def with_password(url: str, file_env: str) -> str:
    """`url` with the password from the file $`file_env` names (unchanged without one, or if it has one)."""
    path = os.environ.get(file_env)
    if not path:
        return url
    parsed = urllib.parse.urlsplit(url)
    if parsed.password is not None or not parsed.hostname:
        return url
    try:
        password = Path(path).read_text().strip()
    except OSError as error:
        raise SecretFileError(f"cannot read the password file {path} (${file_env}): {error.strerror}") from None
    user = urllib.parse.quote(parsed.username or "", safe="")
    host = parsed.netloc.rpartition("@")[2]
    netloc = f"{user}:{urllib.parse.quote(password, safe='')}@{host}"
    return urllib.parse.urlunsplit(parsed._replace(netloc=netloc))
