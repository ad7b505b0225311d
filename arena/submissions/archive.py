"""A submission's files, unpacked safely: a folder, a .zip or a .tar.gz becomes a fresh folder of
regular files (and links that stay inside it), or a list of every problem found.

Nothing in an upload is trusted:
- a member with an absolute path, a `..` step, a link that leads out of the folder, a device file or
  a pipe is refused by name, and so is a second entry with a name already taken;
- nothing is ever written through a link: every folder on the way is opened without following links
  and every file is created new (O_NOFOLLOW, O_EXCL), relative to the staging folder's descriptor;
  once unpacked, every link is resolved against what is really on disk (not read lexically), so a
  chain of links that each look inside but lead out together is refused too;
- every entry counts against the caps (files, folders and links alike), and every kind is read with
  a bound: a file's bytes as they are read (a zip bomb's headers lie, its bytes cannot), a link's
  target at most 4 KiB, a tar header's extensions at most 64 KiB and 8 in a row, a zip's directory
  walked entry by entry and counted as read (arena.submissions.zip_reader: its end record's count is
  only compared), a tar stream no further than the unpacked cap;
- nothing is extracted by the archive libraries' own extract functions.
A single top folder (`my-bot/bot.toml`) is taken as the bot's folder. Clutter (`__pycache__`, `.git`,
`*.pyc`) is left out and said so.
"""

from __future__ import annotations

import errno
import functools
import lzma
import os
import stat
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator, Literal, Optional

import arena.submissions.zip_reader as zip_reader

CLUTTER_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})
CLUTTER_SUFFIXES = (".pyc", ".pyo")
CLUTTER_FILES = frozenset({".DS_Store", "Thumbs.db"})
LINK_TARGET_BYTES = 4096  # PATH_MAX: no link target is longer
HEADER_BYTES = 64 * 1024  # a tar member's pax or GNU long-name header
HEADER_CHAIN = 8  # such headers before one member (tar tools write at most a global, a pax and two GNU ones)
_COPY_CHUNK = 1 << 16
_NO_FOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class SubmissionLimits:
    """How big a submission may be."""

    archive_bytes: int = 32 * 2**20  # the upload itself
    unpacked_bytes: int = 64 * 2**20  # every file together, unpacked
    file_bytes: int = 32 * 2**20  # one file
    files: int = 2000  # entries: files, folders and links
    depth: int = 32  # folders within folders
    name_bytes: int = 1024  # one entry's path


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
    files: int = 0  # entries unpacked (files, folders and links)
    bytes: int = 0
    skipped: list[str] = field(default_factory=list)  # clutter left out
    problems: list[Problem] = field(default_factory=list)


class _Stop(Exception):
    """A cap was met: reading further would only cost more (the problem is already noted)."""


@dataclass
class _Budget:
    limits: SubmissionLimits
    entries: int = 0
    bytes: int = 0
    over: set[str] = field(default_factory=set)  # the caps already reported
    explicit: set[str] = field(default_factory=set)  # paths written by an entry of their own


@dataclass
class _Member:
    """An entry of a folder or an archive, as the checks see it."""

    name: str  # as written in the archive (or relative to the folder)
    kind: str  # "file", "dir", "symlink", "hardlink", "device", "fifo", "other"
    size: int = 0
    link: str = ""
    mode: int = 0o644
    open: Optional[Callable[[], IO[bytes]]] = None  # a file's bytes


ENTRY_FIX = "leave out build outputs, data sets and virtual environments"
REPACK_FIX = "make the archive again (zip -r, or tar czf)"
RELATIVE_FIX = "pack paths relative to the bot's folder"
LINK_FIX = "copy the file into the folder instead of linking to it"


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


def unpack(source: Path, destination: Path, limits: SubmissionLimits = DEFAULT_SUBMISSION_LIMITS,
           named: str | None = None) -> Unpacked:
    """Copy or unpack `source` into the empty folder `destination`, checking every entry. `named`: the name
    its person knows it by, in the problems (an upload's own file name, not the server's copy's)."""
    label = named or source.name
    destination.mkdir(parents=True, exist_ok=True)
    result = Unpacked(destination)
    kind = kind_of(source)
    refused = _source_problem(source, kind, label, limits)
    if refused is not None:
        result.problems.append(refused)
        return result
    budget = _Budget(limits)
    _unpack_entries(source, kind, label, destination, budget, result)
    result.files, result.bytes = budget.entries, budget.bytes
    if not result.problems:
        result.problems += links_leading_out(destination)
    if not result.problems:
        result.root = _bot_folder(destination)
    return result


