"""Unpacking a submission: every unsafe entry is refused by name, the caps hold whatever the headers say,
and a good upload becomes a folder of plain files (and links that stay inside it)."""

from __future__ import annotations

import io
import os
import random
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.submissions.archive import SubmissionLimits, unpack

MANIFEST = b'name = "ok-bot"\ncommand = ["{python}", "bot.py"]\n'


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(info)
    return path


def _info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = mode
    return info


def test_a_good_tarball_in_a_single_top_folder_unpacks_as_the_bots_folder(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "bot.tar.gz", [
        (_info("my-bot/", tarfile.DIRTYPE, mode=0o755), None),
        (_info("my-bot/bot.toml"), MANIFEST),
        (_info("my-bot/bot.py", mode=0o755), b"print('hi')\n"),
        (_info("my-bot/lib/util.py"), b"X = 1\n"),
        (_info("my-bot/util.py", tarfile.SYMTYPE, link="lib/util.py"), None),
        (_info("my-bot/__pycache__/bot.cpython-311.pyc"), b"\0" * 10),
    ])
    result = unpack(archive, tmp_path / "out")
    assert result.problems == []
    assert result.root.name == "my-bot" and (result.root / "bot.toml").read_bytes() == MANIFEST
    assert os.access(result.root / "bot.py", os.X_OK) and not os.access(result.root / "lib" / "util.py", os.X_OK)
    assert os.readlink(result.root / "util.py") == "lib/util.py"
    assert result.skipped == ["my-bot/__pycache__/"] and result.files == 5  # entries: the folder too


def test_every_unsafe_tar_entry_is_named_in_one_report(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "evil.tar.gz", [
        (_info("bot.toml"), MANIFEST),
        (_info("/etc/cron.d/evil"), b"x"),
        (_info("../../outside.py"), b"x"),
        (_info("sub/../../escape.py"), b"x"),
        (_info("passwd", tarfile.SYMTYPE, link="/etc/passwd"), None),
        (_info("up", tarfile.SYMTYPE, link="../../.."), None),
        (_info("shadow", tarfile.LNKTYPE, link="/etc/shadow"), None),
        (_info("null", tarfile.CHRTYPE), None),
        (_info("disk", tarfile.BLKTYPE), None),
        (_info("pipe", tarfile.FIFOTYPE), None),
        (_info("fine.py"), b"ok"),
    ])
    result = unpack(archive, tmp_path / "out")
    named = {problem.where.removeprefix("archive: "): problem.message for problem in result.problems}
    assert set(named) == {"/etc/cron.d/evil", "../../outside.py", "sub/../../escape.py", "passwd", "up", "shadow",
                          "null", "disk", "pipe"}
    assert "absolute path" in named["/etc/cron.d/evil"] and "'..'" in named["../../outside.py"]
    assert "outside the bot's folder" in named["passwd"] and "outside the bot's folder" in named["shadow"]
    assert "device file" in named["null"] and "device file" in named["disk"] and "named pipe" in named["pipe"]
    assert not (tmp_path / "outside.py").exists() and not (tmp_path / "escape.py").exists()
    assert not any(path.is_symlink() and not path.resolve().is_relative_to(tmp_path)
                   for path in (tmp_path / "out").rglob("*"))


def test_a_path_through_a_link_cannot_escape(tmp_path: Path) -> None:
    """'a' -> '.' is inside, and so is 'a/b' -> '../x' read lexically; on disk it would be ../x."""
    archive = _tar(tmp_path / "trick.tar.gz", [
        (_info("bot.toml"), MANIFEST),
        (_info("a", tarfile.SYMTYPE, link="."), None),
        (_info("a/b", tarfile.SYMTYPE, link="../x"), None),
        (_info("a/evil.py"), b"x"),
    ])
    result = unpack(archive, tmp_path / "out")
    assert {p.where for p in result.problems} == {"archive: a/b", "archive: a/evil.py"}
    assert all("through the link 'a'" in p.message for p in result.problems)
    assert not (tmp_path / "x").exists()


