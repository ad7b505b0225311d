"""The bot SDK: `run_bot(agent)` turns any in-process agent into a bot program.

    from arena.agents import RandomAgent
    from arena.sdk import run_bot

    if __name__ == "__main__":
        run_bot(RandomAgent())

Launched by the referee, the program finds ARENA_SERVER (the referee's socket) and ARENA_TOKEN_FILE
(a file holding its launch token) in its environment; run by hand against a remote referee, pass
--server HOST:PORT --token TOKEN (or --token-file FILE) and --name NAME, and --tls-ca CA.pem when
the referee speaks TLS. The
agent sees exactly what it sees in a local match: `reset(game, seat, seed)` per match and
`act(DecisionRequest)` per decision, whose `observation` is the dict `State.observation(seat)`
gives (decoded only if the agent reads it), so search agents can call `game.determinize`.

With a concurrency of N (the manifest's `concurrency`, passed as ARENA_CONCURRENCY, or
--concurrency) the program plays up to N matches at once on N streams of one connection, each
stream with an agent of its own: `run_bot(agent)` deep-copies the agent for streams 2..N before
any match begins, `run_bot(factory)` calls a zero-argument factory (a class will do) per stream.
Agents share the event loop: `act` runs on it, so one slow decision delays the other streams.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
import re
import sys
import urllib.parse
import time
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import grpc

from arena.agents.base import NOTE_CHARS, Agent, DecisionRequest
from arena.games.base import Game
from arena.games.registry import game_modes, load_game
from arena.referee.record import MatchResult
from arena.rpc.crash import readable_traceback
from arena.rpc.convert import PROTOCOL_VERSION, options_from_map, result_from_message
from arena.rpc.generated.bot_pb2 import BotMessage, Hello, MatchStart
from arena.rpc.generated.bot_pb2_grpc import BotStub
from arena.rpc.observations import ObservationCodec, codec_for_family, families_with_codecs

_EOF = grpc.aio.EOF
# Status codes meaning "the referee went away or is closing": a bot then simply exits.
_GONE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
_WAIT_SAID = re.compile(r"(?:wait|try again in) (\d+(?:\.\d+)?) s\b")  # in a refusal for a while

AgentFactory = Callable[[], Agent]
AgentSource = Union[Agent, AgentFactory]  # an agent (copied per stream), or a factory called per stream


class BotRefused(RuntimeError):
    """The referee refused the bot's Hello (bad token, wrong protocol version...). `retry_after_s`: for a refusal
    that holds for a while only (its address paused for wrong tokens, streams opened too fast), the seconds the
    referee said to wait (0.0 where it did not say); None for one that holds (a remote bot stops on it)."""

    def __init__(self, message: str, retry_after_s: Optional[float] = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def _stream_refused(code: grpc.StatusCode, details: Optional[str]) -> BotRefused:
    """What the referee's end of a stream says to the bot: RESOURCE_EXHAUSTED is for a while ("wait N s", "try
    again in N s"); anything else holds."""
    message = f"the referee ended the stream: {code.name}: {details}"
    if code != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return BotRefused(message)
    said = _WAIT_SAID.search(details or "")
    return BotRefused(message, float(said.group(1)) if said else 0.0)


@dataclass(frozen=True)
class BotSettings:
    """Where and as whom a bot connects."""

    server: str
    token: str
    name: str
    version: str
    games: tuple[str, ...] = ("*",)
    omit_labels: bool = True  # in-process agents never see labels, so do not ask for them
    max_matches: Optional[int] = None  # stop after this many (None: until the referee closes)
    connect_timeout_s: float = 30.0
    concurrency: int = 1  # matches played at once, one stream and one agent each
    tls_ca: Optional[str] = None  # PEM file of the CA that signed the referee's certificate: use TLS
    say: Optional[Callable[[str], None]] = None  # told what happens (connected, seated, the result, lost): a bot
    # run by hand against a hosted ladder prints it (run_bot); one the referee launched says nothing
    reconnect: bool = False  # come back after the connection is lost or the referee restarts (ARENA_REMOTE)


MatchEndCallback = Callable[[MatchStart, MatchResult], None]


