"""`arena bot submit`: a bot's folder or archive becomes a stored, immutable, content-addressed version.

1. The upload is unpacked safely into a staging folder of ours (arena.submissions.archive) and
   checked (arena.submissions.checks); every problem is reported at once and nothing is stored.
2. The owner is checked: on a server with owners (`arena owner add`), a bot name belongs to the owner
   who first submitted it, and only that owner's token may submit or retire it.
3. The files' hash is the version's identity: they are moved to <bot store>/<name>/<hash>/, made
   read-only, and registered as a pending version; the bot is only ever run from there.
4. The pre-flight (arena.submissions.preflight) decides: the version goes live (and the name's
   previous live version is retired; its rating carries over, see store.bots.add_version) or is
   stored as failed with its report, never to play.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games.registry import did_you_mean
from arena.paths import BOT_STORE_ENV
from arena.referee.clock import ClockSettings
from arena.referee.players import REMOTE_VERSION, PlayerKind
from arena.rpc.manifest import BOT_NAME, BotManifest, load_manifest
from arena.sandbox.integrity import content_hash
from arena.sandbox.launch import SandboxSettings
from arena.store import BotIdentity, BotRow, Store
from arena.submissions.archive import DEFAULT_SUBMISSION_LIMITS, Problem, SubmissionLimits, Unpacked, unpack
from arena.submissions.checks import RESERVED_NAMES, check_folder, declared_games
from arena.submissions.preflight import PreflightReport, StepCallback, preflight


class SubmissionError(Exception):
    """A submission refused before anything was stored (not allowed, or an unknown name)."""


class NameTaken(SubmissionError):
    """The bot name is someone's already."""


@dataclass
class Submission:
    """What became of a submission."""

    status: str  # "live", "failed" (stored, never plays), "rejected" (nothing stored), "duplicate"
    source: str
    name: str | None = None
    version: str | None = None
    artifact_hash: str | None = None
    bot_id: int | None = None
    path: str | None = None
    problems: list[Problem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    preflight: PreflightReport | None = None
    retired: list[str] = field(default_factory=list)  # versions it replaced
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("live", "duplicate")

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "source": self.source, "name": self.name, "version": self.version,
                "artifact_hash": self.artifact_hash, "bot_id": self.bot_id, "path": self.path,
                "problems": [problem.to_json() for problem in self.problems], "skipped": self.skipped,
                "preflight": self.preflight.to_json() if self.preflight is not None else None,
                "retired": self.retired, "message": self.message}


def submission_from_json(data: dict[str, Any]) -> Submission:
    """The Submission `to_json` wrote (a server's answer to `arena bot submit --server`)."""
    report = data.get("preflight")
    return Submission(str(data.get("status", "rejected")), str(data.get("source", "")), data.get("name"),
                      data.get("version"), data.get("artifact_hash"), data.get("bot_id"), data.get("path"),
                      [Problem(str(p.get("where", "")), str(p.get("message", "")), str(p.get("fix", "")))
                       for p in data.get("problems", [])], list(data.get("skipped", [])),
                      PreflightReport.from_json(report) if isinstance(report, dict) else None,
                      list(data.get("retired", [])), str(data.get("message", "")))


def bot_store(results: str | Path = "results") -> Path:
    """Where submitted versions are kept: $ARENA_BOT_STORE, else <results>/bots."""
    return Path(os.environ.get(BOT_STORE_ENV) or Path(results) / "bots")


