"""A submission's files, unpacked safely: a folder, a .zip or a .tar.gz becomes a fresh folder of
regular files (and links that stay inside it), or a list of every problem found.

Nothing in an upload is trusted: a member with an absolute path, a `..` step, a link that leads out
of the folder, a device file or a pipe is refused by name; the number of files, each file and the
whole unpacked size are capped while reading (a zip bomb's headers lie, its bytes cannot), and
nothing is ever extracted by the archive libraries' own extract functions. A single top folder
(`my-bot/bot.toml`) is taken as the bot's folder. Clutter (`__pycache__`, `.git`, `*.pyc`) is
left out and said so.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Iterator

CLUTTER_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})
CLUTTER_SUFFIXES = (".pyc", ".pyo")
CLUTTER_FILES = frozenset({".DS_Store", "Thumbs.db"})
_COPY_CHUNK = 1 << 16


@dataclass(frozen=True)
class SubmissionLimits:
    """How big a submission may be."""

    archive_bytes: int = 32 * 2**20  # the upload itself
    unpacked_bytes: int = 64 * 2**20  # every file together, unpacked
    file_bytes: int = 32 * 2**20  # one file
    files: int = 2000  # files and links
    depth: int = 32  # folders within folders


DEFAULT_SUBMISSION_LIMITS = SubmissionLimits()


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a submission: where, what, and how to fix it."""

    where: str  # "bot.toml:3", "archive: ../x", "folder"...
    message: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {"where": self.where, "message": self.message, "fix": self.fix}

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" + (f" ({self.fix})" if self.fix else "")


@dataclass
class Unpacked:
    """The submission's files in a folder of ours, or the problems that stopped it."""

    root: Path  # the bot's folder (a single top folder of the upload is stepped into)
    files: int = 0
    bytes: int = 0
    skipped: list[str] = field(default_factory=list)  # clutter left out
    problems: list[Problem] = field(default_factory=list)


@dataclass
class _Budget:
    limits: SubmissionLimits
    files: int = 0
    bytes: int = 0
    over: set[str] = field(default_factory=set)  # the caps already reported


class _Member:
    """An entry of a folder or an archive, as the checks see it."""

    def __init__(self, name: str, kind: str, size: int = 0, link: str = "", mode: int = 0o644) -> None:
        self.name = name  # as written in the archive (or relative to the folder)
        self.kind = kind  # "file", "dir", "symlink", "hardlink", "device", "fifo", "other"
        self.size = size
        self.link = link
        self.mode = mode


def kind_of(path: str | Path) -> str:
    """'.zip', '.tar.gz' (or .tgz, .tar), 'folder', or '' for anything else."""
    text = str(path).lower()
    if Path(path).is_dir():
        return "folder"
    if text.endswith(".zip"):
        return ".zip"
    if text.endswith((".tar.gz", ".tgz", ".tar")):
        return ".tar.gz"
    return ""


def unpack(source: Path, destination: Path, limits: SubmissionLimits = DEFAULT_SUBMISSION_LIMITS) -> Unpacked:
    """Copy or unpack `source` into the empty folder `destination`, checking every entry."""
    destination.mkdir(parents=True, exist_ok=True)
    result = Unpacked(destination)
    kind = kind_of(source)
    if not source.exists():
        result.problems.append(Problem(str(source), "no such file or folder"))
        return result
    if kind == "":
        result.problems.append(Problem(str(source), "not a folder, a .zip or a .tar.gz",
                                       "submit the bot's folder, or pack it with `tar czf bot.tar.gz -C bot .`"))
        return result
    if kind != "folder" and source.stat().st_size > limits.archive_bytes:
        result.problems.append(Problem(source.name, f"the archive is {_mb(source.stat().st_size)}, over the "
                                       f"{_mb(limits.archive_bytes)} an upload may be",
                                       "leave out build outputs, data sets and virtual environments"))
        return result
    budget = _Budget(limits)
    try:
        if kind == "folder":
            _copy_folder(source, destination, budget, result)
        elif kind == ".zip":
            _unzip(source, destination, budget, result)
        else:
            _untar(source, destination, budget, result)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as error:
        result.problems.append(Problem(source.name, f"cannot be read: {error}",
                                       "make the archive again (zip -r, or tar czf)"))
    result.files, result.bytes = budget.files, budget.bytes
    if not result.problems:
        result.root = _bot_folder(destination)
    return result


