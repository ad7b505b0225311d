"""Uploads over the web: POST an archive, get a submission id at once; a worker process of its own
(arena.submissions.worker, run by the queue in arena.submissions.queue: in `arena web` itself, or in
`arena preflights` elsewhere) unpacks, checks and pre-flights it, and its progress can be followed
(polling GET /api/owner/submissions/{id}, or server-sent events from .../events).

The queue is the database (status "queued"), so a restarted `arena web` picks up where it left. Limits per owner (`OwnerLimits`): uploads per hour (429), the
archive's size, cut off while it streams in (413), and live bots (a new name beyond the quota is
refused by the worker, with the reason, before anything is stored).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from arena.store.models import utcnow
from arena.store.rows import SubmissionRow
from arena.submissions.archive import DEFAULT_SUBMISSION_LIMITS, kind_of
from arena.web.owners import caller
from arena.web.state import hosting_of
from arena.web.streams import ENDED

router = APIRouter()
EVENT_POLL_S = 0.2  # how often a followed submission's events are looked for




@dataclass(frozen=True)
class OwnerLimits:
    """What one owner may do on a hosted ladder."""

    uploads_per_hour: int = 20
    live_bots: int = 10
    archive_bytes: int = DEFAULT_SUBMISSION_LIMITS.archive_bytes

    def to_json(self) -> dict[str, int]:
        return {"uploads_per_hour": self.uploads_per_hour, "live_bots": self.live_bots,
                "archive_bytes": self.archive_bytes}


def submission_json(row: SubmissionRow, since: int = 0) -> dict[str, Any]:
    """A submission as the API shows it (events from index `since`)."""
    return {"id": row.id, "owner": row.owner, "filename": row.filename, "size": row.size, "status": row.status,
            "final": row.is_final, "name": row.name, "version": row.version, "bot_id": row.bot_id,
            "events": row.events[since:], "event_count": len(row.events), "result": row.result,
            "created_at": _iso(row.created_at), "started_at": _iso(row.started_at),
            "finished_at": _iso(row.finished_at)}


@router.post("/owner/submissions", status_code=202,
             responses={401: {"description": "No or a wrong token"}, 413: {"description": "Over the archive's cap"},
                        429: {"description": "Over the owner's uploads per hour"}},
             summary="Upload a bot (the archive as the request body); answered at once with a submission id")
async def upload(request: Request, filename: str = Query(..., min_length=1, max_length=200,
                                                         description="The archive's name: .zip, .tar.gz, .tgz or .tar")
                 ) -> JSONResponse:
    who = caller(request)
    settings = request.app.state.settings
    limits: OwnerLimits = settings.owner_limits
    name = _archive_name(filename)
    since = utcnow() - timedelta(hours=1)
    if hosting_of(request).uploads_since(who.owner, since) >= limits.uploads_per_hour:
        raise _too_many_uploads(limits)
    _check_declared_size(request, limits)
    uploads = Path(settings.uploads or Path(settings.bot_store) / ".uploads")
    uploads.mkdir(parents=True, exist_ok=True)
    path = uploads / f"{secrets.token_hex(12)}{'.zip' if kind_of(name) == '.zip' else '.tar.gz'}"
    # (with --uploads, a folder shared with the pre-flight service's user through its group: readable to it)
    size = await _receive_archive(request, path, limits, 0o640 if settings.uploads else 0o600)
    if size == 0:
        path.unlink(missing_ok=True)
        raise HTTPException(400, "the request carried no archive: send the file as the request body")
    submission_id = hosting_of(request).add_submission(who.owner, name, size, str(path), limits.uploads_per_hour)
    if submission_id is None:  # the others sent at the same time took the hour's last places
        path.unlink(missing_ok=True)
        raise _too_many_uploads(limits)
    if request.app.state.queue is not None:  # (elsewhere, `arena preflights` finds it in the database)
        request.app.state.queue.wake()
    base = f"/api/owner/submissions/{submission_id}"
    return JSONResponse({"id": submission_id, "status": "queued", "status_url": base, "events_url": f"{base}/events"},
                        status_code=202, headers={"Location": base})


def _archive_name(filename: str) -> str:
    """The upload's file name without its folders, refused (415) unless it names an archive kind we unpack."""
    name = Path(filename).name
    if kind_of(name) not in (".zip", ".tar.gz"):
        raise HTTPException(415, f"{name!r} is not a .zip, .tar.gz, .tgz or .tar (pack the bot's folder: "
                            "`tar czf bot.tar.gz -C my-bot .`)")
    return name


