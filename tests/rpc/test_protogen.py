"""The protocol code is generated from protos/ (never stale) and carries the services."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.rpc import protogen
from arena.rpc.generated import admin_pb2, bot_pb2, bot_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_matches_the_protos() -> None:
    assert protogen.is_current(ROOT)
    assert bot_pb2.DESCRIPTOR.package == "arena.v1"
    assert bot_pb2.DESCRIPTOR.services_by_name["Bot"].methods_by_name["Play"].client_streaming
    assert "StartMatch" in admin_pb2.DESCRIPTOR.services_by_name["RefereeAdmin"].methods_by_name
    assert hasattr(bot_pb2_grpc, "BotStub")


def test_a_changed_proto_is_regenerated(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    (tmp_path / "arena" / "rpc" / "generated").mkdir(parents=True)
    assert not protogen.is_current(tmp_path)
    written = protogen.generate(tmp_path)
    assert {path.name for path in written} >= {"bot_pb2.py", "bot_pb2_grpc.py", "admin_pb2.py", "observations_pb2.pyi"}
    assert protogen.is_current(tmp_path)
    text = (tmp_path / "arena" / "rpc" / "generated" / "bot_pb2.py").read_text()
    assert "from arena.rpc.generated import common_pb2" in text and "from arena.v1" not in text
    with open(tmp_path / "protos" / "arena" / "v1" / "common.proto", "a") as proto:
        proto.write("\nmessage Extra {}\n")
    assert not protogen.is_current(tmp_path)


@pytest.mark.parametrize("starter", ["javascript", "cpp"])
def test_the_starters_carry_the_current_protos(starter: str) -> None:
    """A sandboxed bot sees its own folder only (and a starter is copied out of the repository), so the
    starters in other languages vendor the .proto files."""
    shipped = ROOT / "bots" / starter / "protos" / "arena" / "v1"
    for source in protogen.proto_files(ROOT):
        assert (shipped / source.name).read_text() == source.read_text(), (
            f"bots/{starter}/protos is stale: cp protos/arena/v1/*.proto {shipped.relative_to(ROOT)}/")