async def serve_matches(agent: AgentSource, settings: BotSettings,
                        on_match_end: MatchEndCallback | None = None) -> int:
    """Play matches for the referee until it closes, up to `settings.concurrency` at once; returns how many."""
    agents = make_agents(agent, settings.concurrency)
    games: dict[tuple[str, tuple[tuple[str, Any], ...]], Game] = {}
    _warm_up()
    hello = BotMessage(hello=Hello(protocol_version=PROTOCOL_VERSION, name=settings.name, version=settings.version,
                                   token=settings.token, games=list(settings.games),
                                   omit_labels=settings.omit_labels))
    tally = _Tally(settings.max_matches)
    async with open_channel(settings.server, settings.tls_ca) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), settings.connect_timeout_s)
        except TimeoutError:
            raise ConnectionError(f"no referee at {settings.server} within {settings.connect_timeout_s:g}s") from None
        say = settings.say
        if say is not None:
            say(f"connected to {settings.server}{' (TLS)' if settings.tls_ca else ''} as {settings.name}; waiting "
                f"to be seated (a ladder seats connected bots at its next round)")
        stub = BotStub(channel)
        if len(agents) == 1:
            await _serve_streams(stub, hello, agents[0], games, tally, on_match_end, say)
            return tally.played
        workers = [asyncio.ensure_future(_serve_streams(stub, hello, one, games, tally, on_match_end, say))
                   for one in agents]
        try:
            done, _pending = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for worker in workers:
                worker.cancel()
        for worker in done:
            error = None if worker.cancelled() else worker.exception()
            if error is not None:
                raise error
    return tally.played


SYSTEM_CAS = "system"  # tls_ca meaning the machine's own trusted CAs (arenas://)


def open_channel(address: str, tls_ca: Optional[str] = None) -> grpc.aio.Channel:
    """A channel to the referee: plain (its socket, or a loopback port), or TLS checked against `tls_ca` (a PEM
    file, or SYSTEM_CAS)."""
    if tls_ca is None:
        return grpc.aio.insecure_channel(address)
    if tls_ca == SYSTEM_CAS:
        return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials())
    try:
        authority = Path(tls_ca).read_bytes()
    except OSError as error:
        raise ConnectionError(f"cannot read the TLS CA file {tls_ca}: {error.strerror}") from None
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=authority))


def read_token(token: str, token_file: Optional[str]) -> str:
    """The token given, else the contents of the token file (where the referee puts a launch token)."""
    if token or not token_file:
        return token
    try:
        return Path(token_file).read_text().strip()
    except OSError as error:
        raise BotRefused(f"cannot read the token file {token_file}: {error.strerror}") from None


def make_agents(agent: AgentSource, count: int) -> list[Agent]:
    """`count` agents, one per stream: the agent and deep copies of it made now, or the factory's."""
    if isinstance(agent, Agent):
        return [agent] + [copy.deepcopy(agent) for _ in range(count - 1)]
    return [agent() for _ in range(count)]


class _Tally:
    """Matches claimed and played across the streams of one program (for --matches)."""

    __slots__ = ("limit", "claimed", "played")

    def __init__(self, limit: Optional[int]) -> None:
        self.limit = limit
        self.claimed = 0
        self.played = 0

    def claim(self) -> bool:
        if self.limit is not None and self.claimed >= self.limit:
            return False
        self.claimed += 1
        return True


async def _serve_streams(stub: BotStub, hello: BotMessage, agent: Agent, games: dict, tally: _Tally,
                         on_match_end: MatchEndCallback | None, say: Optional[Callable[[str], None]] = None) -> None:
    """One stream after another, one match each, until the referee closes or the tally is reached."""
    while tally.claim():
        call = stub.Play()
        try:
            await call.write(hello)
            finished = await _play_one(call, agent, games, on_match_end, say)
        except grpc.aio.AioRpcError as error:
            if error.code() in _GONE:
                return
            raise _stream_refused(error.code(), error.details()) from None
        if not finished:  # the referee closed the stream without a match: it is shutting down
            code = await call.code()
            if code not in _GONE and code != grpc.StatusCode.OK:
                raise _stream_refused(code, await call.details())
            return
        tally.played += 1


def _warm_up() -> None:
    """Load the game registry and the observation codecs now, not on the clock of the first decision."""
    game_modes()
    for family in families_with_codecs():
        codec_for_family(family)


