"""`arena sandbox check` for real: every protection holds here, the socket families a bot may not make
(vsock, packet, netlink but route, ...) are refused, and the memory of a bot's processes together is bounded:
by the kernel's cgroup where the referee may make one, by the referee's own watch where it may not (as in a
container); and the check fails where nothing bounds it."""

from __future__ import annotations

import json
import shutil

import pytest

import arena.sandbox.launch as launch
import arena.sandbox.memory_watch as memory_watch
from arena.cli.main import main
from arena.sandbox import SandboxSettings
from arena.sandbox.cgroups import CgroupFactory
from arena.sandbox.check import grade, run_probe

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed "
                                "(apt-get install bubblewrap; `make test` does, as root)")


class NoCgroups(CgroupFactory):
    """A machine where the referee may write no cgroup (a container, an unprivileged user)."""

    def _find(self, root: object) -> None:
        self.problem = "no writable cgroup (as in a container)"


def rows_by_name(found: dict, left: dict) -> dict:
    return {row.name: row for row in grade(found, left)}


def test_the_check_passes_here_and_reports_the_new_protections(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sandbox", "check", "--json"])
    report = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in report["protections"]}
    assert code == 0 and report["ok"], [row for row in rows.values() if not row["passed"]]
    assert "vsock refused" in rows["socket families"]["found"] and "packet refused" in rows["socket families"]["found"]
    assert "netlink audit refused" in rows["socket families"]["found"]
    assert "unix made" in rows["socket families"]["found"] and "netlink route made" in rows["socket families"]["found"]
    assert rows["memory of the tree"]["passed"]


def test_without_cgroups_the_referees_watch_bounds_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "CgroupFactory", NoCgroups)
    rows = rows_by_name(*run_probe(SandboxSettings(), full=True))
    assert all(row.passed for row in rows.values()), [row for row in rows.values() if not row.passed]
    assert "the referee's watch stopped the tree" in rows["memory of the tree"].found
    assert "no writable cgroup" in launch.Launcher(SandboxSettings(), launch.Path("/nonexistent")).describe()


def test_the_watch_does_not_kill_the_probe_while_its_memory_test_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe's memory test runs a child into its own address-space limit: for a moment the probe and that
    child pass the tree's limit together. A watch scanning that moment killed the whole probe ("could not start
    the probe (exit status -9)" in a busy container, issue 46); scanning all the time, it must not now."""
    monkeypatch.setattr(launch, "CgroupFactory", NoCgroups)
    monkeypatch.setattr(memory_watch, "WATCH_S", 0.0)  # (every moment a scan: the busiest machine)
    rows = rows_by_name(*run_probe(SandboxSettings(), full=True))
    assert all(row.passed for row in rows.values()), [row for row in rows.values() if not row.passed]


def test_the_check_fails_where_nothing_bounds_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each process under its own address-space limit, no cgroup and no watch: six hold 3x the limit at once."""
    monkeypatch.setattr(launch, "CgroupFactory", NoCgroups)
    monkeypatch.setattr(launch.LaunchPlan, "started", lambda self, pid, **_: None)
    rows = rows_by_name(*run_probe(SandboxSettings(), full=True))
    assert not rows["memory of the tree"].passed and "ALL HELD" in rows["memory of the tree"].found