def _source_problem(source: Path, kind: str, label: str, limits: SubmissionLimits) -> Problem | None:
    """Why `source` (of `kind`, as kind_of says) cannot be unpacked at all: missing, of no known kind, or an
    archive over the upload cap; None if its entries may be read."""
    if not source.exists():
        return Problem(str(source), "no such file or folder")
    if kind == "":
        return Problem(str(source), "not a folder, a .zip or a .tar.gz",
                       "submit the bot's folder, or pack it with `tar czf bot.tar.gz -C bot .`")
    if kind != "folder" and source.stat().st_size > limits.archive_bytes:
        return Problem(label, f"the archive is {_mb(source.stat().st_size)}, over the "
                       f"{_mb(limits.archive_bytes)} an upload may be", ENTRY_FIX)
    return None


def _unpack_entries(source: Path, kind: str, label: str, destination: Path, budget: _Budget,
                    result: Unpacked) -> None:
    """Check and place every entry of `source` into `destination` (opened without following links), noting
    an unreadable archive as one problem, in one line."""
    root = os.open(destination, _NO_FOLLOW_DIR)
    try:
        members = {"folder": _folder_members, ".zip": _zip_members}.get(kind, _tar_members)
        for member in members(source, budget, result):
            relative = _check(member, budget, result)
            if relative is not None:
                _place(relative, member, root, budget, result)
    except _Stop:
        pass
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as error:
        reason = " ".join(str(error).replace(str(source), label).split())  # one line, whatever the library said
        result.problems.append(Problem(label, f"cannot be read: {reason}", REPACK_FIX))
    except RecursionError:  # (a structure the bounds above do not foresee: still one line, never a traceback)
        result.problems.append(Problem(label, "cannot be read: its structure is nested too deeply", REPACK_FIX))
    finally:
        os.close(root)


# --- reading the entries of each kind of upload, each with a bound -------------------------------

def _folder_members(source: Path, budget: _Budget, result: Unpacked) -> Iterator[_Member]:
    root = source.resolve()
    for directory, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        here = Path(directory)
        for name in sorted(dirs) + sorted(files):
            path = here / name
            relative = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                if name in dirs:
                    dirs.remove(name)  # never walked into
                yield _Member(relative, "symlink", link=os.readlink(path)[:LINK_TARGET_BYTES + 1])
            elif stat.S_ISDIR(info.st_mode):
                yield _Member(relative, "dir")
            elif stat.S_ISREG(info.st_mode):
                yield _Member(relative, "file", info.st_size, mode=info.st_mode,
                              open=functools.partial(_open_plain, path))
            else:
                yield _Member(relative, _special_kind(info.st_mode))


def _open_plain(path: Path) -> IO[bytes]:
    return os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb")


def _tar_file(archive: tarfile.TarFile, info: tarfile.TarInfo) -> IO[bytes]:
    opened = archive.extractfile(info)
    if opened is None:
        raise tarfile.TarError(f"{info.name} has no data")
    return opened


def _zip_directory(source: Path, budget: _Budget, result: Unpacked) -> list[zip_reader.ZipEntry]:
    """The zip's whole directory, read first (bounded: it stops one past the cap), so a refusal writes nothing."""
    try:
        return zip_reader.read_directory(source, budget.limits.files)
    except zip_reader.TooManyEntries:
        _over(budget, result, "files", f"more than {budget.limits.files} entries (files, folders and links)")
        raise _Stop from None


