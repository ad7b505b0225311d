"""Archives that attack the store: link chains that lead out only on disk, a file written over a link,
a huge link entry, folders by the ten thousand, a tampered stored version; and a fuzzer over random
trees of files, folders, links, hard links, duplicate names and long paths, as tar and zip."""

from __future__ import annotations

import hashlib
import io
import json
import os
import resource
import stat
import subprocess
import sys
import tarfile
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.sandbox import LaunchRefused, SandboxSettings
from arena.sandbox.integrity import content_hash
from arena.sandbox.launch import Launcher
from arena.sandbox.limits import Limits
from arena.store import Store
from arena.submissions import submit
from arena.submissions.archive import SubmissionLimits, unpack

MANIFEST = b'name = "ok-bot"\ncommand = ["{python}", "bot.py"]\ngames = ["major-general"]\n'


def tar_of(path: Path, entries: list[tuple[str, str, bytes | str]]) -> Path:
    """(name, kind: file/dir/symlink/hardlink, data or link target) -> a .tar.gz at `path`."""
    with tarfile.open(path, "w:gz") as archive:
        for name, kind, payload in entries:
            info = tarfile.TarInfo(name)
            if kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            elif kind in ("symlink", "hardlink"):
                info.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.LNKTYPE
                info.linkname = str(payload)
                archive.addfile(info)
            else:
                data = payload if isinstance(payload, bytes) else payload.encode()
                info.size, info.mode = len(data), 0o644
                archive.addfile(info, io.BytesIO(data))
    return path


