"""A genuinely small (or full, or read-only) filesystem for the tests of a disk that fills: a tmpfs mounted for
the test and unmounted after it. Mounting needs root (CAP_SYS_ADMIN): without it the test is skipped, saying
so."""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

FILLER = "filler.bin"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, empty."""
    yield from mounted(tmp_path / "disk", "256k")


@pytest.fixture
def roomier_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs, empty: a database's schema fits, with room for a tournament's first store of matches (up to
    200 at once: ~0.8 MB of write-ahead log for Major General's, so that the disk fills later, however fast the
    machine plays; 640 KiB held it only where a busy machine stored fewer at once)."""
    yield from mounted(tmp_path / "disk", "2m")


def mounted(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs for a full disk (needs root): {made.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(disk: Path) -> Path:
    """Fill the disk to its last byte with one file (delete it to make room again); the file."""
    filler = disk / FILLER
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(bytes(4096))
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    try:  # (a last partial block)
        with open(filler, "ab", buffering=0) as handle:
            while True:
                handle.write(b"\0")
    except OSError:
        pass
    return filler


def read_only(disk: Path) -> None:
    """Remount the disk read-only (what even root cannot write to)."""
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, capture_output=True)


def parts(folder: Path) -> list[Path]:
    """Partial files left anywhere under the folder."""
    return sorted(folder.rglob("*.part"))
