"""Content-addressed bot folders: a submitted version is stored under the SHA-256 of its files
(`<bot store>/<name>/<hash>/`), and is launched only while its files still have that hash.

`content_hash` is the version's identity; `check_stored` verifies a folder whose name is such a hash
before a launch (the hash is computed again only when a file's size, times or inode changed since it
was last verified: a stat walk, not a read of every byte).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

HASH_NAME = re.compile(r"^[0-9a-f]{64}$")
_verified: dict[Path, str] = {}  # folder -> the stat signature it had when its hash last matched


class TamperedVersion(Exception):
    """A stored version's files no longer have the hash they were stored under."""


def content_hash(folder: Path) -> str:
    """The version's identity: SHA-256 over every file's path and bytes and every link's path and target
    (links are never followed; folders count through the files and links they hold)."""
    digest = hashlib.sha256()
    for relative, path, info in _walk(folder):
        if stat.S_ISLNK(info.st_mode):
            digest.update(b"L\0" + relative.encode() + b"\0" + os.readlink(path).encode() + b"\0")
        elif stat.S_ISREG(info.st_mode):
            digest.update(b"F\0" + relative.encode() + b"\0" + str(info.st_size).encode() + b"\0")
            with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 16), b""):
                    digest.update(chunk)
    return digest.hexdigest()


def is_stored_version(folder: Path) -> bool:
    """True for a folder named by a content hash (a submitted version in the bot store)."""
    return bool(HASH_NAME.match(folder.name))


def check_stored(folder: Path) -> None:
    """For a stored version: TamperedVersion unless its files still have the hash it is named by."""
    if not is_stored_version(folder):
        return
    signature = _signature(folder)
    if _verified.get(folder) == signature:
        return
    found = content_hash(folder)
    if found != folder.name:
        _verified.pop(folder, None)
        raise TamperedVersion(f"the stored files of {folder.parent.name} version {folder.name[:12]} have changed "
                              f"since they were submitted (their hash is now {found[:12]}): it is not launched; "
                              "restore the version from a backup, or have it submitted again")
    _verified[folder] = signature


def _walk(folder: Path) -> list[tuple[str, str, os.stat_result]]:
    entries = []
    for top, folders, files in os.walk(folder, followlinks=False):
        folders.sort()
        for name in sorted([*folders, *files]):
            path = os.path.join(top, name)
            entries.append((os.path.relpath(path, folder).replace(os.sep, "/"), path, os.lstat(path)))
    entries.sort(key=lambda entry: tuple(entry[0].split("/")))  # as pathlib sorts paths: part by part
    return entries


def _signature(folder: Path) -> str:
    digest = hashlib.sha256()
    for relative, _path, info in _walk(folder):
        digest.update(f"{relative}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0"
                      f"{info.st_ino}\0".encode())
    return digest.hexdigest()
