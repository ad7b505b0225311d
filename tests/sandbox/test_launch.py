"""How a bot program is launched: the sandbox's command line, a clean environment for the bot and a
fixed one for the wrappers, the token in the sandbox's memory only, limits capped by the operator,
a user of its own when the referee is root, and a clear line when the sandbox cannot run here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.sandbox import DEFAULT_CAPS, LaunchRefused, Limits, SandboxSettings, SandboxUnavailable, quick_check
from arena.sandbox import check as check_module
from arena.sandbox import launch as launch_module
from arena.sandbox.cgroups import CgroupFactory
from arena.sandbox.environment import WRAPPER_ENV
from arena.sandbox.limits import limits_from_table, parse_limit_settings

TOKEN = "ab" * 24
DOCUMENTED = {"ARENA_SERVER", "ARENA_TOKEN_FILE", "ARENA_BOT_NAME", "ARENA_CONCURRENCY", "ARENA_REFEREE", "PATH", "HOME",
              "TMPDIR",
              "LANG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}


def plan(tmp_path: Path, mode: str = "bwrap", limits: Limits = Limits(), env: dict[str, str] | None = None,
         **settings: object):
    runtime = tmp_path / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    folder = tmp_path / "mybot"
    folder.mkdir(exist_ok=True)
    launcher = launch_module.Launcher(SandboxSettings(mode=mode, **settings), runtime)  # type: ignore[arg-type]
    made = launcher.plan(name="mybot", directory=folder, command=["{python}", "bot.py", "{dir}"], token=TOKEN,
                         concurrency=2, limits=limits, env={"MY_SETTING": "1"} if env is None else env)
    return launcher, made, folder


def bwrap_args(argv: list[str]) -> list[str]:
    return argv[argv.index(next(part for part in argv if part.endswith("bwrap"))):]


def test_a_sandboxed_bot_gets_namespaces_its_folder_read_only_and_nothing_else(tmp_path: Path) -> None:
    launcher, made, folder = plan(tmp_path)
    inner = bwrap_args(made.argv_template)
    for flag in ("--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--clearenv"):
        assert flag in inner
    assert "--share-net" not in inner and "--dev" not in inner  # no network; no pseudo-terminals
    assert inner[inner.index("--cap-drop") + 1] == "ALL"
    assert inner[inner.index("--seccomp") + 1] == "{fd:seccomp}"
    binds = [(inner[i + 1], inner[i + 2]) for i, part in enumerate(inner) if part == "--ro-bind"]
    assert (str(made.private_dir / "bot"), "/bot") in binds  # a copy of its folder, never the folder itself
    assert (str(made.socket_path), "/run/arena/referee.sock") in binds
    assert made.socket_path.parent == made.private_dir  # a socket of its own
    assert ("/proc/sys", "/proc/sys") in binds  # kernel settings read-only
    assert not any(part == "--bind" for part in inner)  # nothing of the host is writable
    assert str(folder) not in {inside for _, inside in binds}
    assert inner[inner.index("--chdir") + 1] == "/bot"
    assert inner[-1] == "/bot" and inner[-2] == "bot.py"  # {dir} is the folder as the bot sees it
    chdir = inner.index("--chdir")
    assert inner[chdir - 4:chdir] == ["--remount-ro", "/dev", "--remount-ro", "/"]
    hidden = inner.index(str(BUILTIN_BOTS))  # inside the arena package, which is bound: emptied, read-only
    assert inner[hidden - 1] == "--tmpfs" and inner[hidden + 1:hidden + 3] == ["--remount-ro", str(BUILTIN_BOTS)]
    made.cleanup()
    launcher.close()


def test_the_wrappers_run_with_a_fixed_environment_and_the_bot_gets_its_own_inside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "the-admin-secret")
    monkeypatch.setenv("ARENA_SEED_SALT", "the-salt")
    monkeypatch.setenv("PGPASSWORD", "hunter2")
    for mode in ("bwrap", "none"):
        launcher, made, folder = plan(tmp_path / mode, mode, env={"OPERATOR_SETTING": "x"})
        assert made.env == WRAPPER_ENV and made.cwd == "/"  # nothing of the bot's, nothing of the referee's
        assert set(made.bot_env) - {"PYTHONPATH"} == DOCUMENTED | {"OPERATOR_SETTING"}
        if "PYTHONPATH" in made.bot_env:  # games installed on paths of their own (the suite's plug-in game)
            assert made.bot_env["PYTHONPATH"] == ":".join(map(str, launch_module.game_paths()))
        assert TOKEN not in " ".join(made.argv_template)
        if mode == "bwrap":  # the bot's variables are set inside the sandbox only
            inner = bwrap_args(made.argv_template)
            assert ["--setenv", "OPERATOR_SETTING", "x"] == inner[inner.index("OPERATOR_SETTING") - 1:][:3]
            assert made.bot_env["ARENA_SERVER"] == "unix:/run/arena/referee.sock"
            assert made.bot_env["ARENA_TOKEN_FILE"] == "/run/arena/token" and made.bot_env["HOME"] == "/tmp"
            assert not (made.private_dir / "token").exists()  # in the sandbox's memory only (--ro-bind-data)
            argv, fds = made.open()
            binding = max(i for i, part in enumerate(argv) if part == "/run/arena/token")
            assert argv[binding - 2] == "--ro-bind-data"
            token_fd = int(argv[binding - 1])
            assert os.pread(token_fd, 100, 0) == TOKEN.encode()
            made.close_fds()
        else:  # without a sandbox: `env -i` gives the program alone its environment
            assert f"OPERATOR_SETTING=x" in made.argv_template and "-i" in made.argv_template
            assert made.bot_env["ARENA_SERVER"] == f"unix:{made.socket_path}"
            assert Path(made.bot_env["ARENA_TOKEN_FILE"]).read_text() == TOKEN
        made.cleanup()
        assert not made.private_dir.exists()
        launcher.close()


@pytest.mark.parametrize("name", ["LD_PRELOAD", "LD_LIBRARY_PATH", "GCONV_PATH", "GLIBC_TUNABLES", "BASH_ENV", "ENV",
                                  "BASH_FUNC_x%%", "ARENA_TOKEN_FILE"])
def test_a_variable_that_changes_how_programs_load_is_refused_at_launch(tmp_path: Path, name: str) -> None:
    with pytest.raises(LaunchRefused, match=name.replace("%", ".")):
        plan(tmp_path, env={name: "./evil.so"})
    with pytest.raises(ValueError, match=name.replace("%", ".")):
        SandboxSettings(env={name: "x"})


@pytest.mark.skipif(os.geteuid() != 0, reason="bots switch to users of their own only when the referee is root")
def test_as_root_each_bot_runs_as_a_host_user_of_its_own(tmp_path: Path) -> None:
    launcher, first, _ = plan(tmp_path / "a")
    second = launcher.plan(name="other", directory=tmp_path / "a" / "mybot", command=["x"], token=TOKEN,
                           concurrency=1, limits=Limits(), env={})
    assert first.uid is not None and second.uid is not None and first.uid != second.uid
    assert first.uid >= launch_module.BOT_UID_BASE
    setpriv = first.argv_template.index(next(p for p in first.argv_template if p.endswith("setpriv")))
    assert first.argv_template[setpriv + 1:setpriv + 4] == [f"--reuid={first.uid}", f"--regid={first.uid}",
                                                             "--clear-groups"]
    assert setpriv < first.argv_template.index(next(p for p in first.argv_template if p.endswith("bwrap")))
    first.cleanup()
    second.cleanup()
    assert not launcher._uids_in_use
    launcher.close()


def test_limits_come_from_the_manifest_capped_by_the_operator(tmp_path: Path) -> None:
    asked, problems = limits_from_table({"memory_mb": 8192, "processes": 16})
    assert problems == [] and asked == Limits(memory_mb=8192, processes=16)
    assert asked.exceeding(DEFAULT_CAPS) == ["memory_mb 8192 > cap 4096"]
    _, made, _ = plan(tmp_path, limits=asked, caps=parse_limit_settings(["memory_mb=2048"], DEFAULT_CAPS))
    assert made.limits == Limits(memory_mb=2048, processes=16)
    argv = " ".join(made.argv_template)
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
    monkeypatch.setattr(check_module, "_checked", {})
    with pytest.raises(SandboxUnavailable, match=r"apt-get install bubblewrap.*--sandbox none"):
        quick_check(SandboxSettings())
    quick_check(SandboxSettings(mode="none"))  # trusted bots need nothing
    code = main(["match", "major-general", "random", "random", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "apt-get install bubblewrap" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


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