async def _play_one(call: Any, agent: Agent, games: dict, on_match_end: MatchEndCallback | None,
                    say: Optional[Callable[[str], None]] = None) -> bool:
    """Play one match on an open stream; False if the stream ended before a match started."""
    message = await call.read()
    if message is _EOF:
        return False
    if message.WhichOneof("kind") != "match_start":
        raise BotRefused(f"expected MatchStart, got {message.WhichOneof('kind')}")
    start = message.match_start
    if say is not None:
        say(f"seated in match {start.match_id[:12]} ({start.game}), seat {start.seat}")
        on_match_end = _saying_the_result(say, on_match_end)
    codec = _seat_agent(agent, games, start)
    decode, field = codec.to_dict, codec.field
    clock = time.perf_counter
    read, write, act = call.read, call.write, agent.act
    while True:
        message = await read()
        if message is _EOF:
            return True
        if message.HasField("decision_request"):
            request = message.decision_request
            started = clock()
            asked = DecisionRequest(request.seat, list(request.legal_actions),
                                    partial(_decode, decode, request.observation, field), request.time_left_ms / 1000.0,
                                    request.sequence, request.step)
            action = act(asked)
            think_us = int((clock() - started) * 1e6)
            try:
                await write(_decision(request.sequence, action, think_us, asked.note))
            except (asyncio.InvalidStateError, grpc.aio.AioRpcError):
                # the match ended while the agent thought (the opponent left, the server shut down) and the
                # referee closed the stream: the answer is moot, and the program plays on
                return await _read_to_the_end(call, start, on_match_end)
        elif message.HasField("match_end"):
            _ended(message, start, on_match_end)
            while await read() is not _EOF:  # the referee closes the stream next
                pass
            return True


def _decision(sequence: int, action: int, think_us: int, note: Any) -> BotMessage:
    """The BotMessage that answers decision `sequence` with `action`, its think time and its note."""
    reply = BotMessage()
    decision = reply.decision
    decision.sequence = sequence
    decision.action = action
    decision.think_us = min(think_us, 2**32 - 1)
    if note:  # (the referee keeps NOTE_CHARS of it; more would only cost the bot time)
        decision.note = str(note)[:NOTE_CHARS]
    return reply


def _seat_agent(agent: Agent, games: dict, start: Any) -> ObservationCodec:
    """Reset `agent` for the match `start` opens (its game loaded once per game and options, kept in `games`);
    the codec of the match's observations."""
    options = options_from_map(start.options)
    key = (start.game, tuple(sorted(options.items())))
    game = games.get(key)
    if game is None:
        game = games[key] = load_game(start.game, options)
    codec = codec_for_family(start.family)
    agent.reset(game, start.seat, start.agent_seed)
    return codec


async def _read_to_the_end(call: Any, start: Any, on_match_end: MatchEndCallback | None) -> bool:
    """What is left on a stream the bot can no longer write to: MatchEnd, if it came, then the end."""
    try:
        while (message := await call.read()) is not _EOF:
            if message.HasField("match_end"):
                _ended(message, start, on_match_end)
    except grpc.aio.AioRpcError:
        pass  # a referee that is really gone refuses the next stream, and that ends the program
    return True


def _saying_the_result(say: Callable[[str], None], then: MatchEndCallback | None) -> MatchEndCallback:
    def ended(start: MatchStart, result: MatchResult) -> None:
        outcome = "draw" if result.is_draw else "won" if start.seat in result.winners else "lost"
        say(f"match {start.match_id[:12]} ended: {outcome} ({result.reason.replace('_', ' ')})")
        if then is not None:
            then(start, result)
    return ended


def _ended(message: Any, start: Any, on_match_end: MatchEndCallback | None) -> None:
    if on_match_end is not None:
        on_match_end(start, result_from_message(message.match_end.result))


def _decode(decode: Callable[[Any], Any], observation: Any, field: str) -> Any:
    """The observation dict, decoded from its typed message (only when the agent reads it)."""
    return decode(getattr(observation, field))


REMOTE_ENV = "ARENA_REMOTE"


