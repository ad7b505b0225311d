"""`arena web`: the leaderboards, bots, tournaments, ladders, match replays and live matches in a browser;
and for owners, bot uploads (pre-flighted by workers of their own), versions, faults and remote bots."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Optional

import typer
import uvicorn

from arena.admission import raise_open_file_limit
from arena.cli.options import (ADMIN_TOKEN_FILE, ADMIN_TOKEN_FILE_OPTION, BOT_STORE_OPTION, DB_OPTION, SANDBOX_OPTION,
    TLS_CA_OPTION)
from arena.cli.settings import open_store, read_token_file, results_dir, sandbox_settings
from arena.cli.show import console, err_console, fail
from arena.submissions import bot_store as default_bot_store
from arena.web.app import WebSettings, create_app
from arena.web.guard import QuietErrors, WebLimits, guarded
from arena.web.streams import StreamLimits
from arena.web.uploads import OwnerLimits

DEFAULT_PORT = 8080
# connections the kernel holds for accepting (capped by net.core.somaxconn, 4096 on current Linux): a crowd cut off
# and coming back at once must not fill it, or a visitor's connection waits for its SYN's retries (1 s, 3 s, 7 s)
LISTEN_BACKLOG = 4096


def web(
    db: Optional[str] = DB_OPTION,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65535, help="Port to listen on."),
    server: Optional[str] = typer.Option(None, "--server", envvar="ARENA_SERVER_ADDRESS",
                                         help="A referee (HOST:PORT of `arena serve`) whose running matches the "
                                              "Live page shows."),
    admin_token_file: Optional[Path] = ADMIN_TOKEN_FILE_OPTION,
    viewer_token_file: Optional[Path] = typer.Option(None, "--viewer-token-file",
                                                     help="The referee's viewer token (`arena serve "
                                                          "--viewer-token-file`): enough for the Live page, and all "
                                                          "a server that faces the internet should hold."),
    tls_ca: Optional[Path] = TLS_CA_OPTION,
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="Serve HTTPS with this PEM certificate chain "
                                            "(with --tls-key); or put a reverse proxy in front (docs/hosting.md)."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="The certificate's PEM private key."),
    bot_store: Optional[Path] = BOT_STORE_OPTION,
    open_signup: bool = typer.Option(False, "--open-signup", help="Let visitors pick an owner name and get a "
                                     "token (rate-limited per address); by default owners come from "
                                     "`arena owner add`."),
    uploads_per_hour: int = typer.Option(20, "--uploads-per-hour", min=1, help="Uploads one owner may make in an "
                                         "hour."),
    live_bots: int = typer.Option(10, "--live-bots", min=1, help="Live bots one owner may have."),
    preflight_workers: int = typer.Option(2, "--preflight-workers", min=0, max=32,
                                          help="Pre-flights run at once (each in a process of its own); 0: none "
                                               "here, `arena preflights` runs them (the web then needs no write "
                                               "access to the bots' store)."),
    uploads: Optional[Path] = typer.Option(None, "--uploads", help="Where uploads wait for their pre-flight "
                                           "(default: the bots' store's .uploads folder; with `arena preflights` "
                                           "elsewhere, a folder both see at the same path)."),
    sandbox: Optional[str] = SANDBOX_OPTION,
    remote_address: Optional[str] = typer.Option(
        None, "--remote-address", metavar="HOST:PORT",
        help="Where remote bots connect: the ladder's port (`arena ladder serve --port`) as reachable from "
             "outside, e.g. arena.example.org:50052. Owners who register one are given the exact command; "
             "/api/server says it."),
    remote_tls: bool = typer.Option(False, "--remote-tls", help="The ladder's port for remote bots speaks TLS "
                                                                "(arenas://)."),
    trusted_proxy: Optional[list[str]] = typer.Option(
        None, "--trusted-proxy", metavar="ADDRESS",
        help="A reverse proxy whose X-Forwarded-For (or X-Real-IP) header names the client (repeatable; an address "
             "or a network such as 10.0.0.0/8): every limit per address, connections included, counts that client. "
             "Without one the headers are ignored: every limit per address counts the address that connects."),
    max_connections: Optional[int] = typer.Option(None, "--max-connections", min=16,
                                                  help="Connections open at once, in all (default 4096; kept under "
                                                       "the open-file limit)."),
    connections_per_address: int = typer.Option(64, "--connections-per-address", min=1,
                                                help="Connections one address (an IPv6 /64) may hold open."),
    connections_per_network: Optional[int] = typer.Option(None, "--connections-per-network", min=1,
                                                          help="Connections one network (an IPv4 /24, an IPv6 /48) "
                                                               "may hold open (default 256, never under the cap per "
                                                               "address)."),
    max_streams: int = typer.Option(StreamLimits.total, "--max-streams", min=2,
                                    help="Live views and upload progress streams open at once, in all (when "
                                         "reached, the oldest of the network holding the most is ended for a "
                                         "newcomer)."),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.1,
                                         help="Seconds a client has to send a request's headers."),
    request_timeout: float = typer.Option(300.0, "--request-timeout", min=1.0,
                                          help="Seconds a whole request (headers and body) may take, from its first "
                                               "byte."),
    body_min_rate: int = typer.Option(4096, "--body-min-rate", min=1,
                                      help="Bytes a second a request body must keep up on average after its first "
                                           "--body-grace seconds; a slower one is cut off."),
    body_grace: float = typer.Option(WebLimits.body_grace_s, "--body-grace", min=0.0,
                                     help="Seconds a request body may take before --body-min-rate counts (each "
                                          "body's drawn up to half as long again, so slow bodies cut off together "
                                          "do not come back together)."),
) -> None:
    """Serve Arena's pages and JSON API over the results database; owners sign in to upload bots (each
    pre-flighted in a worker process), retire versions and register remote bots."""
    _check_tls_files(tls_cert, tls_key)
    proxies = _trusted(trusted_proxy or [])
    limits = _web_limits(max_connections, connections_per_address, connections_per_network, header_timeout,
                         request_timeout, body_min_rate, body_grace, proxies)
    settings_sandbox = sandbox_settings(sandbox)
    token = _referee_token(server, viewer_token_file, admin_token_file)
    store = open_store(db)  # (made by the ladder, a tournament or `arena owner add`: never by a web server)
    where = bot_store or default_bot_store(results_dir())
    app = create_app(store, WebSettings(
        referee=server, referee_token=token, tls_ca=str(tls_ca) if tls_ca else None,
        db_url=store.engine.url.render_as_string(hide_password=False), bot_store=str(where),
        uploads=str(uploads) if uploads else "",
        owner_limits=OwnerLimits(uploads_per_hour=uploads_per_hour, live_bots=live_bots), open_signup=open_signup,
        preflight_workers=preflight_workers, sandbox=settings_sandbox.mode, limits=limits,
        remote_address=(remote_address or "").strip(), remote_tls=remote_tls,
        live_limits=StreamLimits(total=max_streams)))
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    scheme = "https" if tls_cert else "http"
    _warn_in_the_clear(host, tls_cert, proxies)
    config = _server_config(QuietErrors(app), host, port, limits, tls_cert, tls_key)
    try:
        listener = _listen(host, port)
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error} (pick another --port, or stop what uses it)")
    console.print(f"Arena web: {scheme}://{shown}:{port}/  (Ctrl-C to stop)")
    uvicorn.Server(config).run(sockets=[listener])


def _web_limits(max_connections: int | None, connections_per_address: int, connections_per_network: int | None,
                header_timeout: float, request_timeout: float, body_min_rate: int, body_grace: float,
                proxies: list[str]) -> WebLimits:
    """The limits on the web server's clients, its connections kept under the open-file limit."""
    return WebLimits(connections=min(max_connections or WebLimits.connections, _open_file_room()),
                     per_address=connections_per_address,
                     per_network=max(connections_per_address, connections_per_network or WebLimits.per_network),
                     header_s=header_timeout, request_s=request_timeout, body_rate=body_min_rate,
                     body_grace_s=body_grace,
                     trusted_proxies=tuple(proxies))