def test_zip_entries_are_checked_alike(tmp_path: Path) -> None:
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("bot.toml", MANIFEST)
        archive.writestr("/abs.py", b"x")
        archive.writestr("..\\..\\windows.py", b"x")
        link = zipfile.ZipInfo("link")
        link.external_attr = (0o120777 << 16)
        archive.writestr(link, "/etc/passwd")
        device = zipfile.ZipInfo("dev")
        device.external_attr = (0o020644 << 16)
        archive.writestr(device, b"")
    result = unpack(path, tmp_path / "out")
    assert {p.where for p in result.problems} == {"archive: /abs.py", "archive: ..\\..\\windows.py", "archive: link",
                                                  "archive: dev"}


def test_the_caps_hold_whatever_the_headers_claim(tmp_path: Path) -> None:
    limits = SubmissionLimits(archive_bytes=10**6, unpacked_bytes=100_000, file_bytes=60_000, files=5)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.toml", MANIFEST)
        archive.writestr("zeros.bin", b"\0" * 50_000)
        archive.writestr("more.bin", b"\0" * 50_000)
    assert bomb.stat().st_size < 2_000
    result = unpack(bomb, tmp_path / "out", limits)
    assert [p.message for p in result.problems] == ["more than 0.1 MB unpacked"]
    assert result.bytes <= 100_000 + 65_536
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.toml", MANIFEST)
        archive.writestr("huge.bin", b"\0" * 70_000)
    assert "a file over" in unpack(big, tmp_path / "out2", limits).problems[0].message
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as archive:
        for number in range(8):
            archive.writestr(f"f{number}.py", b"x")
    assert [p.message for p in unpack(many, tmp_path / "out3", limits).problems] == [
        "more than 5 entries (files, folders and links)"]
    limits_small = SubmissionLimits(archive_bytes=100)
    assert "over the" in unpack(big, tmp_path / "out4", limits_small).problems[0].message


def test_a_folder_with_links_out_and_special_files_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(MANIFEST)
    (folder / "keys").symlink_to("/root")
    (folder / "rel").symlink_to("../../etc/passwd")
    (folder / "inside").symlink_to("bot.toml")
    os.mkfifo(folder / "pipe")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref")
    result = unpack(folder, tmp_path / "out")
    assert {p.where.split(": ", 1)[1] for p in result.problems} == {"keys", "rel", "pipe"}
    assert os.readlink(tmp_path / "out" / "inside") == "bot.toml"
    assert result.skipped == [".git/"]


@pytest.mark.parametrize("name", ["bot.rar", "missing.zip"])
def test_what_is_not_a_folder_or_an_archive_says_so(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".rar"):
        path.write_bytes(b"Rar!")
    problems = unpack(path, tmp_path / "out").problems
    assert len(problems) == 1 and ("not a folder" in problems[0].message or "no such" in problems[0].message)


@pytest.mark.parametrize("compression", ["gz", "bz2", "xz"])
def test_a_corrupt_archive_is_one_problem(tmp_path: Path, compression: str) -> None:
    """A tar whose compressed stream breaks part way is one problem, in words, never a traceback, whichever
    compression its first bytes say (each one's library raises its own error; the name says only "a tar")."""
    if compression == "gz":
        data = b"\x1f\x8b\x08garbage"
    else:
        folder = tmp_path / "bot"
        folder.mkdir()
        (folder / "bot.toml").write_text('name = "corrupt"\n')
        (folder / "main.py").write_bytes(random.Random(7).randbytes(200_000))  # (no compression shrinks it)
        packed = tmp_path / f"whole.tar.{compression}"
        with tarfile.open(packed, f"w:{compression}") as archive:
            archive.add(folder, arcname=".")
        data = bytearray(packed.read_bytes())
        for at in range(len(data) // 4, len(data) * 3 // 4, len(data) // 16):  # a few bytes flipped inside
            data[at] ^= 0xFF
    path = tmp_path / "broken.tar.gz"
    path.write_bytes(bytes(data))
    problems = unpack(path, tmp_path / "out").problems
    assert len(problems) == 1 and "cannot be read" in problems[0].message, problems