def _zip_members(source: Path, budget: _Budget, result: Unpacked) -> Iterator[_Member]:
    for entry in _zip_directory(source, budget, result):
        if entry.is_dir:
            yield _Member(entry.name, "dir")
        elif stat.S_ISLNK(entry.mode):
            yield _Member(entry.name, "symlink", link=_zip_link_target(source, entry))
        elif entry.mode and not stat.S_ISREG(entry.mode) and stat.S_IFMT(entry.mode):
            yield _Member(entry.name, _special_kind(entry.mode))
        else:
            yield _Member(entry.name, "file", entry.size, mode=entry.mode or 0o644,
                          open=functools.partial(zip_reader.open_entry, source, entry))


def _zip_link_target(source: Path, entry: zip_reader.ZipEntry) -> str:
    """A zip link's target (its entry's bytes), read at most one byte past LINK_TARGET_BYTES."""
    with zip_reader.open_entry(source, entry) as opened:
        target = opened.read(LINK_TARGET_BYTES + 1)
    return target.decode("utf-8", errors="replace")


def _special_kind(mode: int) -> Literal["device", "fifo", "other"]:
    """The kind of an entry that is no folder, link or regular file, by its mode: a device, a named pipe or another."""
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "fifo" if stat.S_ISFIFO(mode) else "other"


class _BoundedTarInfo(tarfile.TarInfo):
    """A tar header whose extensions (pax records, GNU long names) are refused over HEADER_BYTES before
    they are read into memory, and over HEADER_CHAIN in a row (tarfile reads each next one by recursion)."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:  # type: ignore[override]
        chain = getattr(tarfile_, "arena_chain", 0)
        if self.type in (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                         tarfile.GNUTYPE_LONGLINK):
            if self.size > HEADER_BYTES:
                raise tarfile.HeaderError(f"a member's header extension of {self.size} bytes (at most "
                                          f"{HEADER_BYTES})")
            if chain >= HEADER_CHAIN:
                raise tarfile.HeaderError(f"a member with more than {HEADER_CHAIN} header extensions in a row")
            setattr(tarfile_, "arena_chain", chain + 1)
        else:
            setattr(tarfile_, "arena_chain", 0)
        return super()._proc_member(tarfile_)  # type: ignore[misc]


def _tar_mode(source: Path) -> Literal["r:gz", "r:bz2", "r:xz", "r:"]:
    """How the tar is compressed, by its first bytes (one reading, so a refusal is one reason)."""
    with open(source, "rb") as handle:
        magic = handle.read(6)
    if magic.startswith(b"\x1f\x8b"):
        return "r:gz"
    if magic.startswith(b"BZh"):
        return "r:bz2"
    return "r:xz" if magic.startswith(b"\xfd7zXZ") else "r:"


def _tar_members(source: Path, budget: _Budget, result: Unpacked) -> Iterator[_Member]:
    with tarfile.open(source, _tar_mode(source), tarinfo=_BoundedTarInfo) as archive:
        for info in archive:
            getattr(archive, "members").clear()  # read as a stream: no list of every header kept
            if archive.offset > budget.limits.unpacked_bytes + budget.limits.files * 2048:
                _over(budget, result, "bytes", f"more than {_mb(budget.limits.unpacked_bytes)} unpacked")
                raise _Stop
            if info.isdir():
                yield _Member(info.name, "dir")
            elif info.issym():
                yield _Member(info.name, "symlink", link=info.linkname)
            elif info.islnk():
                yield _Member(info.name, "hardlink", link=info.linkname)
            elif info.ischr() or info.isblk():
                yield _Member(info.name, "device")
            elif info.isfifo():
                yield _Member(info.name, "fifo")
            elif info.isreg():
                yield _Member(info.name, "file", info.size, mode=info.mode,
                              open=functools.partial(_tar_file, archive, info))
            else:
                yield _Member(info.name, "other")


# --- checking an entry ---------------------------------------------------------------------------

def _check(member: _Member, budget: _Budget, result: Unpacked) -> PurePosixPath | None:
    """The member's safe relative path, or None (with its problem noted) if it may not be unpacked."""
    name = member.name.replace("\\", "/")  # written by Windows tools; and so "..\\" is caught too
    where = f"archive: {member.name[:200]}"
    problem = _name_problem(name, where, budget.limits)
    if problem is not None:
        result.problems.append(problem)
        return None
    parts = [part for part in PurePosixPath(name).parts if part not in ("", ".")]
    if not parts:
        return None  # the folder itself
    problem = _depth_problem(parts, where, budget.limits) or _kind_problem(member, where) or \
        _link_problem(member, parts, where)
    if problem is not None:
        result.problems.append(problem)
        return None
    budget.entries += 1
    if budget.entries > budget.limits.files:
        _over(budget, result, "files", f"more than {budget.limits.files} entries (files, folders and links)")
        raise _Stop
    relative = PurePosixPath(*parts)
    key = relative.as_posix()
    if key in budget.explicit:
        result.problems.append(Problem(where, "a second entry with this name",
                                       "pack each file once (an archive tool that appends makes duplicates)"))
        return None
    budget.explicit.add(key)
    return relative


