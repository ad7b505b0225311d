"""Archives whose structure lies: a zip directory far bigger than its end record says (understated, hidden
behind a zip64 record, or after a fake end record in the comment), entries that inflate past their size,
methods no tool of ours makes, tar headers chained by the thousand; each refused with one clear line and
little memory, however the archive counts itself. And hypothesis mutating zips and tars byte by byte and
field by field: unpacking always ends in files or problems, never an exception, within bounded memory."""

from __future__ import annotations

import gzip
import io
import resource
import subprocess
import sys
import tarfile
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.submissions.archive import SubmissionLimits, unpack
from bench.lying_archives import (
    MANIFEST,
    crowded_zip,
    directory_entry,
    end_record,
    local_entry,
    pax_chain,
    pax_headers,
)

MEMORY_BYTES = 8 * 2**20  # what refusing any of these may allocate at its peak


def refused_with_little_memory(archive: Path, out: Path) -> list[str]:
    tracemalloc.start()
    try:
        result = unpack(archive, out)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BYTES, f"{peak / 2**20:.1f} MB"
    assert result.problems and not any(out.iterdir())
    return [problem.message for problem in result.problems]


@pytest.mark.parametrize("shape", ["understated", "hidden-behind-zip64", "after-a-fake-end-record"])
def test_a_zip_directory_is_counted_as_read_not_as_it_says(tmp_path: Path, shape: str) -> None:
    """120,000 entries in 6 MB of directory, which the end record puts at 2,000 (at the cap), or at 1 in a
    zip64 record, or behind a fake end record in the comment: zipfile would build every entry."""
    data = {
        "understated": lambda: crowded_zip(120_000, declared=2000),
        "hidden-behind-zip64": lambda: crowded_zip(120_000, declared=1, zip64=True),
        "after-a-fake-end-record": lambda: crowded_zip(120_000, declared=2000, comment=b"x" * 30 + end_record(1, 0, 0)),
    }[shape]()
    archive = tmp_path / "crowded.zip"
    archive.write_bytes(data)
    messages = refused_with_little_memory(archive, tmp_path / "out")
    assert messages in (["more than 2000 entries (files, folders and links)"],
                        ["cannot be read: its end record does not point at its directory (data before or inside "
                         "it)"]), messages


def test_a_directory_of_590000_entries_is_refused_one_past_the_cap(tmp_path: Path) -> None:
    archive = tmp_path / "huge-directory.zip"
    archive.write_bytes(crowded_zip(590_000, declared=590_000, zip64=True))
    assert refused_with_little_memory(archive, tmp_path / "out") == [
        "more than 2000 entries (files, folders and links)"]


def test_a_count_that_differs_from_the_directory_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "miscounted.zip"
    archive.write_bytes(crowded_zip(3, declared=7))
    assert refused_with_little_memory(archive, tmp_path / "out") == [
        "cannot be read: its directory holds 3 entries, its end record says 7"]