def _check(member: _Member, budget: _Budget, result: Unpacked) -> PurePosixPath | None:
    """The member's safe relative path, or None (with its problem noted) if it may not be unpacked."""
    name = member.name.replace("\\", "/")  # written by Windows tools; and so "..\\" is caught too
    where = f"archive: {member.name}"
    if not name or "\x00" in name:
        result.problems.append(Problem(where, "an entry without a usable name"))
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        result.problems.append(Problem(where, "an absolute path", "pack paths relative to the bot's folder"))
        return None
    if ".." in path.parts:
        result.problems.append(Problem(where, "a path that climbs out of the bot's folder ('..')",
                                       "pack paths relative to the bot's folder"))
        return None
    parts = [part for part in path.parts if part not in ("", ".")]
    if not parts:
        return None  # the folder itself
    if len(parts) > budget.limits.depth:
        result.problems.append(Problem(where, f"nested deeper than {budget.limits.depth} folders"))
        return None
    if member.kind in ("device", "fifo", "other"):
        what = {"device": "a device file", "fifo": "a named pipe"}.get(member.kind, "a special file")
        result.problems.append(Problem(where, f"{what}: only regular files, folders and links within the folder "
                                       "may be submitted"))
        return None
    if member.kind in ("symlink", "hardlink"):
        target = PurePosixPath(member.link)
        if member.kind == "symlink":
            resolved = PurePosixPath(*parts[:-1]) / target
        else:  # a tar hard link names another member
            resolved = target
        if target.is_absolute() or not _stays_inside(resolved):
            result.problems.append(Problem(where, f"a link to {member.link!r}, outside the bot's folder",
                                           "copy the file into the folder instead of linking to it"))
            return None
    if member.kind != "dir":
        budget.files += 1
        if budget.files > budget.limits.files and "files" not in budget.over:
            budget.over.add("files")
            result.problems.append(Problem("submission", f"more than {budget.limits.files} files",
                                           "leave out build outputs, data sets and virtual environments"))
        if budget.files > budget.limits.files:
            return None
    return PurePosixPath(*parts)


def _stays_inside(path: PurePosixPath) -> bool:
    depth = 0
    for part in path.parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part not in ("", "."):
            depth += 1
    return True


def _is_clutter(path: PurePosixPath) -> bool:
    return (any(part in CLUTTER_DIRS for part in path.parts) or path.name in CLUTTER_FILES
            or path.name.endswith(CLUTTER_SUFFIXES))


