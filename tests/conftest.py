"""The whole suite sees one game Arena does not ship: tests/plugins/odd_one_out (three seats, secret
picks), installed as a distribution of its own (its package and a dist-info naming its entry point,
as pip would write them) in a folder of its own, put on sys.path here and on PYTHONPATH for the
programs the tests start. Nothing in arena/ names it: it is found through the arena.games entry
points, like Arena's own families. The conformance suite runs it with the others."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

# Tables are as wide for every test, in the main process or a worker of pytest-xdist (rich reads COLUMNS).
os.environ["COLUMNS"] = "120"

PLUGIN = Path(__file__).resolve().parent / "plugins" / "odd_one_out"


def install_plugin(source: Path, site: Path) -> Path:
    """Install a plug-in game's package into `site` with its dist-info (METADATA, entry_points.txt)."""
    import tomllib

    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    for package in sorted(p for p in source.iterdir() if (p / "__init__.py").is_file()):
        shutil.copytree(package, site / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    name, version = project["name"], project["version"]
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                   f"Summary: {project.get('description', '')}\n")
    lines = []
    for group, entries in project.get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text("")
    return site


PLUGIN_SITE = install_plugin(PLUGIN, Path(tempfile.mkdtemp(prefix="arena-plugin-site-")))
PLUGIN_SITE.chmod(0o755)  # readable by the bots' own users, as an installed package is
sys.path.append(str(PLUGIN_SITE))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(PLUGIN_SITE)]))


def pytest_sessionfinish() -> None:
    shutil.rmtree(PLUGIN_SITE, ignore_errors=True)
