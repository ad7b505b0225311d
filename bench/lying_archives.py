"""Archives whose structure lies, built byte by byte: a zip directory far bigger than its end record says (or
hidden behind a zip64 record), and tar headers chained by the thousand. Not a benchmark: the builders
bench/archives.py measures with and tests/submissions/test_archive_structure.py checks with (here, so that
bench/ never imports tests/)."""

from __future__ import annotations

import gzip
import struct
import tarfile
import zlib

#: A bot.toml that passes every check.
MANIFEST = b'name = "ok-bot"\ncommand = ["{python}", "bot.py"]\ngames = ["major-general"]\n'


def directory_entry(name: bytes, offset: int, *, size: int = 0, crc: int = 0, method: int = 0,
                    packed: int | None = None, extra: bytes = b"") -> bytes:
    """A zip central directory entry for `name`, its local entry at `offset`."""
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc,
                       size if packed is None else packed, size, len(name), len(extra), 0, 0, 0, 0o644 << 16,
                       offset) + name + extra


def local_entry(name: bytes, data: bytes, *, method: int = 0, size: int | None = None) -> bytes:
    """A zip local entry holding `data` (its size said as `size` when given)."""
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0, zlib.crc32(data), len(data),
                       len(data) if size is None else size, len(name), 0) + name + data


def end_record(count: int, directory_bytes: int, start: int, comment: bytes = b"") -> bytes:
    """A zip end-of-central-directory record saying `count` entries."""
    return struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                       directory_bytes, start, len(comment)) + comment


def crowded_zip(entries: int, *, declared: int, zip64: bool = False, comment: bytes = b"") -> bytes:
    """One small file and a directory of `entries` entries (all naming it) whose end record says `declared`."""
    local = local_entry(b"bot.toml", MANIFEST)
    directory = b"".join(directory_entry(b"bot.toml", 0, size=len(MANIFEST), crc=zlib.crc32(MANIFEST))
                         for _ in range(entries))
    start, size = len(local), len(directory)
    if not zip64:
        return local + directory + end_record(declared, size, start, comment)
    record_at = start + size
    record = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared, size, start)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, record_at, 1)
    return local + directory + record + locator + end_record(0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, comment)


def pax_headers(links: int) -> bytes:
    """`links` pax headers in a row, each naming the member that follows "ab" (tarfile reads each by recursion)."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, 11
    return (header.tobuf(tarfile.USTAR_FORMAT) + b"11 path=ab\n".ljust(512, b"\0")) * links


def pax_chain(links: int) -> bytes:
    """A .tar.gz of one member after `links` pax headers."""
    info = tarfile.TarInfo("bot.toml")
    info.size = len(MANIFEST)
    member = info.tobuf(tarfile.USTAR_FORMAT) + MANIFEST.ljust(512, b"\0")
    return gzip.compress(pax_headers(links) + member + b"\0" * 1024)