def _warn_in_the_clear(host: str, tls_cert: Path | None, proxies: list[str]) -> None:
    """A warning where every interface is served without TLS and no reverse proxy is trusted."""
    if host in ("0.0.0.0", "::") and not tls_cert and not proxies:
        err_console.print("arena: warning: listening on every interface without TLS: owner tokens and sessions would "
                          "cross the network in the clear; use --tls-cert/--tls-key or a reverse proxy "
                          "(docs/hosting.md)", markup=False, soft_wrap=True)


def _server_config(app: QuietErrors, host: str, port: int, limits: WebLimits, tls_cert: Path | None,
                   tls_key: Path | None) -> uvicorn.Config:
    """uvicorn's settings: HTTPS with the certificate when given, the guard's limits on every connection."""
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                          ssl_certfile=str(tls_cert) if tls_cert else None,
                          ssl_keyfile=str(tls_key) if tls_key else None,
                          http=guarded(limits), timeout_keep_alive=int(limits.keep_alive_s), backlog=LISTEN_BACKLOG,
                          proxy_headers=False,  # (the guard reads a trusted proxy's headers: arena.web.guard)
                          server_header=False)


def _check_tls_files(tls_cert: Path | None, tls_key: Path | None) -> None:
    """Both --tls-cert and --tls-key or neither, each a file, or a one-line error."""
    if (tls_cert is None) != (tls_key is None):
        fail("HTTPS needs both --tls-cert and --tls-key", code=2)
    for path in (tls_cert, tls_key):
        if path is not None and not path.is_file():
            fail(f"no such file {path}", code=2)


def _referee_token(server: str | None, viewer_token_file: Path | None, admin_token_file: Path | None) -> str | None:
    """The token the Live page lists the referee's matches with: the viewer token's file, else the admin token
    `arena serve` wrote (a warning where there is none); None without a referee."""
    if server and viewer_token_file is not None:
        return read_token_file(viewer_token_file, "--viewer-token-file")
    if not server:
        return None
    path = admin_token_file or results_dir() / ADMIN_TOKEN_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        err_console.print(f"arena: warning: no admin token at {path}: the Live page cannot list the referee's "
                          "matches (pass --viewer-token-file)", markup=False)
        return None


def _open_file_room() -> int:
    """Connections the process can hold: its open-file limit (raised to the hard one) less a reserve."""
    return max(16, raise_open_file_limit() - 512)


def _trusted(entries: list[str]) -> list[str]:
    """The trusted proxies, each checked (an address or a network), or a one-line error."""
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            fail(f"--trusted-proxy {entry!r} is not an address or a network (e.g. 10.0.0.5 or 10.0.0.0/8)", code=2)
    return entries


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here (so a port in use is one line of ours, before anything is printed)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Every connection sends at once (accepted sockets inherit it): an answer written as headers then body
    # would otherwise wait for the client's delayed ACK, 40 ms per request on a kept-alive connection.
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        listener.bind((host, port))
        listener.listen(LISTEN_BACKLOG)
    except OSError:
        listener.close()
        raise
    listener.set_inheritable(True)
    return listener