def remote_url(name: str, token: str, address: str, tls: bool) -> str:
    """The one setting (ARENA_REMOTE) for a remote bot: `arena://NAME:TOKEN@HOST:PORT`, `arenas://` for TLS; what
    `parse_remote` reads back."""
    quoted = urllib.parse.quote(name, safe="") + ":" + urllib.parse.quote(token, safe="")
    return f"{'arenas' if tls else 'arena'}://{quoted}@{address}"


def parse_remote(url: str) -> dict[str, Any]:
    """`arena://NAME:TOKEN@HOST:PORT` (or `arenas://` for TLS checked against the system's CAs): the one setting
    that connects a bot run on its owner's computer to a hosted ladder. ValueError when it is not one."""
    parsed = urllib.parse.urlsplit(url.strip())
    if parsed.scheme not in ("arena", "arenas") or not parsed.hostname or not parsed.username or not parsed.password:
        raise ValueError(f"{REMOTE_ENV} must look like arena://NAME:TOKEN@HOST:PORT (arenas:// for TLS), not {url!r}")
    host = f"[{parsed.hostname}]" if ":" in parsed.hostname else parsed.hostname
    return {"server": f"{host}:{parsed.port or 50051}", "name": urllib.parse.unquote(parsed.username),
            "token": urllib.parse.unquote(parsed.password), "tls": parsed.scheme == "arenas"}


def settings_from_environment(agent: Agent, argv: Sequence[str] | None = None, **overrides: Any) -> BotSettings:
    """BotSettings from flags (--remote, or --server, --token, --token-file, --name; --version, --concurrency,
    --tls-ca), then ARENA_* variables, then the agent."""
    parser = _bot_parser(agent)
    arguments, _unknown = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    remote = _remote_settings(parser, arguments)
    values: dict[str, Any] = {
        "server": remote.get("server") or arguments.server,
        "token": remote.get("token") or read_token(arguments.token, arguments.token_file),
        "tls_ca": arguments.tls_ca or (SYSTEM_CAS if remote.get("tls") else None),
        "name": (name := remote.get("name") or arguments.name or agent.name),
        "version": arguments.bot_version or str(getattr(agent, "version", "1")),
        "max_matches": arguments.matches,
        "concurrency": max(1, arguments.concurrency),
        # a bot its owner runs against a hosted ladder (ARENA_REMOTE) says what happens, and comes back
        "say": _say_to_stderr(name) if remote else None,
        "reconnect": bool(remote),
    }
    values.update(overrides)
    return BotSettings(**values)


def _bot_parser(agent: Agent) -> argparse.ArgumentParser:
    """A bot program's flags, each defaulting to its ARENA_* variable where it has one."""
    parser = argparse.ArgumentParser(description=f"Arena bot ({agent.name})")
    parser.add_argument("--remote", default=os.environ.get(REMOTE_ENV),
                        help="one setting for a hosted ladder: arena://NAME:TOKEN@HOST:PORT (arenas:// for TLS)")
    parser.add_argument("--server", default=os.environ.get("ARENA_SERVER"), help="referee host:port (or unix:PATH)")
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN", ""), help="registered token (remote bots)")
    parser.add_argument("--token-file", default=os.environ.get("ARENA_TOKEN_FILE"),
                        help="file holding the token (the referee gives a launched bot its launch token so)")
    parser.add_argument("--tls-ca", default=os.environ.get("ARENA_TLS_CA"),
                        help="PEM file of the CA that signed the referee's TLS certificate")
    parser.add_argument("--name", default=os.environ.get("ARENA_BOT_NAME"), help="registered bot name")
    parser.add_argument("--version", dest="bot_version", default=None, help="version recorded with matches")
    parser.add_argument("--matches", type=int, default=None, help="stop after this many matches")
    parser.add_argument("--concurrency", type=int, default=int(os.environ.get("ARENA_CONCURRENCY") or 1),
                        help="matches played at once (a local bot: its bot.toml's concurrency)")
    return parser


