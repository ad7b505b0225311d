"""Bot manifests: bots/<name>/bot.toml."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.rpc.manifest import ManifestError, discover_manifests, load_manifest

ROOT = Path(__file__).resolve().parents[2]


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(text)
    return folder


def test_the_shipped_bots_load() -> None:
    manifests = discover_manifests([BUILTIN_BOTS])
    assert {"random", "trivial"} <= set(manifests)
    random_bot = manifests["random"]
    assert random_bot.argv()[0] == sys.executable
    assert random_bot.plays("major-general/hold-the-centre", "major-general")


def test_games_restrict_what_a_bot_plays(tmp_path: Path) -> None:
    manifest = load_manifest(write(tmp_path / "picky", 'name = "picky"\ncommand = "python3 bot.py --fast"\n'
                                   'games = ["major-general/hold-the-centre"]\n'))
    assert manifest.command == ("python3", "bot.py", "--fast")
    assert manifest.plays("major-general/hold-the-centre", "major-general")
    assert not manifest.plays("major-general", "major-general")


@pytest.mark.parametrize("text, problem", [
    ('name = "Bad Name"\ncommand = ["x"]\n', "name must be"),
    ('name = "ok"\n', "command must be"),
    ('name = "ok"\ncommand = ["x"]\ngames = []\n', "games must"),
    ('name = "ok"\ncommand = ["x"]\ncolour = "red"\n', "unknown key 'colour'"),
    ('name = "ok"\ncommand = ["x"]\nowner = 7\n', "owner must be text"),
    ('name = "ok\ncommand', "not valid TOML"),
    ('name = "ok"\ncommand = ["x"]\nsandbox = "none"\n', "sandbox is the referee operator's choice"),
    ('name = "ok"\ncommand = ["x"]\n[env]\nARENA_TOKEN_FILE = "/tmp/t"\n', "may not set ARENA_TOKEN_FILE"),
    ('name = "ok"\ncommand = ["x"]\n[limits]\nmemory_mb = "lots"\n', "memory_mb must be a whole number"),
    ('name = "ok"\ncommand = ["x"]\n[limits]\ngpus = 1\n', "unknown key 'gpus'"),
    ('name = "ok"\ncommand = ["x"]\n[limits]\nprocesses = 0\n', "processes must be a whole number from 1 to"),
    ('name = "ok"\ncommand = ["x"]\n[limits]\nmemory_mb = 100000000000000000000\n',
     "memory_mb must be a whole number from 16 to 16,777,216"),
    ('name = "ok"\ncommand = ["x"]\ngames = "major-general"\n', 'games must be a list, in brackets: games = \\["major'),
    ('name = "ok"\ncommand = ["x"]\ngames = [1]\n', "games must list"),
    ('name = "ok"\ncommand = ["x", "a\\u0000b"]\n', "command must be"),
])
def test_bad_manifests_say_what_is_wrong(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(ManifestError, match=problem):
        load_manifest(write(tmp_path / "bot", text))


def test_a_byte_order_mark_and_crlf_lines_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "windows"
    folder.mkdir()
    (folder / "bot.toml").write_bytes('\ufeffname = "windows"\r\ncommand = ["{python}", "bot.py"]\r\n'
                                      'games = ["*"]\r\n'.encode())
    (folder / "bot.py").write_text("")
    manifest = load_manifest(folder)
    assert (manifest.name, manifest.command, manifest.games) == ("windows", ("{python}", "bot.py"), ("*",))
    from arena.submissions.checks import check_folder

    checked, problems = check_folder(folder)  # the submission's checks read it the same way
    assert checked is not None and checked.name == "windows", problems


def test_a_bad_bot_toml_leaves_the_others_found_when_asked(tmp_path: Path) -> None:
    write(tmp_path / "good", 'name = "good"\ncommand = ["x"]\n')
    write(tmp_path / "bad", 'name = "bad"\ncommand = ["x"]\ngames = "major-general"\n')
    with pytest.raises(ManifestError, match="games must be a list"):
        discover_manifests([tmp_path])
    unavailable: list[str] = []
    assert list(discover_manifests([tmp_path], unavailable)) == ["good"]
    assert len(unavailable) == 1 and str(tmp_path / "bad" / "bot.toml") in unavailable[0]


def test_two_bots_may_not_share_a_name(tmp_path: Path) -> None:
    write(tmp_path / "a", 'name = "same"\ncommand = ["x"]\n')
    write(tmp_path / "b", 'name = "same"\ncommand = ["y"]\n')
    with pytest.raises(ManifestError, match="two bots are named 'same'"):
        discover_manifests([tmp_path])


def test_a_name_two_bots_bear_leaves_both_out_when_asked(tmp_path: Path) -> None:
    """A copied bot not yet renamed: the other bots are still found, the name kept with both folders."""
    write(tmp_path / "bots" / "copy", 'name = "same"\ncommand = ["x"]\n')
    write(tmp_path / "bots" / "original", 'name = "same"\ncommand = ["y"]\n')
    write(tmp_path / "bots" / "other", 'name = "other"\ncommand = ["z"]\n')
    ambiguous: dict[str, list[Path]] = {}
    assert list(discover_manifests([tmp_path / "bots", tmp_path / "bots"], ambiguous=ambiguous)) == ["other"]
    assert ambiguous == {"same": [tmp_path / "bots" / "copy", tmp_path / "bots" / "original"]}
    ambiguous.clear()  # a bot's own folder, named on purpose, is the one meant
    found = discover_manifests([tmp_path / "bots", tmp_path / "bots" / "copy"], ambiguous=ambiguous)
    assert found["same"].directory == tmp_path / "bots" / "copy" and not ambiguous


def test_concurrency_is_one_unless_set(tmp_path: Path) -> None:
    assert load_manifest(write(tmp_path / "one", 'name = "one"\ncommand = ["x"]\n')).concurrency == 1
    assert load_manifest(write(tmp_path / "many", 'name = "many"\ncommand = ["x"]\nconcurrency = 8\n')).concurrency == 8


@pytest.mark.parametrize("value", ["0", "65", "2.5", '"4"', "true"])
def test_concurrency_must_be_a_whole_number_from_1_to_64(tmp_path: Path, value: str) -> None:
    with pytest.raises(ManifestError, match="concurrency must be"):
        load_manifest(write(tmp_path / "bot", f'name = "bot"\ncommand = ["x"]\nconcurrency = {value}\n'))


def test_the_owner_is_stored_with_the_bot(tmp_path: Path) -> None:
    from arena.store import Store
    from arena.tournament.bots import parse_bot

    folder = write(tmp_path / "bots" / "mine", 'name = "mine"\ncommand = ["{python}", "bot.py"]\n'
                                               'owner = "ada@example.org"\n')
    (folder / "bot.py").write_text("")  # (a tournament's bot folder passes the checks a submission does)
    assert load_manifest(folder).owner == "ada@example.org"
    assert load_manifest(write(tmp_path / "anon", 'name = "anon"\ncommand = ["x"]\n')).owner == ""
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    bot_id = store.bots.register(parse_bot(str(folder)).identity())
    assert {bot.id: bot.owner for bot in store.bots.find()}[bot_id] == "ada@example.org"
    store.close()


def test_a_bot_programs_folder_is_one_name_however_it_is_typed(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`--bots ./bots/mine`, `bots/mine/` and the absolute path enter one bot, "bots/mine" (its folder as seen from
    here): not three bots of one artifact, rated apart. A folder that is not there is said to be missing."""
    from arena.tournament.bots import BotSpecError, parse_bot

    folder = write(tmp_path / "bots" / "mine", 'name = "mine"\ncommand = ["{python}", "bot.py"]\n')
    (folder / "bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    names = {parse_bot(typed).name for typed in ("./bots/mine", "bots/mine/", str(folder), "bots/../bots/mine")}
    assert names == {"bots/mine"}
    assert parse_bot(f"me={folder}").name == "me"  # a name given is kept
    monkeypatch.chdir(folder)
    assert parse_bot(str(tmp_path / "bots" / "mine")).name == "."
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # a folder outside the working directory: its absolute path
    assert parse_bot("../bots/mine").name == folder.resolve().as_posix()
    for typed, words in (("./nosuch", "./nosuch: no such folder"), ("../bots/mine/bot.py", "not a folder")):
        with pytest.raises(BotSpecError, match=words):
            parse_bot(typed)