def zip_of(path: Path, entries: list[tuple[str, str, bytes | str]]) -> Path:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # duplicate names are the point
        for name, kind, payload in entries:
            if kind == "dir":
                archive.writestr(zipfile.ZipInfo(name.rstrip("/") + "/"), b"")
                continue
            info = zipfile.ZipInfo(name)
            if kind == "symlink":
                info.external_attr = 0o120777 << 16
            archive.writestr(info, payload if isinstance(payload, bytes) else payload.encode())
    return path


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: files by content, links by target, folders by mode."""
    found = {}
    for top, folders, files in os.walk(folder, followlinks=False):
        for name in folders + files:
            path = Path(top, name)
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[str(path)] = "link:" + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest() + f":{stat.S_IMODE(info.st_mode):o}"
            else:
                found[str(path)] = f"dir:{stat.S_IMODE(info.st_mode):o}"
    return found


def test_a_chain_of_links_that_leads_out_only_on_disk_writes_nothing_outside(tmp_path: Path) -> None:
    """'up' -> '.' is inside; 'out' -> 'up/..' reads as inside too (up/.. = .), but on disk up is the folder
    itself, so out is its parent; then a regular file named like a link, and one through it."""
    outside = tmp_path / "victim"
    outside.mkdir()
    (outside / "bot.py").write_text("mine")
    staging = tmp_path / "store" / ".staging" / "x"
    before = snapshot(tmp_path)
    archive = tar_of(tmp_path / "chain.tar.gz", [
        ("bot.toml", "file", MANIFEST),
        ("up", "symlink", "."),
        ("out", "symlink", "up/.."),
        ("out", "file", "overwritten through a link"),
        ("out/victim/bot.py", "file", "overwritten through a folder link"),
        ("up/escape.py", "file", "through a link to a folder"),
    ])
    result = unpack(archive, staging)
    problems = {(p.where, p.message) for p in result.problems}
    assert ("archive: out", "a second entry with this name") in problems
    assert any(where == "archive: out/victim/bot.py" and "through the link 'out'" in message
               for where, message in problems)
    assert any(where == "archive: up/escape.py" and "through the link 'up'" in message for where, message in problems)
    after = {path: value for path, value in snapshot(tmp_path).items() if not path.startswith(str(tmp_path / "store"))
             and path != str(archive)}
    assert after == before and (outside / "bot.py").read_text() == "mine"


def test_a_link_chain_left_pointing_out_is_refused_after_unpacking(tmp_path: Path) -> None:
    archive = tar_of(tmp_path / "chain.tar.gz", [("bot.toml", "file", MANIFEST), ("up", "symlink", "."),
                                                   ("out", "symlink", "up/..")])
    result = unpack(archive, tmp_path / "out-folder")
    assert [(p.where, "leads outside the bot's folder through other links" in p.message) for p in result.problems] \
        == [("archive: out", True)]


def test_an_upload_cannot_overwrite_another_owners_stored_version(tmp_path: Path) -> None:
    store_dir = tmp_path / "bots"
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "bot.toml").write_bytes(MANIFEST.replace(b"ok-bot", b"their-bot"))
    (theirs / "bot.py").write_text("print('theirs')\n")
    digest = content_hash(theirs)
    stored = store_dir / "their-bot" / digest
    stored.mkdir(parents=True)
    for name in ("bot.toml", "bot.py"):
        (stored / name).write_bytes((theirs / name).read_bytes())
        (stored / name).chmod(0o444)
    before = snapshot(store_dir / "their-bot")
    # from .staging/<tmp>/upload: ../../../their-bot/<hash>/bot.py, through links that each look inside
    archive = tar_of(tmp_path / "attack.tar.gz", [
        ("bot.toml", "file", MANIFEST),
        ("a", "symlink", "."),
        ("b", "symlink", "a/.."),
        ("c", "symlink", "b/.."),
        ("d", "symlink", "c/.."),
        ("target", "symlink", f"d/their-bot/{digest}/bot.py"),
        ("target", "file", "print('pwned')\n"),
        (f"d/their-bot/{digest}/bot.py", "file", "print('pwned')\n"),
    ])
    result = submit(archive, store, store_dir)
    assert result.status == "rejected" and result.problems
    assert snapshot(store_dir / "their-bot") == before
    assert content_hash(stored) == digest and stat.S_IMODE((stored / "bot.py").stat().st_mode) == 0o444


def test_a_huge_zip_link_entry_is_read_with_a_bound(tmp_path: Path) -> None:
    """A 256 MB link entry (a few hundred KB deflated): refused by name, never read whole (peak memory of the
    unpacking process stays far below the entry's size)."""
    archive = tmp_path / "big-link.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("bot.toml", MANIFEST)
        link = zipfile.ZipInfo("link")
        link.external_attr = 0o120777 << 16
        link.compress_type = zipfile.ZIP_DEFLATED
        with packed.open(link, "w") as stream:
            block = b"a" * (1 << 20)
            for _ in range(256):
                stream.write(block)
    assert archive.stat().st_size < 2 * 2**20
    # VmHWM: this process's own peak (ru_maxrss would start from the parent's size at fork)
    script = ("import json, sys\nfrom pathlib import Path\nfrom arena.submissions.archive import unpack\n"
              f"result = unpack(Path({str(archive)!r}), Path({str(tmp_path / 'out')!r}))\n"
              "peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
              "print(json.dumps({'problems': [p.to_json() for p in result.problems], 'peak_kb': peak}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(done.stdout)
    assert [(p["where"], p["message"]) for p in report["problems"]] == [("archive: link",
                                                                         "a link without a usable target")]
    assert report["peak_kb"] < 200 * 1024, report["peak_kb"]


def test_twenty_thousand_empty_folders_are_refused_before_they_are_read(tmp_path: Path) -> None:
    archive = tmp_path / "folders.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("bot.toml", MANIFEST)
        for number in range(20_000):
            packed.writestr(zipfile.ZipInfo(f"d{number}/"), b"")
    result = unpack(archive, tmp_path / "out")
    assert [p.message for p in result.problems] == [
        "more than 2000 entries (files, folders and links)"]
    assert sum(1 for _ in (tmp_path / "out").iterdir()) == 0
    tar = tar_of(tmp_path / "folders.tar.gz", [("bot.toml", "file", MANIFEST)] +
                 [(f"d{number}", "dir", b"") for number in range(3000)])
    result = unpack(tar, tmp_path / "out-tar")
    assert [p.message for p in result.problems] == ["more than 2000 entries (files, folders and links)"]
    assert sum(1 for _ in (tmp_path / "out-tar").iterdir()) <= 2000


def test_a_zip_directory_that_lies_about_its_count_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """A directory of 3,000 entries whose end record says 1: counted as read, refused one past the cap, and
    nothing written."""
    archive = zip_of(tmp_path / "lying.zip", [("bot.toml", "file", MANIFEST)] +
                     [(f"f{number}.py", "file", b"") for number in range(3000)])
    data = bytearray(archive.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8:end + 12] = (1).to_bytes(2, "little") * 2  # entries on this disk, and in all
    archive.write_bytes(bytes(data))
    problems = unpack(archive, tmp_path / "out").problems
    assert [problem.message for problem in problems] == ["more than 2000 entries (files, folders and links)"]
    assert not any((tmp_path / "out").iterdir())


def test_a_tar_header_extension_is_read_with_a_bound(tmp_path: Path) -> None:
    archive = tmp_path / "pax.tar.gz"
    with tarfile.open(archive, "w:gz", format=tarfile.PAX_FORMAT) as packed:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(MANIFEST)
        info.pax_headers = {"comment": "x" * (200 * 1024)}
        packed.addfile(info, io.BytesIO(MANIFEST))
    problems = unpack(archive, tmp_path / "out").problems
    assert len(problems) == 1 and "header extension" in problems[0].message


def test_a_stored_version_whose_files_changed_is_not_launched(tmp_path: Path) -> None:
    folder = tmp_path / "store" / "ok-bot"
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.toml").write_bytes(MANIFEST)
    (source / "bot.py").write_text("print('ok')\n")
    version = folder / content_hash(source)
    version.mkdir(parents=True)
    for name in ("bot.toml", "bot.py"):
        (version / name).write_bytes((source / name).read_bytes())
    (tmp_path / "runtime").mkdir()
    launcher = Launcher(SandboxSettings(), tmp_path / "runtime")
    arguments = dict(name="ok-bot", directory=version, command=["{python}", "bot.py"], token="t", concurrency=1,
                     limits=Limits(), env={})
    launcher.plan(**arguments).cleanup()  # intact: it launches
    (version / "bot.py").write_text("print('tampered')\n")
    with pytest.raises(LaunchRefused, match="have changed since they were submitted"):
        launcher.plan(**arguments)


# --- the fuzzer -----------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c", "bot.toml", "..", ".", "x" * 255, "ü", "a/b", "a/../..", "/abs", "b/c/d"])
PATHS = st.lists(NAMES, min_size=1, max_size=4).map("/".join)
ENTRY = st.tuples(PATHS, st.sampled_from(["file", "dir", "symlink", "hardlink"]),
                  st.one_of(st.binary(max_size=64), PATHS))
TREES = st.lists(ENTRY, min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                     HealthCheck.too_slow])
@given(tree=TREES, as_zip=st.booleans())
def test_fuzz_nothing_outside_the_staging_folder_changes(tmp_path_factory: pytest.TempPathFactory,
                                                         tree: list[tuple[str, str, bytes | str]], as_zip: bool) -> None:
    base = tmp_path_factory.mktemp("fuzz")
    (base / "neighbour").mkdir()
    (base / "neighbour" / "bot.py").write_text("keep me")
    entries = [(name, kind, payload if kind in ("file", "dir") or isinstance(payload, str) else "a")
               for name, kind, payload in tree]
    if as_zip:
        entries = [entry for entry in entries if entry[1] != "hardlink"]
        archive = zip_of(base / "upload.zip", [(n, k, p) for n, k, p in entries if not n.startswith("/")] or
                         [("bot.toml", "file", MANIFEST)])
    else:
        archive = tar_of(base / "upload.tar.gz", entries)
    before = snapshot(base)
    staging = base / "store" / ".staging" / "u"
    limits = SubmissionLimits(files=50, unpacked_bytes=1 << 20, file_bytes=1 << 16)
    before_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = unpack(archive, staging, limits)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_peak < 64 * 1024  # memory stays bounded
    after = {path: value for path, value in snapshot(base).items() if not path.startswith(str(base / "store"))}
    assert after == before  # nothing outside the staging folder changed
    if result.problems:
        assert all(problem.message for problem in result.problems)  # a refusal names the problem
        return
    root = os.path.realpath(staging)
    for top, folders, files in os.walk(staging, followlinks=False):  # the safe tree: nothing leads out
        for name in folders + files:
            path = os.path.join(top, name)
            info = os.lstat(path)
            assert stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                assert os.path.commonpath([root, os.path.realpath(path)]) == root