def _remote_settings(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> dict[str, Any]:
    """What --remote (or ARENA_REMOTE) says, {} without one; a parser error for a bad one, or for no referee
    address at all."""
    remote: dict[str, Any] = {}
    if arguments.remote:
        try:
            remote = parse_remote(arguments.remote)
        except ValueError as error:
            parser.error(str(error))
    if not arguments.server and not remote:
        parser.error(f"no referee address: pass --server HOST:PORT (or set ARENA_SERVER), or {REMOTE_ENV}")
    return remote


def _say_to_stderr(name: str) -> Callable[[str], None]:
    def say(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {name}: {line}", file=sys.stderr, flush=True)
    return say


def run_bot(agent: AgentSource, argv: Sequence[str] | None = None, **overrides: Any) -> None:
    """The main function of a bot program: serve matches with `agent` until the referee closes.

    `agent` is an Agent, or a zero-argument factory of agents (a class will do) for a program that
    plays several matches at once and whose agents cannot simply be deep-copied.
    """
    first = agent if isinstance(agent, Agent) else agent()
    try:
        settings = settings_from_environment(first, argv, **overrides)
    except BotRefused as error:
        print(f"{first.name}: {error}", file=sys.stderr)
        sys.exit(2)
    if isinstance(agent, Agent):
        agents = make_agents(agent, settings.concurrency)
    else:
        agents = [first] + [agent() for _ in range(settings.concurrency - 1)]
    try:
        _serve_until_done(agents, settings)
    except BotRefused as error:
        print(f"{settings.name}: {error}", file=sys.stderr)
        sys.exit(2)
    except ConnectionError as error:
        print(f"{settings.name}: {error}", file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        pass
    except Exception as error:  # the agent's own (or the SDK's): its frames, the SDK's folded, short paths
        print(readable_traceback(error), file=sys.stderr, end="", flush=True)
        sys.exit(1)
    finally:
        for one in agents:
            one.close()


RETRY_S = 5.0  # a remote bot that lost its referee tries again at least this often, each try waiting this long


def _serve_until_done(agents: list[Agent], settings: BotSettings) -> None:
    """Serve matches; a remote bot (settings.reconnect) connects again whenever the connection is lost or the
    referee closes (or was not there, or refused it for a while: after the wait the referee said), until its
    --matches are played: it says each try, which waits at most RETRY_S to connect, after a pause of 1, 2, 4,
    then RETRY_S seconds. (One event loop for every try: gRPC's poller outlives a loop, and complains when the
    next try's is a new one.)"""
    asyncio.run(_serve_and_retry(agents, settings))


async def _serve_and_retry(agents: list[Agent], settings: BotSettings) -> None:
    left = settings.max_matches
    tries = 0  # failed in a row
    if settings.reconnect:
        settings = replace(settings, connect_timeout_s=min(settings.connect_timeout_s, RETRY_S))
    while True:
        try:
            played = await serve_matches(_handing_out(agents), replace(settings, max_matches=left))
            why, wait = "the referee closed the connection", 0.0
        except (ConnectionError, grpc.aio.AioRpcError, BotRefused) as error:
            passing = _passing_failure(error) if settings.reconnect else None
            if passing is None:
                raise
            played, (why, wait) = 0, passing
        if left is not None:
            left -= played
            if left <= 0:
                return
        if not settings.reconnect:
            return
        tries = 1 if played else tries + 1
        await _pause_before_retrying(settings.say, why, tries, wait)


async def _pause_before_retrying(say: Optional[Callable[[str], None]], why: str, tries: int, wait: float) -> None:
    """Say why the bot tries again, then wait 1, 2, 4, then RETRY_S seconds (or longer, as the referee said)."""
    pause = max(min(2.0 ** (tries - 1), RETRY_S), wait)
    if say is not None:
        say(f"{why}; trying again in {pause:g} s (try {tries + 1})")
    await asyncio.sleep(pause)


def _passing_failure(error: Exception) -> Optional[tuple[str, float]]:
    """For a failure a remote bot tries again after: (why, the seconds the referee said to wait); None for one
    that ends it."""
    if isinstance(error, ConnectionError):
        return str(error), 0.0
    if isinstance(error, grpc.aio.AioRpcError):
        return (f"lost the referee ({error.code().name})", 0.0) if error.code() in _GONE else None
    if isinstance(error, BotRefused) and error.retry_after_s is not None:
        return str(error), error.retry_after_s  # refused for a while (its address paused): come back when it says
    return None


def _handing_out(agents: list[Agent]) -> AgentFactory:
    """A factory that hands out the given agents, one per call."""
    pending = list(agents)
    return lambda: pending.pop(0)
