"""A zip archive read with bounds that do not trust the archive.

Python's zipfile reads a zip's whole central directory into memory, as big as its end record says, and
builds an object for every entry before anything can be counted. Here the end record only says where the
directory starts: the directory is walked entry by entry, its entries and bytes counted as they are read
(stopping one past the cap), every entry's name, extra field and comment bounded by their 16-bit lengths,
and the end record's own count only compared with what was found. A file's bytes are inflated as they are
read, a little at a time, and checked against the sizes and CRC the directory gives; stored and deflated
entries (what `zip`, Python and every common tool make) are read, anything else is refused by name.
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

END = b"PK\x05\x06"
END64 = b"PK\x06\x06"
LOCATOR64 = b"PK\x06\x07"
ENTRY = b"PK\x01\x02"
LOCAL = b"PK\x03\x04"
END_BYTES = 22
ENTRY_BYTES = 46
LOCAL_BYTES = 30
STORED, DEFLATED = 0, 8
METHODS = {1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "lzma", 93: "zstandard", 95: "xz",
           98: "ppmd", 99: "AES encryption"}
PACKED_STEP = 1024  # compressed bytes inflated at a time: at most ~1 MB out (deflate expands at most 1032x)


class ZipError(ValueError):
    """The archive is not a zip this reader will read; the message says why."""


class TooManyEntries(ZipError):
    """The directory holds more entries than the caller allows (counted as read)."""

    def __init__(self, most: int) -> None:
        super().__init__(f"more than {most} entries")
        self.most = most


@dataclass(frozen=True)
class ZipEntry:
    """One entry of the central directory."""

    name: str
    method: int
    flags: int
    crc: int
    packed: int  # compressed size
    size: int
    mode: int  # the Unix mode in its external attributes (0 where none)
    offset: int  # of its local header

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")


def read_directory(path: Path, most: int) -> list[ZipEntry]:
    """Every entry of the zip at `path` (TooManyEntries past `most`), or ZipError."""
    with open(path, "rb") as handle:
        size = handle.seek(0, io.SEEK_END)
        end_at, declared, directory_bytes, start = _end_record(handle, size)
        if start + directory_bytes != end_at or start < 0:
            raise ZipError("its end record does not point at its directory (data before or inside it)")
        handle.seek(start)
        reader = io.BufferedReader(_Window(handle, start, directory_bytes))
        entries: list[ZipEntry] = []
        while len(entries) <= most:
            fixed = reader.read(ENTRY_BYTES)
            if not fixed:
                break
            entries.append(_entry(reader, fixed, start))
        else:
            raise TooManyEntries(most)
    if len(entries) != declared:
        raise ZipError(f"its directory holds {len(entries)} entries, its end record says {declared}")
    return entries


def open_entry(path: Path, entry: ZipEntry) -> BinaryIO:
    """A file's bytes, read as they are asked for."""
    return io.BufferedReader(_EntryReader(path, entry), buffer_size=1 << 16)


def _end_record(handle: BinaryIO, size: int) -> tuple[int, int, int, int]:
    """(where the end record is, the entries it declares, the directory's size, the directory's start)."""
    handle.seek(max(0, size - (0xFFFF + END_BYTES)))
    tail = handle.read()
    base = size - len(tail)
    at = _end_record_at(tail)
    disk, disk_start, _here, count, directory_bytes, start = struct.unpack("<HHHHII", tail[at + 4:at + 20])
    end_at = base + at
    if 0xFFFF in (count, disk) or 0xFFFFFFFF in (directory_bytes, start):  # zip64: the real record before it
        end_at, disk, disk_start, count, directory_bytes, start = _zip64_end_record(handle, end_at)
    if disk or disk_start:
        raise ZipError("a zip split over several disks")
    return end_at, count, directory_bytes, start


def _end_record_at(tail: bytes) -> int:
    """Where in `tail` the end record is: the last one whose comment reaches exactly to the end of the file."""
    at = tail.rfind(END)
    while at >= 0:
        if len(tail) >= at + END_BYTES and at + END_BYTES + struct.unpack("<H", tail[at + 20:at + 22])[0] == len(tail):
            break
        at = tail.rfind(END, 0, at)
    if at < 0:
        raise ZipError("no end record: not a zip, or cut short")
    return at


def _zip64_end_record(handle: BinaryIO, end_at: int) -> tuple[int, int, int, int, int, int]:
    """(where the zip64 end record is, its disk, its directory's disk, entries, directory size, directory start)."""
    locator = end_at - 20
    handle.seek(max(0, locator))
    found = handle.read(20)
    if locator < 0 or found[:4] != LOCATOR64:
        raise ZipError("a zip64 end record that is missing")
    record_at = struct.unpack("<Q", found[8:16])[0]
    handle.seek(record_at)
    record = handle.read(56)
    if record[:4] != END64 or len(record) < 56 or record_at + 56 > locator:
        raise ZipError("a zip64 end record that is missing or cut short")
    disk, disk_start = struct.unpack("<II", record[16:24])
    count, directory_bytes, start = struct.unpack("<QQQ", record[32:56])
    return record_at, disk, disk_start, count, directory_bytes, start


