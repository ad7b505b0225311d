"""`arena web`: the leaderboards, bots, tournaments, ladders, match replays and live matches in a browser."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from arena.cli.common import console, err_console, fail, results_dir
from arena.cli.runs import DB_OPTION, open_store
from arena.cli.serve import ADMIN_TOKEN_FILE_OPTION, TLS_CA_OPTION

DEFAULT_PORT = 8080


def web(
    db: Optional[str] = DB_OPTION,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65535, help="Port to listen on."),
    server: Optional[str] = typer.Option(None, "--server", envvar="ARENA_SERVER_ADDRESS",
                                         help="A referee (HOST:PORT of `arena serve`) whose running matches the "
                                              "Live page shows."),
    admin_token_file: Optional[Path] = ADMIN_TOKEN_FILE_OPTION,
    tls_ca: Optional[Path] = TLS_CA_OPTION,
) -> None:
    """Serve Arena's pages and JSON API (read-only) over the results database."""
    try:
        import uvicorn

        from arena.web.app import WebSettings, create_app
    except ImportError as error:
        fail(f"arena web needs its web libraries ({error.name}): pip install -e .", code=2)
    token = None
    if server:
        path = admin_token_file or results_dir() / "admin-token"
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError:
            err_console.print(f"arena: warning: no admin token at {path}: the Live page cannot list the referee's "
                              "matches (pass --admin-token-file)", markup=False)
    store = open_store(db, read_only=True)
    app = create_app(store, WebSettings(referee=server, admin_token=token, tls_ca=str(tls_ca) if tls_ca else None))
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    console.print(f"Arena web: http://{shown}:{port}/  (Ctrl-C to stop)")
    if host in ("0.0.0.0", "::"):
        err_console.print("arena: warning: listening on every interface; the pages are read-only but public",
                          markup=False)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror}")


def register(app: typer.Typer) -> None:
    app.command("web")(web)
