"""The shape of the package, checked from its source: no import circle between modules nor between
packages, counting every import (inside functions and under `if TYPE_CHECKING` too); the rules import
only the rules; only the protocol's edge imports gRPC; no module reaches into another package's
private names; and docs/architecture.md names only modules that exist."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "arena"
DOCS = Path(__file__).resolve().parents[1] / "docs"


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")


MODULES = {module_name(path): path for path in ROOT.rglob("*.py")}


def imports_of(name: str) -> Iterator[tuple[str, str, int]]:
    """(imported module or module.name, the name as written, line) for every import in a module: at its
    top, in functions, under TYPE_CHECKING; relative ones made absolute."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, "", node.lineno
            for alias in node.names:
                yield f"{module}.{alias.name}", alias.name, node.lineno


def resolve(imported: str) -> str | None:
    """The arena module an import names (the longest one that exists), or None for another package's."""
    parts = imported.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts) if parts else None


def graph() -> dict[str, set[str]]:
    """Every arena module -> the arena modules it imports, in any way. (Importing a module runs its
    package's __init__ too: those add no edge here because Arena's __init__ files import nothing lazily.)"""
    edges: dict[str, set[str]] = {}
    for name in MODULES:
        if "generated" in name.split("."):
            edges[name] = set()
            continue
        targets = {resolve(imported) for imported, _, _ in imports_of(name)}
        edges[name] = {target for target in targets if target is not None and target != name}
    return edges


def package_of(name: str) -> str:
    """arena.games.general_orders.engine -> arena.games (a top-level module is its own package)."""
    return ".".join(name.split(".")[:2])


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_between_modules() -> None:
    assert not circles(graph()), "import circles: " + "; ".join(" <-> ".join(group) for group in circles(graph()))


def test_no_import_circle_between_packages() -> None:
    edges: dict[str, set[str]] = {}
    for name, targets in graph().items():
        for target in targets:
            if package_of(name) != package_of(target):
                edges.setdefault(package_of(name), set()).add(package_of(target))
    found = circles(edges)
    details = []
    for group in found:
        members = set(group)
        details += [f"{name} -> {target}" for name, targets in graph().items() for target in targets
                    if package_of(name) in members and package_of(target) in members
                    and package_of(name) != package_of(target)]
    assert not found, f"package circles: {found}; the imports: {details}"


def test_the_circle_check_has_teeth() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_rules_import_only_the_rules_and_the_standard_library() -> None:
    """Nothing in arena/games reaches beyond arena.games (the protocol's codecs live in arena.rpc.codecs)."""
    for name in MODULES:
        if not name.startswith("arena.games"):
            continue
        foreign = sorted({imported for imported, _, _ in imports_of(name)
                          if imported.startswith("arena.") and not imported.startswith("arena.games")
                          or imported.split(".")[0] in {"grpc", "google", "sqlalchemy", "typer", "rich", "numpy"}})
        assert not foreign, f"{name} imports {foreign}"


def test_only_the_protocol_edge_imports_grpc() -> None:
    for name in MODULES:
        for imported, _, line in imports_of(name):
            if imported == "grpc" or imported.startswith(("grpc.", "grpc_")):
                assert name.startswith("arena.rpc"), f"{name}:{line} imports gRPC"


def test_no_private_name_is_imported_from_another_package() -> None:
    offences = []
    for name in MODULES:
        for imported, written, line in imports_of(name):
            target = resolve(imported)
            if target is None or package_of(target) == package_of(name):
                continue
            private_module = any(part.startswith("_") and not part.startswith("__") for part in target.split("."))
            if (written.startswith("_") and not written.startswith("__")) or private_module:
                offences.append(f"{name}:{line} imports {imported}")
    assert not offences, offences


def test_the_architecture_page_names_modules_that_exist() -> None:
    """Every `arena/...py` path and `arena.x.y` module docs/architecture.md names is in the code."""
    text = (DOCS / "architecture.md").read_text()
    paths = set(re.findall(r"\barena/[\w/]+\.py\b", text))
    modules = {name for name in re.findall(r"\barena(?:\.\w+)+", text)}
    missing = sorted(path for path in paths if not (ROOT.parent / path).exists())
    missing += sorted(module for module in modules if resolve(module) is None or
                      (resolve(module) != module and not _is_attribute(module)))
    assert not missing, f"docs/architecture.md names what is not there: {missing}"


def _is_attribute(dotted: str) -> bool:
    """`arena.games.base.Game`: a module followed by a name it defines."""
    module = resolve(dotted)
    if module is None:
        return False
    rest = dotted[len(module) + 1:].split(".")[0]
    source = MODULES[module].read_text()
    return bool(re.search(rf"^(class|def|async def) {rest}\b|^{rest}\b\s*[:=]", source, re.MULTILINE)
                or f"import {rest}" in source or f" {rest}," in source)
