"""Passwords from files (ARENA_DB_PASSWORD_FILE, ARENA_BROKER_PASSWORD_FILE): put into the URL where it has
none, quoted; never over a password the URL carries; an unreadable file one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.main import main
from arena.secret_files import BROKER_PASSWORD_FILE_ENV, DB_PASSWORD_FILE_ENV, SecretFileError, with_password


def test_the_password_goes_into_a_url_without_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "password"
    secret.write_text("p@ss/w:rd%\n")
    monkeypatch.setenv(DB_PASSWORD_FILE_ENV, str(secret))
    monkeypatch.setenv(BROKER_PASSWORD_FILE_ENV, str(secret))
    assert with_password("postgresql+psycopg://arena@postgres:5432/arena", DB_PASSWORD_FILE_ENV) == \
        "postgresql+psycopg://arena:p%40ss%2Fw%3Ard%25@postgres:5432/arena"
    assert with_password("redis://redis:6379/0", BROKER_PASSWORD_FILE_ENV) == "redis://:p%40ss%2Fw%3Ard%25@redis:6379/0"
    assert with_password("redis://:given@redis:6379/0", BROKER_PASSWORD_FILE_ENV) == "redis://:given@redis:6379/0"
    assert with_password("sqlite:///results/arena.db", DB_PASSWORD_FILE_ENV) == "sqlite:///results/arena.db"
    monkeypatch.delenv(DB_PASSWORD_FILE_ENV)
    assert with_password("postgresql://arena@h/a", DB_PASSWORD_FILE_ENV) == "postgresql://arena@h/a"


def test_an_unreadable_password_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(DB_PASSWORD_FILE_ENV, str(tmp_path / "missing"))
    with pytest.raises(SecretFileError, match="cannot read the password file"):
        with_password("postgresql://arena@127.0.0.1/test", DB_PASSWORD_FILE_ENV)
    assert main(["leaderboard", "--db", "postgresql+psycopg://arena@127.0.0.1:5432/test"]) != 0
    err = capsys.readouterr().err
    assert "cannot read the password file" in err and "Traceback" not in err and "missing" in err
