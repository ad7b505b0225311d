"""How a bot program is launched: the sandbox's command line, a clean environment, the token in a
file only, limits capped by the operator, and a clear line when the sandbox cannot run here."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.sandbox import DEFAULT_CAPS, Limits, SandboxSettings, SandboxUnavailable, check_sandbox
from arena.sandbox import launch as launch_module
from arena.sandbox.cgroups import CgroupFactory
from arena.sandbox.limits import limits_from_table, parse_limit_settings

TOKEN = "ab" * 24
DOCUMENTED = {"ARENA_SERVER", "ARENA_TOKEN_FILE", "ARENA_BOT_NAME", "ARENA_CONCURRENCY", "PATH", "HOME", "TMPDIR",
              "LANG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}


def plan(tmp_path: Path, mode: str = "bwrap", limits: Limits = Limits(), **settings: object):
    runtime = tmp_path / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    folder = tmp_path / "mybot"
    folder.mkdir(exist_ok=True)
    launcher = launch_module.Launcher(SandboxSettings(mode=mode, **settings), runtime, runtime / "bots.sock")  # type: ignore[arg-type]
    made = launcher.plan(name="mybot", directory=folder, command=["{python}", "bot.py", "{dir}"], token=TOKEN,
                         concurrency=2, limits=limits, env={"MY_SETTING": "1"})
    return launcher, made, folder


def test_a_sandboxed_bot_gets_namespaces_its_folder_read_only_and_nothing_else(tmp_path: Path) -> None:
    launcher, made, folder = plan(tmp_path)
    argv = made.argv
    bwrap = argv.index(next(part for part in argv if part.endswith("bwrap")))
    inner = argv[bwrap:]
    for flag in ("--unshare-all", "--die-with-parent", "--new-session"):
        assert flag in inner
    assert "--share-net" not in inner  # no network at all
    assert inner[inner.index("--cap-drop") + 1] == "ALL"
    binds = [(inner[i + 1], inner[i + 2]) for i, part in enumerate(inner) if part == "--ro-bind"]
    assert (str(folder), "/bot") in binds
    assert (str(launcher.socket_path), "/run/arena/referee.sock") in binds
    assert not any(part == "--bind" for part in inner)  # nothing of the host is writable
    sources = {source for source, _ in binds}
    assert str(tmp_path) not in sources and not any(s.startswith(str(Path.home())) and s != str(Path.home())
                                                     and "pyenv" not in s for s in sources)
    assert inner[inner.index("--chdir") + 1] == "/bot"
    assert inner[-1] == "/bot" and inner[-2] == "bot.py"  # {dir} is the folder as the bot sees it
    chdir = inner.index("--chdir")
    assert inner[chdir - 4:chdir] == ["--remount-ro", "/dev", "--remount-ro", "/"]
    hidden = inner.index(str(BUILTIN_BOTS))  # inside the arena package, which is bound: emptied, read-only
    assert inner[hidden - 1] == "--tmpfs" and inner[hidden + 1:hidden + 3] == ["--remount-ro", str(BUILTIN_BOTS)]
    made.cleanup()
    launcher.close()


def test_the_environment_is_clean_and_the_token_is_in_a_file_only(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "the-admin-secret")
    monkeypatch.setenv("ARENA_SEED_SALT", "the-salt")
    monkeypatch.setenv("PGPASSWORD", "hunter2")
    for mode in ("bwrap", "none"):
        launcher, made, _ = plan(tmp_path / mode, mode, env={"OPERATOR_SETTING": "x"})
        assert set(made.env) - {"PYTHONPATH"} == DOCUMENTED | {"MY_SETTING", "OPERATOR_SETTING"}
        if "PYTHONPATH" in made.env:  # games installed on paths of their own (the suite's plug-in game)
            assert made.env["PYTHONPATH"] == ":".join(map(str, launch_module.game_paths()))
        assert TOKEN not in " ".join(made.argv) and TOKEN not in " ".join(made.env.values())
        token_file = Path(made.env["ARENA_TOKEN_FILE"]) if mode == "none" else made.private_dir / "token"
        assert token_file.read_text() == TOKEN
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o400
        assert stat.S_IMODE(made.private_dir.stat().st_mode) == 0o700
        if mode == "bwrap":
            assert made.env["ARENA_SERVER"] == "unix:/run/arena/referee.sock"
            assert made.env["ARENA_TOKEN_FILE"] == "/run/arena/token" and made.env["HOME"] == "/tmp"
        else:
            assert made.env["ARENA_SERVER"] == f"unix:{launcher.socket_path}"
            assert made.env["HOME"].startswith(str(made.private_dir))
        made.cleanup()
        assert not made.private_dir.exists()
        launcher.close()


def test_limits_come_from_the_manifest_capped_by_the_operator(tmp_path: Path) -> None:
    asked, problems = limits_from_table({"memory_mb": 8192, "processes": 16})
    assert problems == [] and asked == Limits(memory_mb=8192, processes=16)
    assert asked.exceeding(DEFAULT_CAPS) == ["memory_mb 8192 > cap 4096"]
    _, made, _ = plan(tmp_path, limits=asked, caps=parse_limit_settings(["memory_mb=2048"], DEFAULT_CAPS))
    assert made.limits == Limits(memory_mb=2048, processes=16)
    argv = " ".join(made.argv)
    assert "--nofile=256:256" in argv and "--cpu=600:605" in argv
    assert f"--size {64 * 2**20} --tmpfs /tmp" in argv
    made.cleanup()


@pytest.mark.parametrize("entry, problem", [("memory=1", "NAME one of"), ("memory_mb=lots", "not a whole number"),
                                            ("processes=0", "at least 1"), ("memory_mb", "NAME=NUMBER")])
def test_bad_limit_caps_say_what_is_wrong(entry: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_limit_settings([entry], DEFAULT_CAPS)


def test_the_operator_may_not_set_the_referees_variables() -> None:
    with pytest.raises(ValueError, match="ARENA_TOKEN_FILE"):
        SandboxSettings(env={"ARENA_TOKEN_FILE": "/tmp/mine"})
    with pytest.raises(ValueError, match="unknown sandbox 'docker'"):
        SandboxSettings(mode="docker")


def test_without_bubblewrap_launching_says_how_to_install_it_or_opt_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    launch_module._bwrap_problem.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match=r"apt-get install bubblewrap.*--sandbox none"):
            check_sandbox("bwrap")
        check_sandbox("none")  # trusted bots need nothing
        code = main(["match", "major-general", "random", "random", "--out", str(tmp_path / "out")])
        err = capsys.readouterr().err
        assert code == 2 and "apt-get install bubblewrap" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err
    finally:
        launch_module._bwrap_problem.cache_clear()


def test_a_bot_tree_gets_its_own_cgroup_with_the_limits(tmp_path: Path) -> None:
    factory = CgroupFactory()
    if not factory.available:
        pytest.skip(f"no writable cgroup on this machine ({factory.describe()}); limits fall back to rlimits")
    group = factory.create("test-bot")
    assert group is not None
    try:
        group.limit(256 * 2**20, 12)
        if group.version == 2:
            assert (group.dirs["unified"] / "memory.max").read_text().strip() == str(256 * 2**20)
            assert (group.dirs["unified"] / "pids.max").read_text().strip() == "12"
        else:
            if "memory" in group.dirs:
                assert int((group.dirs["memory"] / "memory.limit_in_bytes").read_text()) == 256 * 2**20
            if "pids" in group.dirs:
                assert (group.dirs["pids"] / "pids.max").read_text().strip() == "12"
        assert group.pids() == [] and group.usage().oom_kills == 0
    finally:
        assert group.remove()
        factory.close()
    assert not any(directory.exists() for directory in group.dirs.values())