def _write(stream: IO[bytes], target: Path, where: str, budget: _Budget, result: Unpacked) -> bool:
    """Copy a member's bytes under the caps (counted as read, whatever its header claimed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(target, "wb") as out:
        while chunk := stream.read(_COPY_CHUNK):
            written += len(chunk)
            budget.bytes += len(chunk)
            if written > budget.limits.file_bytes:
                result.problems.append(Problem(where, f"a file over {_mb(budget.limits.file_bytes)}",
                                               "leave large data out of the bot, or shrink it"))
                return False
            if budget.bytes > budget.limits.unpacked_bytes:
                if "bytes" not in budget.over:
                    budget.over.add("bytes")
                    result.problems.append(Problem("submission", f"more than {_mb(budget.limits.unpacked_bytes)} "
                                                   "unpacked", "leave out build outputs, data sets and virtual "
                                                   "environments"))
                return False
            out.write(chunk)
    return True


def _place(relative: PurePosixPath, member: _Member, destination: Path, opened: IO[bytes] | None,
           budget: _Budget, result: Unpacked) -> None:
    """Put one checked member into the destination folder."""
    if _is_clutter(relative):
        first = next((i for i, part in enumerate(relative.parts) if part in CLUTTER_DIRS), None)
        shown = str(relative) if first is None else str(PurePosixPath(*relative.parts[:first + 1])) + "/"
        if shown not in result.skipped:
            result.skipped.append(shown)
        if member.kind != "dir":
            budget.files -= 1
        return
    target = destination.joinpath(*relative.parts)
    parents = list(relative.parents)[:-1]  # a/b/c: a/b and a (not ".")
    through = next((parent for parent in parents if destination.joinpath(*parent.parts).is_symlink()), None)
    if through is not None:  # a path through a link could lead anywhere the link's target leads
        result.problems.append(Problem(f"archive: {member.name}", f"a path through the link {str(through)!r}",
                                       "pack the files themselves, not links to folders"))
        return
    if member.kind == "dir":
        target.mkdir(parents=True, exist_ok=True)
    elif member.kind == "symlink":
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() and not target.is_symlink():
            os.symlink(member.link, target)
    elif member.kind == "hardlink":  # a copy of the member it names (already checked to be inside)
        source = destination.joinpath(*PurePosixPath(member.link).parts)
        if source.is_file() and not source.is_symlink() and source.resolve().is_relative_to(destination.resolve()):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            budget.bytes += source.stat().st_size
    elif opened is not None:
        if _write(opened, target, f"archive: {member.name}", budget, result):
            os.chmod(target, 0o755 if member.mode & 0o111 else 0o644)


def _copy_folder(source: Path, destination: Path, budget: _Budget, result: Unpacked) -> None:
    root = source.resolve()
    for member, path in _folder_members(root):
        relative = _check(member, budget, result)
        if relative is None:
            continue
        if member.kind == "symlink":  # it must also lead somewhere inside, as the file system resolves it
            try:
                inside = path.resolve().is_relative_to(root)
            except (OSError, RuntimeError):
                inside = False
            if not inside:
                result.problems.append(Problem(f"folder: {member.name}", f"a link to {member.link!r}, outside the "
                                               "bot's folder", "copy the file into the folder instead of linking"))
                continue
        if member.kind == "file":
            with open(path, "rb") as opened:
                _place(relative, member, destination, opened, budget, result)
        else:
            _place(relative, member, destination, None, budget, result)


def _folder_members(root: Path) -> Iterator[tuple[_Member, Path]]:
    for directory, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        here = Path(directory)
        for name in sorted(dirs) + sorted(files):
            path = here / name
            relative = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                member = _Member(relative, "symlink", link=os.readlink(path))
                if name in dirs:
                    dirs.remove(name)  # never walked into
            elif stat.S_ISDIR(info.st_mode):
                member = _Member(relative, "dir")
            elif stat.S_ISREG(info.st_mode):
                member = _Member(relative, "file", info.st_size, mode=info.st_mode)
            elif stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
                member = _Member(relative, "device")
            elif stat.S_ISFIFO(info.st_mode):
                member = _Member(relative, "fifo")
            else:
                member = _Member(relative, "other")
            yield member, path


def _unzip(source: Path, destination: Path, budget: _Budget, result: Unpacked) -> None:
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16
            if info.is_dir():
                member = _Member(info.filename, "dir")
            elif stat.S_ISLNK(mode):
                link = archive.read(info)[:4096].decode("utf-8", errors="replace")
                member = _Member(info.filename, "symlink", link=link)
            elif mode and not stat.S_ISREG(mode) and stat.S_IFMT(mode):
                kind = "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else (
                    "fifo" if stat.S_ISFIFO(mode) else "other")
                member = _Member(info.filename, kind)
            else:
                member = _Member(info.filename, "file", info.file_size, mode=mode or 0o644)
            relative = _check(member, budget, result)
            if relative is None:
                continue
            if member.kind == "file":
                with archive.open(info) as opened:
                    _place(relative, member, destination, opened, budget, result)
            else:
                _place(relative, member, destination, None, budget, result)


def _untar(source: Path, destination: Path, budget: _Budget, result: Unpacked) -> None:
    with tarfile.open(source, "r:*") as archive:
        for info in archive:
            if info.isdir():
                member = _Member(info.name, "dir")
            elif info.issym():
                member = _Member(info.name, "symlink", link=info.linkname)
            elif info.islnk():
                member = _Member(info.name, "hardlink", link=info.linkname)
            elif info.ischr() or info.isblk():
                member = _Member(info.name, "device")
            elif info.isfifo():
                member = _Member(info.name, "fifo")
            elif info.isreg():
                member = _Member(info.name, "file", info.size, mode=info.mode)
            else:
                member = _Member(info.name, "other")
            relative = _check(member, budget, result)
            if relative is None:
                continue
            opened = archive.extractfile(info) if member.kind == "file" else None
            _place(relative, member, destination, opened, budget, result)


def _bot_folder(destination: Path) -> Path:
    """The folder holding bot.toml: the destination, or its single top folder."""
    if (destination / "bot.toml").exists():
        return destination
    entries = [entry for entry in destination.iterdir()]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return destination


def _mb(size: int) -> str:
    return f"{size / 2**20:.1f} MB" if size % 2**20 else f"{size // 2**20} MB"
