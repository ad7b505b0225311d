"""`arena web`: Arena in the browser, served by Arena itself over the same store.

An ASGI application (FastAPI on Starlette, served by uvicorn): the JSON API under /api (api.py), the
pages (one HTML shell; static/app.js draws each page from the API), the replay viewer
(static/viewer.js) and the live view (live.py). Nothing is fetched from anywhere else: the pages
work on a machine with no internet. The public pages only read; owners (owners.py) sign in to
upload bots (uploads.py: a queue of pre-flights run by worker processes), retire versions,
register remote bots and see their own bots' fault evidence.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from contextlib import asynccontextmanager
from typing import AsyncIterator

from arena import __version__
from arena.admission import Strikes
from arena.ratings.leaderboard import Leaderboards
from arena.store import Store
from arena.store.hosting import Hosting
from arena.web import api, owners, uploads
from arena.web.guard import RequestLimits, WebLimits
from arena.web.live import LiveHub
from arena.web.streams import StreamLimits, Streams
from arena.submissions.queue import PreflightQueue
from arena.web.uploads import OwnerLimits

STATIC = Path(__file__).parent / "static"


@dataclass(frozen=True)
class WebSettings:
    """What `arena web` is told."""

    referee: str | None = None  # host:port of a referee to show live matches of
    referee_token: str | None = None  # the referee's viewer (or admin) token: lists and watches matches; never sent to a browser
    tls_ca: str | None = None
    db_url: str = ""  # for the pre-flight workers (the same database)
    bot_store: str = "results/bots"  # where submitted versions are kept
    uploads: str = ""  # where uploads wait for their pre-flight (default: <bot_store>/.uploads)
    owner_limits: OwnerLimits = OwnerLimits()
    open_signup: bool = False  # anyone may pick an owner name and get a token
    signups_per_hour: int = 3  # per address, with open sign-up
    sign_ins_per_minute: int = 10  # attempts per address
    preflight_workers: int = 2  # pre-flights at once (0: none here, `arena preflights` runs them)
    sandbox: str = "bwrap"  # how the pre-flights run bots
    remote_address: str = ""  # where remote bots connect (the ladder's port as reachable from outside), if said
    remote_tls: bool = False  # ... and whether that port speaks TLS
    live_limits: StreamLimits = StreamLimits()  # streams at once (live matches, uploads' progress)
    limits: WebLimits = WebLimits()  # on clients: connections, header and body times, body sizes


def create_app(store: Store, settings: WebSettings = WebSettings()) -> FastAPI:
    """The web application over `store`."""
    hosting = Hosting(store)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        db_url = settings.db_url or store.engine.url.render_as_string(hide_password=False)
        queue = PreflightQueue(hosting, db_url, Path(settings.bot_store), workers=settings.preflight_workers,
                               sandbox=settings.sandbox, live_bots=settings.owner_limits.live_bots) \
            if settings.preflight_workers else None  # 0: `arena preflights` runs them, elsewhere
        app.state.queue = queue
        if queue is not None:
            queue.start()
        try:
            yield
        finally:
            await app.state.live.close()
            if queue is not None:
                await queue.stop()

    app = FastAPI(title="Arena", version=__version__, description="Results of an Arena referee: leaderboards, "
                  "bots, tournaments and ladders, matches, replays and live matches; and, for owners, uploads "
                  "of bots, their versions and faults, and remote bots.",
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json", lifespan=lifespan)
    app.state.store = store
    app.state.leaderboards = Leaderboards(store)
    app.state.hosting = hosting
    app.state.settings = settings
    app.state.live = LiveHub()
    app.state.streams = Streams(settings.live_limits)
    app.state.signups = owners.RateLimit(settings.signups_per_hour, 3600.0)
    app.state.sign_ins = owners.RateLimit(settings.sign_ins_per_minute, 60.0)
    app.state.token_strikes = Strikes()  # wrong owner tokens per address (owners.owner_of_token)
    app.add_middleware(GZipMiddleware, minimum_size=2048)
    # a body is refused over its route's limit before it is read (an upload holds its own cap as it streams it)
    app.add_middleware(RequestLimits, json_bytes=settings.limits.json_bytes,
                       routes={("POST", "/api/owner/submissions"): None})
    app.include_router(api.router, prefix="/api")
    app.include_router(owners.router, prefix="/api")
    app.include_router(uploads.router, prefix="/api")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    shell = (STATIC / "index.html").read_text(encoding="utf-8")

    def page(request: Request, status: int = 200, error: str = "") -> HTMLResponse:
        body = shell.replace("{{ERROR}}", html.escape(error, quote=True)).replace("{{STATUS}}", str(status))
        return HTMLResponse(body, status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/") or request.url.path.startswith("/static/"):
            return JSONResponse({"detail": error.detail}, status_code=error.status_code,
                                headers=getattr(error, "headers", None))
        return page(request, error.status_code, str(error.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> Response:
        # what was wrong and where, never what was sent: a body may hold a token, and it may not be JSON at all
        problems = [{"loc": [str(part) for part in e.get("loc", ())], "msg": str(e.get("msg", "")),
                     "type": str(e.get("type", ""))} for e in error.errors()]
        if request.url.path.startswith("/api/"):
            body_error = any(p["loc"][:1] == ["body"] for p in problems)
            content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if body_error and content_type != "application/json":
                return JSONResponse({"detail": f"send the body as JSON (Content-Type: application/json), not "
                                               f"{content_type or 'no content type'}"}, status_code=415)
            return JSONResponse({"detail": problems}, status_code=422)
        return page(request, 422, "; ".join(f"{'.'.join(p['loc'][1:])}: {p['msg']}" for p in problems))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, error: Exception) -> Response:
        # one line, with no request data: a body, a query or a path may hold a secret
        route = getattr(request.scope.get("route"), "path", "?")
        logging.getLogger("arena.web").error("internal error on %s %s: %s", request.method, route,
                                             type(error).__name__)
        return JSONResponse({"detail": "internal error (logged on the server)"}, status_code=500)

    def check(found: Any, what: str) -> None:
        if not found:
            raise HTTPException(404, f"no {what}")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/", include_in_schema=False)
    def home(request: Request) -> HTMLResponse:
        return page(request)

    @app.get("/bots", include_in_schema=False)
    @app.get("/signin", include_in_schema=False)
    @app.get("/signup", include_in_schema=False)
    @app.get("/account", include_in_schema=False)
    @app.get("/tournaments", include_in_schema=False)
    @app.get("/ladders", include_in_schema=False)
    @app.get("/matches", include_in_schema=False)
    @app.get("/live", include_in_schema=False)
    def lists(request: Request) -> HTMLResponse:
        return page(request)

    @app.get("/bots/{name}", include_in_schema=False)
    def bot_page(request: Request, name: str) -> HTMLResponse:
        check(store.bots.find(name), f"bot named {name!r}")
        return page(request)

    @app.get("/tournaments/{tournament:path}", include_in_schema=False)
    def tournament_page(request: Request, tournament: str) -> HTMLResponse:
        check(tournament.strip() and store.tournaments.get(tournament), f"tournament {tournament!r}")
        return page(request)

    @app.get("/matches/{match}", include_in_schema=False)
    def match_page(request: Request, match: str) -> HTMLResponse:
        check(store.matches.get(match), f"match {match!r}")
        return page(request)

    @app.get("/live/{match_id}", include_in_schema=False)
    def live_page(request: Request, match_id: str) -> HTMLResponse:
        return page(request)

    return app
