"""The checks of a submitted folder: every problem with the line it is on, and what to do about it."""

from __future__ import annotations

from pathlib import Path

from arena.submissions.checks import check_folder, declared_games, key_lines


def _folder(tmp_path: Path, manifest: str, files: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(manifest)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return folder


def test_key_lines_finds_top_level_keys_and_table_keys() -> None:
    text = 'name = "x"\n\n# a comment\ncommand = ["a"]\n[limits]\nmemory_mb = 5\n[env]\nname = "shadow"\n'
    assert key_lines(text) == {"name": 1, "command": 4, "limits": 5, "limits.memory_mb": 6, "env": 7,
                               "env.name": 8}


def test_a_good_folder_passes(tmp_path: Path) -> None:
    manifest, problems = check_folder(_folder(tmp_path, 'name = "ok"\ncommand = ["{python}", "bot.py"]\n',
                                              {"bot.py": "pass\n"}))
    assert problems == [] and manifest is not None and manifest.name == "ok"


def test_toml_that_does_not_parse_names_its_line(tmp_path: Path) -> None:
    _, problems = check_folder(_folder(tmp_path, 'name = "ok"\ncommand = [\n\ngames = oops\n'))
    assert len(problems) == 1 and problems[0].where.startswith("bot.toml:") and "not valid TOML" in problems[0].message


def test_a_missing_manifest_lists_what_is_there(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text("")
    [problem] = check_folder(folder)[1]
    assert problem.where == "bot.toml" and "missing" in problem.message and "main.py" in problem.message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 'version = "1"\ngames = ["major-general/no-such-mode"]\nconcurrency = 0\n'
                               'sandbox = "none"\n[env]\nARENA_TOKEN_FILE = "/etc/shadow"\n')
    _, problems = check_folder(folder)
    found = {problem.where: problem.message for problem in problems}
    assert [p.message.split(":")[0] for p in problems if p.where == "bot.toml"] == ["name is missing",
                                                                                  "command is missing"]
    assert "no game 'major-general/no-such-mode'" in found["bot.toml:2"]
    assert "concurrency" in found["bot.toml:3"] and "operator's choice" in found["bot.toml:4"]
    assert "ARENA_TOKEN_FILE" in found["bot.toml:6"]  # the variable's own line


def test_the_command_must_be_runnable(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 'name = "ok"\ncommand = ["./run", "--fast", "lib/main.js", "model.bin"]\n',
                     {"run": "#!/bin/sh\n"})
    problems = check_folder(folder)[1]
    assert [p.message for p in problems] == ["the program './run' is not executable",
                                             "the command names 'lib/main.js', which is not in the folder"]
    assert problems[0].fix == "chmod +x ./run before packing"
    other = tmp_path / "other"
    other.mkdir()
    (other / "bot.toml").write_text('name = "ok"\ncommand = ["definitely-not-installed-here", "x.py"]\n')
    assert [p.message for p in check_folder(other)[1]] == [
        "the program 'definitely-not-installed-here' is not installed on this referee",
        "the command names 'x.py', which is not in the folder"]


def test_a_built_in_players_name_is_taken(tmp_path: Path) -> None:
    [problem] = check_folder(_folder(tmp_path, 'name = "mcts"\ncommand = ["{python}"]\n'))[1]
    assert problem.where == "bot.toml:1" and "built-in player" in problem.message and "mcts-bot" in problem.fix


def test_declared_games_pick_a_mode_per_family_named() -> None:
    assert declared_games(["major-general/no-scenario", "general-orders-wwii"]) == [
        "major-general/no-scenario", "general-orders-wwii/alpine"]
    every = declared_games(["*"])
    assert "major-general" in every and "general-orders-sengoku/rivers" in every
