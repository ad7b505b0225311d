"""Build hook: generate the protocol code from protos/ (grpc_tools.protoc) whenever the package is
built or installed, editable or not. Everything else about the package is in pyproject.toml."""

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def generate_protocol_code() -> None:
    """Run arena/rpc/protogen.py (loaded by path: the package's dependencies are not installed yet)."""
    spec = importlib.util.spec_from_file_location("arena_protogen", ROOT / "arena" / "rpc" / "protogen.py")
    assert spec is not None and spec.loader is not None
    protogen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(protogen)
    protogen.generate(ROOT)


class BuildWithProtocol(build_py):
    """build_py that first writes arena/rpc/generated/*_pb2*.py from protos/arena/v1/*.proto."""

    def run(self) -> None:
        generate_protocol_code()
        super().run()


setup(cmdclass={"build_py": BuildWithProtocol})
