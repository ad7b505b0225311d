"""One uploaded submission, checked and pre-flighted in a process of its own (started by `arena web`'s
queue, arena.web.uploads): its progress goes into the database as it comes, and its outcome too.

    ARENA_DB=URL python -m arena.submissions.worker --bot-store DIR SUBMISSION_ID

The database URL comes through the environment (ARENA_DB), not the command line: a process's arguments are
readable by every user of the machine (`ps`), its environment only by its own user.
"""

from __future__ import annotations

import argparse
import os
import traceback
from pathlib import Path

from arena.sandbox.launch import SandboxSettings
from arena.store import Store
from arena.store.hosting import Hosting
from arena.submissions.preflight import Step
from arena.submissions.submit import SubmissionError, submit


def run(store: Store, submission_id: int, store_dir: Path, sandbox: SandboxSettings | None = None,
        live_bots: int | None = None) -> str:
    """Check, store and pre-flight one queued (and claimed) submission; its final status. An owner with
    `live_bots` live names already may submit new versions of them, not a new name."""
    hosting = Hosting(store)
    row = hosting.submission(submission_id)
    if row is None:
        return "error"
    upload = Path(row.upload_path)

    def on_stage(text: str) -> None:
        hosting.add_event(submission_id, {"kind": "stage", "text": text})

    def on_step(step: Step) -> None:
        hosting.add_event(submission_id, {"kind": "step", "step": step.to_json()})

    def admit(name: str) -> None:
        live = store.bots.live_names(row.owner)
        if live_bots is not None and name not in live and len(live) >= live_bots:
            raise SubmissionError(f"{row.owner} has {len(live)} live bots, the most an owner may have here: retire "
                                  "one first (its history stays), or submit a new version of one of them")

    try:
        result = submit(upload, store, store_dir, owner=row.owner, owner_verified=True, sandbox=sandbox,
                        on_step=on_step, on_stage=on_stage, admit=admit, named=row.filename)
    except SubmissionError as error:
        hosting.finish(submission_id, "rejected", {"status": "rejected", "source": row.filename, "problems": [],
                                                   "message": str(error)})
        return "rejected"
    finally:
        upload.unlink(missing_ok=True)
    document = {**result.to_json(), "source": row.filename}
    hosting.finish(submission_id, result.status, document, name=result.name, version=result.version,
                   bot_id=result.bot_id)
    return result.status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bot-store", required=True, type=Path)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--live-bots", type=int, default=None)
    parser.add_argument("submission", type=int)
    arguments = parser.parse_args(argv)
    url = os.environ.get("ARENA_DB")
    if not url:
        parser.error("the database URL comes in the environment: ARENA_DB=URL")
    store = Store.open(url)
    try:
        run(store, arguments.submission, arguments.bot_store, SandboxSettings(mode=arguments.sandbox),
            arguments.live_bots)
    except Exception as error:  # noqa: BLE001 - the worker itself failed: say so where the owner looks
        Hosting(store).finish(arguments.submission, "error", {
            "status": "error", "source": "", "problems": [],
            "message": f"the pre-flight could not run here (not the bot's fault; submit again): "
                       f"{type(error).__name__}: {error}", "trace": traceback.format_exc()[-2000:]})
        return 1
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