def _name_problem(name: str, where: str, limits: SubmissionLimits) -> Problem | None:
    """What is wrong with an entry's name (with '/' for '\\'): none usable, absolute, or climbing out."""
    if not name or "\x00" in name or len(name.encode("utf-8", errors="replace")) > limits.name_bytes:
        return Problem(where, "an entry without a usable name")
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        return Problem(where, "an absolute path", RELATIVE_FIX)
    if ".." in path.parts:
        return Problem(where, "a path that climbs out of the bot's folder ('..')", RELATIVE_FIX)
    return None


def _depth_problem(parts: list[str], where: str, limits: SubmissionLimits) -> Problem | None:
    if len(parts) > limits.depth:
        return Problem(where, f"nested deeper than {limits.depth} folders")
    return None


def _kind_problem(member: _Member, where: str) -> Problem | None:
    """A device, a named pipe or another special file: never submitted."""
    if member.kind not in ("device", "fifo", "other"):
        return None
    what = {"device": "a device file", "fifo": "a named pipe"}.get(member.kind, "a special file")
    return Problem(where, f"{what}: only regular files, folders and links within the folder may be submitted")


def _link_problem(member: _Member, parts: list[str], where: str) -> Problem | None:
    """A link (symbolic or hard) without a usable target, or to a target outside the bot's folder."""
    if member.kind not in ("symlink", "hardlink"):
        return None
    if len(member.link) > LINK_TARGET_BYTES or "\x00" in member.link or not member.link:
        return Problem(where, "a link without a usable target", LINK_FIX)
    target = PurePosixPath(member.link)
    resolved = PurePosixPath(*parts[:-1]) / target if member.kind == "symlink" else target
    if target.is_absolute() or not _stays_inside(resolved):
        return Problem(where, f"a link to {member.link!r}, outside the bot's folder", LINK_FIX)
    return None


def _over(budget: _Budget, result: Unpacked, cap: str, message: str) -> None:
    if cap not in budget.over:
        budget.over.add(cap)
        result.problems.append(Problem("submission", message, ENTRY_FIX))


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


# --- writing an entry, never through a link ------------------------------------------------------

class _ThroughLink(Exception):
    """A folder on the entry's path is a link (or not a folder): the entry is refused."""

    def __init__(self, through: str) -> None:
        super().__init__(through)
        self.through = through


def _open_folder(root: int, parts: tuple[str, ...], *, make: bool = True) -> int:
    """A descriptor of the folder root/parts..., made where missing (`make`), never following a link on the way."""
    current = os.dup(root)
    try:
        for index, part in enumerate(parts):
            try:
                following = os.open(part, _NO_FOLLOW_DIR, dir_fd=current)
            except FileNotFoundError:
                if not make:
                    raise
                os.mkdir(part, 0o755, dir_fd=current)
                following = os.open(part, _NO_FOLLOW_DIR, dir_fd=current)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _ThroughLink("/".join(parts[:index + 1])) from None
                raise
            os.close(current)
            current = following
        return current
    except BaseException:
        os.close(current)
        raise