def _too_many_uploads(limits: OwnerLimits) -> HTTPException:
    """The 429 of an owner over their uploads per hour."""
    return HTTPException(429, f"{limits.uploads_per_hour} uploads in the last hour, the most an owner may make "
                         "here: try again later", headers={"Retry-After": "600"})


def _check_declared_size(request: Request, limits: OwnerLimits) -> None:
    """Refuse (413) an upload whose declared Content-Length is over the archive cap, before reading it."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.archive_bytes:
        raise HTTPException(413, f"the archive is {int(declared)} bytes, over the {limits.archive_bytes} bytes an "
                            "upload may be: leave out build outputs, data sets and virtual environments")


async def _receive_archive(request: Request, path: Path, limits: OwnerLimits, mode: int) -> int:
    """Stream the request body into a new file at `path` (413 once over the cap); its size. On any failure the
    file is removed."""
    size = 0
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(descriptor, "wb") as out:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limits.archive_bytes:
                    raise HTTPException(413, f"the archive is over the {limits.archive_bytes} bytes an upload may "
                                        "be (cut off as it came): leave out build outputs, data sets and virtual "
                                        "environments")
                out.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return size


@router.get("/owner/submissions", summary="The owner's uploads, newest first")
def my_submissions(request: Request) -> dict[str, Any]:
    who = caller(request)
    return {"submissions": [submission_json(row) for row in hosting_of(request).submissions(who.owner)]}


def _own_submission(request: Request, submission_id: int) -> SubmissionRow:
    who = caller(request)
    row = hosting_of(request).submission(submission_id)
    if row is None or row.owner != who.owner:
        raise HTTPException(404, f"you have no submission {submission_id}")
    return row


@router.get("/owner/submissions/{submission_id}", summary="An upload: its status, progress and report")
def my_submission(request: Request, submission_id: int, since: int = Query(0, ge=0)) -> dict[str, Any]:
    return submission_json(_own_submission(request, submission_id), since)


@router.get("/owner/submissions/{submission_id}/events", responses={200: {"content": {"text/event-stream": {}}}},
            summary="An upload's progress as server-sent events (`progress` each, then `end` with the report)")
async def my_submission_events(request: Request, submission_id: int) -> StreamingResponse:
    _own_submission(request, submission_id)
    store_hosting = hosting_of(request)
    # a place in the web's streams, shared with live views (an older one of this client's ended for it)
    ticket = request.app.state.streams.admit(request.client.host if request.client else "unknown")

    async def events() -> AsyncIterator[str]:
        try:
            async for text in _progress(request, store_hosting, submission_id, ticket.ended):
                yield text
        finally:
            ticket.release()

    stream = events()
    weakref.finalize(stream, ticket.release)  # (a stream never started is never finished either)
    return StreamingResponse(stream, media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


async def _progress(request: Request, store_hosting: Any, submission_id: int,
                    ended: asyncio.Event) -> AsyncIterator[str]:
    """An upload's progress events, then its end (or an `error` when `ended` is set: ended to make room)."""
    sent = 0
    while True:
        row = await asyncio.to_thread(store_hosting.submission, submission_id)
        if row is None:
            return
        for event in row.events[sent:]:
            yield f"event: progress\ndata: {json.dumps(event)}\n\n"
        sent = len(row.events)
        if row.is_final:
            yield f"event: end\ndata: {json.dumps(submission_json(row, sent))}\n\n"
            return
        if await request.is_disconnected():
            return
        if ended.is_set():
            yield f"event: error\ndata: {json.dumps({'detail': ENDED})}\n\n"
            return
        await asyncio.sleep(EVENT_POLL_S)


def _iso(moment: Any) -> str | None:
    return moment.isoformat(timespec="seconds") + "Z" if moment is not None else None