def hash_token(token: str) -> str:
    """What is stored of an owner's token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def authorize(store: Store, name: str, owner: str | None, token: str | None, *, verified: bool = False) -> str:
    """The owner a submission or retirement of bot `name` is made for; SubmissionError if not allowed.

    With no owners registered (one person's machine) anyone may act, and the name keeps the owner it
    was first submitted with. Once owners exist (a shared server), the owner and their token are
    required (`verified`: the caller checked the token already, as the web API does) and the name
    must be new or already theirs.
    """
    earlier = _earlier_owners(store, name)
    if verified and owner:
        return _claim(name, owner, earlier)
    if not store.owners.all():
        return _local_owner(name, owner, earlier)
    return _claim(name, _checked_owner(store, owner, token), earlier)


def _earlier_owners(store: Store, name: str) -> set[str]:
    """The owners the submitted versions of bot `name` were made for."""
    return {bot.owner for bot in store.bots.find(name) if bot.kind.is_program and bot.owner}


def _claim(name: str, owner: str, earlier: set[str]) -> str:
    """`owner`, if bot `name` is new or already theirs; SubmissionError if it belongs to another owner."""
    if earlier and owner not in earlier:
        raise SubmissionError(f"bot {name!r} belongs to another owner; pick another name")
    return owner


def _local_owner(name: str, owner: str | None, earlier: set[str]) -> str:
    """The owner with no owners registered: the one given, else the one the name was first submitted with."""
    if owner and earlier and owner not in earlier:
        raise SubmissionError(f"bot {name!r} belongs to {', '.join(sorted(earlier))}; pick another name")
    return owner or (sorted(earlier)[0] if earlier else "")


def _checked_owner(store: Store, owner: str | None, token: str | None) -> str:
    """`owner`, once `token` is theirs; SubmissionError if either is missing or the token is wrong."""
    if not owner or not token:
        raise SubmissionError("this server has owners: pass --owner NAME and --token TOKEN (from `arena owner add`), "
                              "or set ARENA_OWNER and ARENA_OWNER_TOKEN")
    stored = store.owners.token_hash(owner)
    if stored is None or not hmac.compare_digest(stored, hash_token(token)):
        raise SubmissionError(f"wrong token for owner {owner!r} (an operator can issue a new one: "
                              f"`arena owner token {owner}`)")
    return owner


def submit(source: Path, store: Store, store_dir: Path, *, owner: str | None = None, token: str | None = None,
           owner_verified: bool = False, sandbox: SandboxSettings | None = None, clock: ClockSettings | None = None,
           limits: SubmissionLimits = DEFAULT_SUBMISSION_LIMITS, startup_timeout_s: float = 30.0,
           on_step: StepCallback | None = None, on_stage: Callable[[str], None] | None = None,
           admit: Callable[[str], None] | None = None, named: str | None = None) -> Submission:
    """Check, store and pre-flight one submission (see the module's docstring). `admit(name)` may refuse
    the bot's name with a SubmissionError before anything is stored (an owner's quota of live bots).
    `named`: the name its person knows `source` by (an upload's own file name), in what it reports."""
    stage = on_stage or (lambda _text: None)
    result = Submission("rejected", named or str(source))
    store_dir.mkdir(parents=True, exist_ok=True)
    staging_root = store_dir / ".staging"
    staging_root.mkdir(exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=staging_root))
    try:
        stage("unpacking and checking the files")
        unpacked = unpack(source, staging / "upload", limits, named)
        manifest = _checked_manifest(unpacked, result)
        if manifest is None:
            result.message = f"{len(result.problems)} problem(s) found; nothing was stored"
            return result
        result.name, result.version = manifest.name, manifest.version
        owner = authorize(store, manifest.name, owner, token, verified=owner_verified)
        if admit is not None:
            admit(manifest.name)
        digest = content_hash(unpacked.root)
        result.artifact_hash = digest
        target = store_dir / manifest.name / digest
        _move_into_store(unpacked.root, target)
        result.path = str(target)
        identity = BotIdentity(manifest.name, manifest.version, digest, PlayerKind.PROGRAM, str(target), owner)
        bot_id, new = store.bots.add_version(identity, games=list(manifest.games))
        result.bot_id = bot_id
        row = store.bots.get(bot_id)
        assert row is not None
        if not new and row.status in ("live", "retired"):
            result.status = "duplicate"
            result.message = (f"these files are already version {row.version} of {row.name} ({row.status}); "
                              "nothing changed")
            return result
        stage("pre-flight in the sandbox")
        report = preflight(load_manifest(target), declared_games(manifest.games), sandbox=sandbox, clock=clock,
                           startup_timeout_s=startup_timeout_s, on_step=on_step)
        return _record_preflight(store, bot_id, manifest, report, result)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _checked_manifest(unpacked: Unpacked, result: Submission) -> BotManifest | None:
    """The unpacked bot's manifest if its files pass every check, else None; what was skipped and every problem
    found go into `result`."""
    result.skipped = unpacked.skipped
    result.problems = list(unpacked.problems)
    if result.problems:
        return None
    manifest, problems = check_folder(unpacked.root)
    result.problems += problems
    return manifest


def _record_preflight(store: Store, bot_id: int, manifest: BotManifest, report: PreflightReport,
                      result: Submission) -> Submission:
    """`result`, once the pre-flight's verdict is stored: the version live (the name's previous live version
    retired) or failed."""
    result.preflight = report
    status = "live" if report.ok else "failed"
    retired = store.bots.set_status(bot_id, status, report.to_json())
    result.retired = [_label(store.bots.get(other)) for other in retired]
    result.status = status
    result.message = _preflight_message(manifest.name, manifest.version, report)
    return result


def _move_into_store(root: Path, target: Path) -> None:
    """Move the unpacked files at `root` to `target` and make them read-only, unless `target` is stored already."""
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(root, target)
        _make_read_only(target)


def _preflight_message(name: str, version: str, report: PreflightReport) -> str:
    """What a submission's message says once its pre-flight has run."""
    if report.ok:
        return f"{name} version {version} is live; ladders pair it from their next round"
    if report.infrastructure:
        return "the pre-flight could not run (not the bot's fault): submit again"
    return f"{name} version {version} failed its pre-flight and will not play"


def register_remote(store: Store, owner: str, name: str) -> tuple[str, str]:
    """Register `name` as `owner`'s remote bot (a live bot of kind PlayerKind.REMOTE, run on its owner's computer):
    (the name, its token, shown once: only its hash is kept). SubmissionError for a name that cannot be."""
    from arena.agents import AGENTS
    from arena.rpc.pool import new_token
    from arena.store.hosting import Hosting

    name = name.strip()
    if not BOT_NAME.match(name) or name in RESERVED_NAMES or name in AGENTS:
        raise SubmissionError(f"{name!r} cannot be a bot's name: lowercase letters, digits, '-', '_' or '.' (at most "
                              "64), not a built-in player's")
    if store.bots.find(name):
        raise NameTaken(f"the name {name!r} is taken; pick another")
    token = new_token()
    identity = BotIdentity(name, REMOTE_VERSION, hash_token(f"remote:{name}"), PlayerKind.REMOTE, name, owner)
    bot_id, _new = store.bots.add_version(identity, games=None, status="live")
    Hosting(store).add_remote_bot(name, owner, hash_token(token), bot_id)
    return name, token


def find_version(store: Store, text: str) -> BotRow:
    """The bot version NAME (its live one) or NAME@VERSION (a version label or a hash prefix); SubmissionError."""
    name, _, wanted = text.partition("@")
    versions = _programs(store, name)
    if not versions:
        raise SubmissionError(f"no submitted bot named {name!r}{_near_miss(store, name)} (see `arena bot list`)")
    return _named_version(name, wanted, versions) if wanted else _live_version(name, versions)


def _programs(store: Store, name: str | None = None) -> list[BotRow]:
    """The submitted versions of bot `name` (of every bot when None), oldest first."""
    return [bot for bot in store.bots.find(name) if bot.kind is PlayerKind.PROGRAM]


def _live_version(name: str, versions: list[BotRow]) -> BotRow:
    """The live one of bot `name`'s `versions` (the newest, should there be several); SubmissionError if none is."""
    live = [bot for bot in versions if bot.status == "live"]
    if not live:
        raise SubmissionError(f"{name} has no live version; name one: " + ", ".join(_label(b) for b in versions))
    return live[-1]


def _named_version(name: str, wanted: str, versions: list[BotRow]) -> BotRow:
    """The one of bot `name`'s `versions` labelled `wanted`, else whose hash starts with it (4 characters or more);
    SubmissionError if none or several are."""
    found = [bot for bot in versions if bot.version == wanted] or _hash_prefixed(wanted, versions)
    if len(found) != 1:
        listed = ", ".join(f"{b.version} ({b.artifact_hash[:12]}, {b.status})" for b in versions)
        raise SubmissionError(f"{'no' if not found else 'more than one'} version {wanted!r} of {name}; "
                              f"its versions: {listed}" + ("; give a hash prefix instead" if found else ""))
    return found[0]


def _hash_prefixed(prefix: str, versions: list[BotRow]) -> list[BotRow]:
    """The ones of `versions` whose hash starts with `prefix` (none for a prefix under 4 characters)."""
    return [bot for bot in versions if len(prefix) >= 4 and bot.artifact_hash.startswith(prefix)]


def _near_miss(store: Store, name: str) -> str:
    """" (did you mean 'my-bot'?)" when a submitted bot's name is close to `name`."""
    return did_you_mean(name, {bot.name for bot in _programs(store)})


def retire(store: Store, text: str, *, owner: str | None = None, token: str | None = None) -> BotRow:
    """Retire a bot version (NAME: its live one); it leaves the ladders, its history stays."""
    bot = find_version(store, text)
    authorize(store, bot.name, owner or bot.owner or None, token)
    if bot.status == "retired":
        raise SubmissionError(f"{_label(bot)} is already retired")
    store.bots.set_status(bot.id, "retired")
    found = store.bots.get(bot.id)
    assert found is not None
    return found


def _make_read_only(folder: Path) -> None:
    """Files read-only for everyone (executables stay executable), folders readable: the sandboxed bot
    runs as another user, and only reads its files."""
    for path in [*folder.rglob("*"), folder]:
        if path.is_symlink():
            continue
        if path.is_dir():
            os.chmod(path, 0o755)
        else:
            os.chmod(path, 0o555 if path.stat().st_mode & stat.S_IXUSR else 0o444)


def _label(bot: BotRow | None) -> str:
    return f"{bot.name}@{bot.version} ({bot.artifact_hash[:12]})" if bot is not None else "?"