def _place(relative: PurePosixPath, member: _Member, root: int, budget: _Budget, result: Unpacked) -> None:
    """Put one checked member into the destination folder (never through a link, never over a name)."""
    where = f"archive: {member.name[:200]}"
    if _is_clutter(relative):
        _skip_clutter(relative, budget, result)
        return
    folders = relative.parts if member.kind == "dir" else relative.parts[:-1]
    try:
        parent = _open_folder(root, folders)
    except _ThroughLink as link:
        result.problems.append(Problem(where, f"a path through the link {link.through!r}",
                                       "pack the files themselves, not links to folders"))
        return
    try:
        _make_entry(relative.name, member, root, parent, where, budget, result)
    except FileExistsError:
        result.problems.append(Problem(where, "a second entry with this name (or a file where a folder is)",
                                       "pack each file once"))
    finally:
        os.close(parent)


def _skip_clutter(relative: PurePosixPath, budget: _Budget, result: Unpacked) -> None:
    """Leave a clutter member out: note its clutter folder (or itself) once as skipped, and uncount it."""
    first = next((i for i, part in enumerate(relative.parts) if part in CLUTTER_DIRS), None)
    shown = str(relative) if first is None else str(PurePosixPath(*relative.parts[:first + 1])) + "/"
    if shown not in result.skipped:
        result.skipped.append(shown)
    budget.entries -= 1


def _make_entry(name: str, member: _Member, root: int, parent: int, where: str, budget: _Budget,
                result: Unpacked) -> None:
    """Create a symlink, hard-link copy or file member as `name` in the open folder `parent` (folders: nothing)."""
    if member.kind == "symlink":
        os.symlink(member.link, name, dir_fd=parent)
    elif member.kind == "hardlink":  # a copy of the member it names, read without following links
        _copy_member(member, root, parent, name, budget, result)
    elif member.kind == "file" and member.open is not None:
        with member.open() as opened:
            _write(opened, parent, name, 0o755 if member.mode & 0o111 else 0o644, where, budget, result)


def _write(stream: IO[bytes], parent: int, name: str, mode: int, where: str, budget: _Budget,
           result: Unpacked) -> None:
    """Copy a member's bytes into a new file under the caps (counted as read, whatever its header claimed)."""
    descriptor = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode,
                         dir_fd=parent)
    written = 0
    with os.fdopen(descriptor, "wb") as out:
        while chunk := stream.read(_COPY_CHUNK):
            written += len(chunk)
            budget.bytes += len(chunk)
            if written > budget.limits.file_bytes:
                result.problems.append(Problem(where, f"a file over {_mb(budget.limits.file_bytes)}",
                                               "leave large data out of the bot, or shrink it"))
                return
            if budget.bytes > budget.limits.unpacked_bytes:
                _over(budget, result, "bytes", f"more than {_mb(budget.limits.unpacked_bytes)} unpacked")
                raise _Stop
            out.write(chunk)


def _copy_member(member: _Member, root: int, parent: int, name: str, budget: _Budget, result: Unpacked) -> None:
    where = f"archive: {member.name[:200]}"
    parts = tuple(part for part in PurePosixPath(member.link).parts if part not in ("", "."))
    missing = Problem(where, f"a hard link to {member.link!r}, which is not a file before it", "pack the file itself")
    if not parts or parts[-1] == "..":
        result.problems.append(missing)
        return
    try:
        folder = _open_folder(root, parts[:-1], make=False)
    except _ThroughLink as link:
        result.problems.append(Problem(where, f"a link through the link {link.through!r}",
                                       "pack the files themselves, not links"))
        return
    except OSError:
        result.problems.append(missing)
        return
    try:
        source = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        result.problems.append(missing)
        return
    finally:
        os.close(folder)
    with os.fdopen(source, "rb") as opened:
        if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
            result.problems.append(Problem(where, f"a hard link to {member.link!r}, which is not a file",
                                           "pack the file itself"))
            return
        _write(opened, parent, name, 0o644, where, budget, result)


def links_leading_out(folder: Path) -> list[Problem]:
    """Every link under `folder` that, resolved on disk through the other links, leads outside it."""
    root = os.path.realpath(folder)
    problems = []
    for directory, dirs, files in os.walk(folder, followlinks=False):
        for name in [*dirs, *files]:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if os.path.commonpath([root, target]) != root:
                    relative = os.path.relpath(path, folder)
                    problems.append(Problem(f"archive: {relative}", f"a link to {os.readlink(path)!r}, which leads "
                                            "outside the bot's folder through other links", LINK_FIX))
    return problems


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
