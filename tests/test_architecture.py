"""The shape of the package, checked: no import circle, the rules import only the rules, and only
the protocol's edge imports gRPC (module-level imports; those under `if TYPE_CHECKING` and inside
functions are lazy by design)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "arena"


def module_imports() -> dict[str, set[str]]:
    """Every arena module -> the top-level names it imports at module level."""
    modules: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        if "generated" in path.parts:
            continue
        name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")
        imported: set[str] = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
                imported.update(f"{node.module}.{alias.name}" for alias in node.names)
        modules[name] = imported
    return modules


def test_no_import_circle() -> None:
    modules = module_imports()
    graph = {name: {other for other in imports if other in modules and other != name}
             for name, imports in modules.items()}
    state: dict[str, int] = {}
    path: list[str] = []
    circles: list[list[str]] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                circles.append(path[path.index(other):] + [other])
            elif other not in state:
                visit(other)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert not circles, "import circles: " + "; ".join(" -> ".join(circle) for circle in circles)


def test_the_rules_import_only_the_rules_and_the_standard_library() -> None:
    """A family's codec is the protocol's adapter (it imports the generated messages); nothing else of
    arena/games reaches beyond arena.games."""
    for name, imports in module_imports().items():
        if not name.startswith("arena.games") or name.rsplit(".", 1)[-1].startswith("codec"):
            continue
        foreign = sorted(i for i in imports if i.startswith("arena.") and not i.startswith("arena.games")
                         or i.split(".")[0] in {"grpc", "google", "sqlalchemy", "typer", "rich", "numpy"})
        assert not foreign, f"{name} imports {foreign}"


def test_only_the_protocol_edge_imports_grpc() -> None:
    for name, imports in module_imports().items():
        if any(i == "grpc" or i.startswith("grpc.") or i.startswith("grpc_") for i in imports):
            assert name.startswith("arena.rpc"), f"{name} imports gRPC"
