"""Generate the Python protocol modules from protos/arena/v1 with grpc_tools.protoc.

Runs at install time (setup.py's build step) and again on import whenever the .proto sources in
a checkout no longer match what was generated, so the generated code is never stale. Standard
library plus grpc_tools only: setup.py loads this file before the package's dependencies exist.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from importlib import metadata
from pathlib import Path

PROTO_PACKAGE = Path("arena") / "v1"  # under protos/: the proto package arena.v1
GENERATED_PACKAGE = "arena.rpc.generated"
DIGEST_FILE = "SOURCE_DIGEST"
_IMPORT = re.compile(r"^(from|import) arena\.v1( import|\.)", re.MULTILINE)


class ProtocolCodeError(ImportError):
    """The generated protocol code is missing or stale and cannot be generated here."""


def project_root() -> Path:
    """The checkout (or unpacked source tree) this file lives in."""
    return Path(__file__).resolve().parents[2]


def proto_files(root: Path) -> list[Path]:
    """The .proto sources, sorted."""
    return sorted((root / "protos" / PROTO_PACKAGE).glob("*.proto"))


def source_digest(files: list[Path]) -> str:
    """A digest of the proto sources' names and contents."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def output_dir(root: Path) -> Path:
    """Where the generated modules go: arena/rpc/generated/."""
    return root / "arena" / "rpc" / "generated"


def _installed_version(distribution: str) -> tuple[int, ...]:
    try:
        text = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ()
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def is_current(root: Path) -> bool:
    """True when the generated modules match the proto sources and the installed grpcio can run them."""
    files = proto_files(root)
    stamp = output_dir(root) / DIGEST_FILE
    if not files or not stamp.exists():
        return False
    digest, _, tools_version = stamp.read_text().strip().partition("\n")
    if digest != source_digest(files):
        return False
    generated_by = tuple(int(part) for part in re.findall(r"\d+", tools_version)[:3])
    return _installed_version("grpcio") >= generated_by  # generated code refuses an older grpcio


def generate(root: Path | None = None) -> list[Path]:
    """Run protoc over every .proto; write *_pb2.py, *_pb2.pyi and *_pb2_grpc.py; return them."""
    from grpc_tools import protoc  # only needed when generating

    root = root or project_root()
    files = proto_files(root)
    if not files:
        raise ProtocolCodeError(f"no .proto files under {root / 'protos' / PROTO_PACKAGE}")
    include = root / "protos"
    well_known = Path(protoc.__file__).resolve().parent / "_proto"
    target = output_dir(root)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arena-protoc-") as scratch:
        arguments = ["grpc_tools.protoc", f"-I{include}", f"-I{well_known}", f"--python_out={scratch}",
                     f"--pyi_out={scratch}", f"--grpc_python_out={scratch}"]
        arguments += [str(path.relative_to(include)) for path in files]
        if protoc.main(arguments) != 0:
            raise ProtocolCodeError("grpc_tools.protoc failed on " + ", ".join(p.name for p in files))
        written = []
        for produced in sorted((Path(scratch) / PROTO_PACKAGE).iterdir()):
            text = _IMPORT.sub(lambda m: f"{m.group(1)} {GENERATED_PACKAGE}{m.group(2)}", produced.read_text())
            partial = target / (produced.name + ".part")
            partial.write_text(text)
            os.replace(partial, target / produced.name)  # atomic: a reader never sees half a module
            written.append(target / produced.name)
    tools_version = ".".join(str(part) for part in _installed_version("grpcio-tools"))
    (target / DIGEST_FILE).write_text(f"{source_digest(files)}\n{tools_version}\n")
    return written


def ensure_generated() -> None:
    """Make sure the generated modules are importable and current; regenerate in a checkout."""
    root = project_root()
    if not proto_files(root):  # an installed package: generated at build time, protos not shipped
        if not (output_dir(root) / "bot_pb2.py").exists():
            raise ProtocolCodeError("arena's protocol code was not generated; reinstall the package")
        return
    if is_current(root):
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        fcntl = None  # type: ignore[assignment]
    lock_path = output_dir(root) / ".generate.lock"
    with open(lock_path, "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # several bot processes may start at once
        if is_current(root):
            return
        try:
            generate(root)
        except ModuleNotFoundError:
            raise ProtocolCodeError(
                "arena's protocol code is missing or older than protos/: install grpcio-tools and run "
                "`pip install -e .`") from None


def main() -> int:
    """`python arena/rpc/protogen.py`: regenerate now."""
    for path in generate():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
