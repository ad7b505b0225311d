"""A database that cannot be used is one line naming it and the problem, a non-zero status, and the file
left exactly as it was: corrupt, missing (commands that only read never make one), not Arena's, written
by a newer Arena, locked by another program, in a read-only folder, or a PostgreSQL server that does not
answer. Every command that opens the store is checked on a missing database."""

from __future__ import annotations

import gc
import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.cli.main import main
from arena.store import Store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.err


def one_line(err: str, *words: str) -> None:
    assert "Traceback" not in err and err.startswith("arena: error: ") and err.strip().count("\n") == 0, err
    for word in words:
        assert word in err, err


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file in the folder with a hash of its bytes."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


READ_COMMANDS = [
    ["leaderboard"], ["leaderboard", "--all-versions"], ["bot", "list"], ["bot", "show", "random"],
    ["bot", "versions", "random"], ["owner", "list"], ["tournament", "list"], ["tournament", "show", "1"],
    ["tournament", "export", "1"], ["ladder", "status"], ["rerate", "major-general"], ["tournament", "resume", "1"],
    ["bot", "retire", "random@1"], ["owner", "token", "someone"], ["web", "--port", "1"],
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_commands_that_read_never_make_a_database(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  command: list[str]) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "x.db"
    code, err = run(capsys, *command, "--db", f"sqlite:///{missing}")
    assert code != 0
    one_line(err, str(missing), "no database at")
    assert not (tmp_path / "no").exists()


def test_a_corrupt_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    path.write_bytes(b"this is not what you think it is\x00" * 200)
    before = fingerprint(tmp_path)
    for command in (["leaderboard"], ["tournament", "run", "major-general", "--bots", "random,greedy"]):
        code, err = run(capsys, *command, "--db", f"sqlite:///{path}")
        assert code != 0
        one_line(err, str(path), "not an SQLite database")
    assert fingerprint(tmp_path) == before  # no -wal, no -shm, the bytes as they were


def test_a_database_that_is_not_arenas(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE recipes (name TEXT)")
    before = fingerprint(tmp_path)
    code, err = run(capsys, "bot", "list", "--db", f"sqlite:///{path}")
    assert code != 0
    one_line(err, str(path), "not Arena's", "recipes")
    assert fingerprint(tmp_path) == before


def test_a_database_of_a_newer_schema(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    store = Store.open(f"sqlite:///{path}")
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0099_from_the_future'"))
    store.close()
    before = fingerprint(tmp_path)
    for command in (["leaderboard"], ["tournament", "run", "major-general", "--bots", "random,greedy"]):
        code, err = run(capsys, *command, "--db", f"sqlite:///{path}")
        assert code != 0
        one_line(err, str(path), "newer Arena", "0099_from_the_future", "upgrade Arena")
    assert fingerprint(tmp_path) == before


def test_a_locked_database(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store.open(f"sqlite:///{path}").close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the file (a copy, a long write)
    try:
        code, err = run(capsys, "leaderboard", "--db", f"sqlite:///{path}")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code != 0
    one_line(err, str(path), "locked by another program")


def test_a_read_only_folder(tmp_path: Path) -> None:
    """The folder mounted read-only (bubblewrap), so that even root cannot write beside the file."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("bubblewrap is not installed (make test installs it): it mounts the folder read-only")
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "arena.db"
    store = Store.open(f"sqlite:///{path}")
    store.close()  # (WAL checkpointed: only the database file is left)
    before = fingerprint(folder)
    command = [bwrap, "--bind", "/", "/", "--ro-bind", str(folder), str(folder), "--dev", "/dev", "--proc", "/proc",
               sys.executable, "-c", "from arena.cli.main import run; run()", "tournament", "run", "major-general",
               "--bots", "random,greedy", "--rounds", "1", "--db", f"sqlite:///{path}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    one_line(done.stderr, str(path), "read-only")
    assert fingerprint(folder) == before


def test_a_postgresql_server_that_does_not_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(capsys, "leaderboard", "--db", "postgresql://arena:secret@127.0.0.1:1/arena")
    assert code != 0
    warning, _, error = err.partition("\n")
    assert "password is on the command line" in warning and "ARENA_DB" in warning  # (it is, here: ps shows it)
    one_line(error, "127.0.0.1:1")
    assert "secret" not in err  # the password stays hidden


DAMAGED_COMMANDS = [
    ["tournament", "show", "1"], ["tournament", "list"], ["bot", "show", "random"], ["ladder", "status"],
    ["rerate", "major-general"], ["tournament", "resume", "1"], ["leaderboard"],
    ["tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "1"],
]


@pytest.fixture(scope="module")
def played_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store holding a played tournament (the WAL checkpointed into the file)."""
    path = tmp_path_factory.mktemp("played") / "arena.db"
    assert main(["tournament", "run", "major-general", "--bots", "random,greedy,scripted", "--rounds", "4",
                 "--db", f"sqlite:///{path}"]) == 0
    return path


def damage_middle_pages(path: Path) -> None:
    """Overwrite the pages from the fifth to the middle of the file with garbage (the header, page 1, intact)."""
    with sqlite3.connect(path) as connection:
        page_size, pages = connection.execute("PRAGMA page_size").fetchone()[0], \
            connection.execute("PRAGMA page_count").fetchone()[0]
    connection.close()
    assert pages >= 40, pages
    with open(path, "r+b") as handle:
        handle.seek(page_size * 4)
        handle.write(b"\xab" * page_size * (pages // 2 - 4))


def damage_the_schema_with_bytes_that_are_not_text(path: Path) -> None:
    """Break a table's entry in the schema (page 1): its name made a byte that is not UTF-8, its SQL cut short. SQLite's
    error then quotes that name, and Python cannot read the error itself (UnicodeDecodeError, not DatabaseError)."""
    data = bytearray(path.read_bytes())
    sql = data.index(b"CREATE TABLE")
    entry = data.rindex(b"table", 0, sql)  # the entry: "table", its name, its table's name, its root page, its SQL
    data[entry + len(b"table")] = 0xA9
    data[sql + len(b"CREATE TABLE ")] = 0x00
    path.write_bytes(bytes(data))


def test_a_schema_whose_damage_is_not_even_text_is_refused_in_words(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path, played_store: Path) -> None:
    path = tmp_path / "arena.db"
    shutil.copyfile(played_store, path)
    damage_the_schema_with_bytes_that_are_not_text(path)
    before = fingerprint(tmp_path)
    code, err = run(capsys, "leaderboard", "--db", f"sqlite:///{path}")
    assert code == 2
    one_line(err, str(path), "is damaged", "quick_check", "not text", "nothing was written")
    assert fingerprint(tmp_path) == before


@pytest.mark.parametrize("command", DAMAGED_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_damaged_pages_are_refused_before_anything_is_written(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              played_store: Path, command: list[str]) -> None:
    path = tmp_path / "arena.db"
    shutil.copyfile(played_store, path)
    damage_middle_pages(path)
    before = fingerprint(tmp_path)
    code, err = run(capsys, *command, "--db", f"sqlite:///{path}")
    assert code == 2
    one_line(err, str(path), "is damaged", "quick_check", "nothing was written", f"sqlite3 {path} .recover")
    assert fingerprint(tmp_path) == before  # no "running" tournament added, no -wal, no -shm


def test_a_command_closes_its_store_as_it_returns(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 played_store: Path) -> None:
    """Each command's connections are released as it ends, not whenever the garbage collector comes to them: no
    -wal or -shm is left beside the file (one left open was closed by a later command's collection, mid-way)."""
    path = tmp_path / "arena.db"
    shutil.copyfile(played_store, path)
    gc.disable()  # (what closes the store is the command, not a collection)
    try:
        for command in (["leaderboard"], ["tournament", "list"],
                        ["tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "1"]):
            assert run(capsys, *command, "--db", f"sqlite:///{path}")[0] == 0
            assert sorted(fingerprint(tmp_path)) == ["arena.db", "arena.db-checked"], command
    finally:
        gc.enable()


def test_a_file_found_good_is_not_checked_again_until_it_changes(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                 played_store: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The page check reads every page: a file unchanged since it was last found good is not read again; a
    write to it since (here, damage) is found before anything is written."""
    from arena.store import db

    checks: list[str] = []
    real_check = db._quick_check
    monkeypatch.setattr(db, "_quick_check", lambda engine: checks.append(engine.url.database) or real_check(engine))
    path = tmp_path / "arena.db"
    shutil.copyfile(played_store, path)
    assert run(capsys, "leaderboard", "--db", f"sqlite:///{path}")[0] == 0
    assert checks == [str(path)] and db.checked_marker(path).exists()
    assert run(capsys, "tournament", "list", "--db", f"sqlite:///{path}")[0] == 0
    assert checks == [str(path)]  # unchanged since: not read again
    damage_middle_pages(path)
    before = fingerprint(tmp_path)
    code, err = run(capsys, "tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "1",
                    "--db", f"sqlite:///{path}")
    assert code == 2 and len(checks) == 2
    one_line(err, str(path), "is damaged", "quick_check", "nothing was written")
    assert fingerprint(tmp_path) == before