def _entry(reader: BinaryIO, fixed: bytes, directory_start: int) -> ZipEntry:
    if len(fixed) < ENTRY_BYTES or fixed[:4] != ENTRY:
        raise ZipError("its directory has an entry that is not one")
    (flags, method, _time, _date, crc, packed, size, name_length, extra_length, comment_length, _disk, _internal,
     external, offset) = struct.unpack("<8xHHHHIIIHHHHHII", fixed)
    name = reader.read(name_length)
    extra = reader.read(extra_length)
    comment = reader.read(comment_length)
    if len(name) + len(extra) + len(comment) != name_length + extra_length + comment_length:
        raise ZipError("its directory is cut short")
    if 0xFFFFFFFF in (packed, size, offset):
        size, packed, offset = _zip64_sizes(extra, size, packed, offset)
    if offset + LOCAL_BYTES + packed > directory_start:
        raise ZipError("an entry whose data would reach into the directory")
    text = name.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
    return ZipEntry(text, method, flags, crc, packed, size, external >> 16, offset)


def _zip64_sizes(extra: bytes, size: int, packed: int, offset: int) -> tuple[int, int, int]:
    """The sizes and offset a zip64 extra field holds for those the entry marks 0xFFFFFFFF."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack("<HH", extra[at:at + 4])
        field = extra[at + 4:at + 4 + length]
        if kind == 1:
            values = [value for (value,) in struct.iter_unpack("<Q", field[:len(field) // 8 * 8])]
            wanted = [value == 0xFFFFFFFF for value in (size, packed, offset)]
            if sum(wanted) > len(values):
                break
            found = iter(values)
            size, packed, offset = (next(found) if want else value
                                    for want, value in zip(wanted, (size, packed, offset)))
            return size, packed, offset
        at += 4 + length
    raise ZipError("an entry whose zip64 sizes are missing")


class _Window(io.RawIOBase):
    """`length` bytes of a file from `start`, and nothing past them."""

    def __init__(self, handle: BinaryIO, start: int, length: int) -> None:
        self.handle, self.left = handle, length
        handle.seek(start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        data = self.handle.read(min(len(view), self.left))
        self.left -= len(data)
        view[:len(data)] = data
        return len(data)


class _EntryReader(io.RawIOBase):
    """A file's bytes, inflated a little at a time and checked against its entry's size and CRC."""

    def __init__(self, path: Path, entry: ZipEntry) -> None:
        if entry.flags & 0x1:
            raise ZipError(f"{entry.name} is encrypted")
        if entry.method not in (STORED, DEFLATED):
            what = METHODS.get(entry.method, f"method {entry.method}")
            raise ZipError(f"{entry.name} is compressed with {what}: only stored and deflated entries are read")
        self.entry = entry
        self.handle = open(path, "rb")
        try:
            self.handle.seek(entry.offset)
            local = self.handle.read(LOCAL_BYTES)
            if len(local) < LOCAL_BYTES or local[:4] != LOCAL:
                raise ZipError(f"{entry.name}: its local header is missing")
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            name = self.handle.read(name_length)
            if name.decode("utf-8" if entry.flags & 0x800 else "cp437", errors="replace") != entry.name:
                raise ZipError(f"{entry.name}: its local header names another file")
            self.handle.seek(extra_length, io.SEEK_CUR)
        except BaseException:
            self.handle.close()
            raise
        self.left = entry.packed
        self.inflater = zlib.decompressobj(-15) if entry.method == DEFLATED else None
        self.pending = memoryview(b"")
        self.given = 0
        self.crc = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        while not self.pending and (self.left or (self.inflater is not None and not self.inflater.eof)):
            self._inflate()
        count = min(len(view), len(self.pending))
        view[:count] = self.pending[:count]
        self.pending = self.pending[count:]  # (a view: nothing copied)
        if not count:
            self._finish()
        return count

    def _inflate(self) -> None:
        packed = self.handle.read(min(self.left, PACKED_STEP if self.inflater else 1 << 16))
        if not packed and self.left:
            raise ZipError(f"{self.entry.name}: cut short")
        self.left -= len(packed)
        if self.inflater is None:
            out = packed
        else:
            out = self.inflater.decompress(packed)
            if not self.left and not self.inflater.eof:
                raise ZipError(f"{self.entry.name}: its compressed bytes end before its data does")
        self.given += len(out)
        if self.given > self.entry.size:
            raise ZipError(f"{self.entry.name}: more bytes than its entry says ({self.entry.size})")
        self.crc = zlib.crc32(out, self.crc)
        self.pending = memoryview(out)

    def _finish(self) -> None:
        if self.given != self.entry.size or self.crc != self.entry.crc:
            raise ZipError(f"{self.entry.name}: its bytes do not match its entry's size and CRC")

    def close(self) -> None:
        self.handle.close()
        super().close()