def test_an_entry_that_inflates_past_its_size_is_stopped_as_it_is_read(tmp_path: Path) -> None:
    """A deflated entry whose directory says 10 bytes holds 30 MB of zeros: refused after the 11th byte."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = packer.compress(b"\0" * (30 * 2**20)) + packer.flush()
    local = local_entry(b"bot.toml", MANIFEST) + local_entry(b"bomb.bin", bomb, method=8, size=10)
    bomb_at = len(local_entry(b"bot.toml", MANIFEST))
    directory = (directory_entry(b"bot.toml", 0, size=len(MANIFEST), crc=zlib.crc32(MANIFEST))
                 + directory_entry(b"bomb.bin", bomb_at, size=10, packed=len(bomb), method=8))
    archive = tmp_path / "bomb.zip"
    archive.write_bytes(local + directory + end_record(2, len(directory), len(local)))
    messages = [problem.message for problem in unpack(archive, tmp_path / "out").problems]
    assert messages == ["cannot be read: bomb.bin: more bytes than its entry says (10)"], messages


def test_methods_and_encryption_we_do_not_read_are_named(tmp_path: Path) -> None:
    archive = tmp_path / "bzip2.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_BZIP2) as packed:
        packed.writestr("bot.toml", MANIFEST)
    assert [problem.message for problem in unpack(archive, tmp_path / "out").problems] == [
        "cannot be read: bot.toml is compressed with bzip2: only stored and deflated entries are read"]
    secret = tmp_path / "encrypted.zip"
    data = bytearray(sample_zip())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the first entry's flags: encrypted
        data[data.find(signature) + flags_at] |= 1
    secret.write_bytes(bytes(data))
    assert [problem.message for problem in unpack(secret, tmp_path / "out2").problems] == [
        "cannot be read: bot.toml is encrypted"]


def test_zip64_entries_and_stored_ones_unpack(tmp_path: Path) -> None:
    archive = tmp_path / "zip64.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as packed:
        with packed.open("bot.toml", "w", force_zip64=True) as opened:
            opened.write(MANIFEST)
        packed.writestr(zipfile.ZipInfo("bot.py"), b"print('hi')\n" * 1000, compress_type=zipfile.ZIP_STORED)
        packed.writestr("data/big.txt", b"0123456789" * 200_000)
    result = unpack(archive, tmp_path / "out")
    assert not result.problems, result.problems
    assert (tmp_path / "out" / "bot.toml").read_bytes() == MANIFEST
    assert (tmp_path / "out" / "data" / "big.txt").read_bytes() == b"0123456789" * 200_000
    assert result.files == 3 and result.bytes == len(MANIFEST) + 12_000 + 2_000_000


def test_a_chain_of_1500_pax_headers_is_one_line(tmp_path: Path) -> None:
    archive = tmp_path / "chain.tar.gz"
    archive.write_bytes(pax_chain(1500))
    assert len(archive.read_bytes()) < 20_000  # (10 KB: the finding's upload)
    assert refused_with_little_memory(archive, tmp_path / "out") == [
        "cannot be read: a member with more than 8 header extensions in a row"]
    done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", "bot", "submit",
                           str(archive), "--db", f"sqlite:///{tmp_path / 'arena.db'}", "--bot-store",
                           str(tmp_path / "bots")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout
    assert "header extensions in a row" in done.stdout + done.stderr


def test_a_short_chain_as_tar_tools_write_unpacks(tmp_path: Path) -> None:
    archive = tmp_path / "chain.tar.gz"
    archive.write_bytes(pax_chain(3))
    result = unpack(archive, tmp_path / "out")
    assert not result.problems and (tmp_path / "out" / "ab").read_bytes() == MANIFEST


# --- the fuzzers ----------------------------------------------------------------------------------

def sample_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("bot.toml", MANIFEST)
        packed.writestr("bot.py", b"print('hi')\n" * 50)
        packed.writestr(zipfile.ZipInfo("lib/"), b"")
        packed.writestr("lib/x.py", b"x = 1\n", compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


def sample_tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as packed:
        for name, data in (("bot.toml", MANIFEST), ("bot.py", b"print('hi')\n" * 50), ("lib/" + "y" * 120, b"1")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            packed.addfile(info, io.BytesIO(data))
    return out.getvalue()


ZIP, TAR = sample_zip(), sample_tar()
FIELD_VALUES = st.sampled_from([0, 1, 0xFF, 0xFFFF, 0xFFFFFFFF, 0x7FFFFFFF, 2000, 2001, 65535 * 46])
EDITS = st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from([1, 2, 4, 8]), FIELD_VALUES), max_size=6)


def edited(data: bytes, edits: list[tuple[int, int, int]], flips: list[tuple[int, int]]) -> bytes:
    """The bytes with fields overwritten (position, width, value) and bytes flipped."""
    out = bytearray(data)
    for position, width, value in edits:
        at = position % max(1, len(out) - width)
        out[at:at + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
    for position, mask in flips:
        out[position % len(out)] ^= mask or 1
    return bytes(out)


def unpacks_or_says_why(archive: Path, out: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = unpack(archive, out, SubmissionLimits(files=50, unpacked_bytes=1 << 20, file_bytes=1 << 18))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB: memory stays bounded
    assert all(problem.message and "\n" not in problem.message for problem in result.problems)
    assert result.files <= 50 and result.bytes <= (1 << 20) + (1 << 16)


FLIPS = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=8)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(edits=EDITS, flips=FLIPS, structural=st.booleans())
def test_fuzz_zip_structure(tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, int, int]],
                            flips: list[tuple[int, int]], structural: bool) -> None:
    """Fields of the end record and the directory (aimed at, when `structural`) or anywhere overwritten."""
    if structural:  # aim at the directory and the end record, where the counts, sizes and offsets are
        start = ZIP.rfind(b"PK\x01\x02", 0, ZIP.find(b"PK\x01\x02") + 1)
        edits = [(start + position % (len(ZIP) - start), width, value) for position, width, value in edits]
    base = tmp_path_factory.mktemp("zip")
    archive = base / "upload.zip"
    archive.write_bytes(edited(ZIP, edits, flips))
    unpacks_or_says_why(archive, base / "out")


@FUZZ
@given(edits=EDITS, flips=FLIPS, chain=st.integers(0, 40), gzipped=st.booleans())
def test_fuzz_tar_structure(tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, int, int]],
                            flips: list[tuple[int, int]], chain: int, gzipped: bool) -> None:
    """Headers' bytes overwritten, pax chains of any length before the members, gzipped or not."""
    data = edited(pax_headers(chain) + TAR, edits, flips)
    base = tmp_path_factory.mktemp("tar")
    archive = base / ("upload.tar.gz" if gzipped else "upload.tar")
    archive.write_bytes(gzip.compress(data) if gzipped else data)
    unpacks_or_says_why(archive, base / "out")
