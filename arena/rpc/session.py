"""One bot stream on the referee's side: the SeatPort that speaks arena.v1 over gRPC.

The RPC handler (arena.rpc.server) reads the Hello, makes a BotSession and waits on `closed`;
the match loop then drives the same stream through start / decide / finish. Messages from the
bot arrive as raw bytes and are parsed here, so garbage, oversized or out-of-place messages are
faults with a precise reason instead of transport errors.
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Any, Callable, Optional

import grpc
from google.protobuf.message import DecodeError

from arena.games.base import Game
from arena.referee.faults import SeatFault
from arena.referee.players import PlayerKind
from arena.referee.record import MatchResult, PlayerInfo, Termination, decision_name
from arena.agents.base import OUTPUT_CHARS
from arena.referee.seats import Answer, Ask, MatchSetup, SeatPort
from arena.rpc.convert import clock_to_message, options_to_map, players_to_messages, result_to_message
from arena.rpc.generated.bot_pb2 import BotMessage, RefereeMessage
from arena.rpc.launcher import BotProcess
from arena.rpc.observations import codec_for_game

MAX_MESSAGE_BYTES = 64 * 1024  # a Decision is a few bytes; anything near this is abuse
#: gRPC's own cap on one message: a bigger one is refused by the transport before it is read whole,
#: and the stream is cut.
TRANSPORT_MESSAGE_LIMIT = 4 * 1024 * 1024
CUT_WAIT_S = 0.25  # after the stream's end, how long to wait to see whether the transport cut it
CRASH_WAIT_S = 2.0  # after a lost stream, how long to wait for the process to show it exited
OUTPUT_SETTLE_S = 0.5  # how long a decision waits for its lines to be read while no progress is made
OUTPUT_SETTLE_BYTES = 64 * 1024  # at most this much of what a bot wrote before its answer is waited for (a pipe's
# default size: a bot that enlarged its pipe and flooded it does not hold each decision for seconds)

_EOF = grpc.aio.EOF
_MAYBE_A_LIMIT = (Termination.DISCONNECT, Termination.CRASH, Termination.TIMEOUT)
#: What a program prints when a per-process limit (rlimit) refused it: the kernel's errors, as words.
_LIMIT_HINTS = (
    ("MemoryError", "memory_mb"),
    ("Cannot allocate memory", "memory_mb"),
    ("std::bad_alloc", "memory_mb"),
    ("heap out of memory", "memory_mb"),
    ("Resource temporarily unavailable", "processes"),
    ("can't start new thread", "processes"),
    ("Too many open files", "open_files"),
    ("No space left on device", "scratch_mb"),
)


class BotSession(SeatPort):
    """A bot's stream for one match (local bots are `process`-backed; remote ones are not)."""

    def __init__(self, context: Any, *, name: str, version: str, games: tuple[str, ...], omit_labels: bool,
                 process: Optional[BotProcess] = None) -> None:
        self._context = context
        self.name = name
        self.version = version
        self.games = games
        self.omit_labels = omit_labels
        self.process = process
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.started = False
        self.faulted = False
        self.on_release: Optional[Callable[[BotSession], None]] = None
        self._rpc_ended = asyncio.Event()
        self._gone = False
        self._seat = 0
        self._match_id = ""
        self._fill: Callable[[Any, Any], None] = _no_codec
        self._field = ""
        self._output_mark = 0
        self._decision_mark = 0  # the output read by the last decision: what came after is the next one's
        self._awaited: tuple[int, int] | None = None  # the decision last asked for: (its sequence, its step)
        self._sent_at: float | None = None  # when its request left (time.perf_counter())

    # --- life of the stream --------------------------------------------------------------------

    @property
    def is_alive(self) -> bool:
        """True while the stream is open and no match has closed it."""
        return not self._gone and not self.closed.done()

    def plays(self, game_name: str, family: str) -> bool:
        """True when the bot's Hello listed the game, its family, or '*'."""
        return not self.games or "*" in self.games or game_name in self.games or family in self.games

    def on_rpc_done(self, _context: Any = None) -> None:
        """The RPC ended (the bot hung up or the server cancelled it)."""
        self._rpc_ended.set()
        if self.closed.done():
            return
        self._gone = True
        if self.started and self.failure is None:
            self.failure = SeatFault(self._seat, Termination.DISCONNECT, "the bot's stream ended during the match")
            if self.on_lost is not None:
                self.on_lost()

    def close(self) -> None:
        """End the RPC (the handler waiting on `closed` returns)."""
        if not self.closed.done():
            self.closed.set_result(None)

    # --- SeatPort ------------------------------------------------------------------------------

    @property
    def player(self) -> PlayerInfo:
        return PlayerInfo(self._seat, self.name, self.version, PlayerKind.BOT)

    async def start(self, setup: MatchSetup) -> None:
        self._seat = setup.seat
        self._match_id = setup.match_id
        game = setup.game
        codec = codec_for_game(game.name)
        self._fill, self._field = codec.fill, codec.field
        self.started = True
        if self.process is not None:
            self._output_mark = self._decision_mark = self.process.output.total
        if self._gone:
            raise SeatFault(setup.seat, Termination.DISCONNECT, "the bot's stream closed before the match started")
        message = RefereeMessage()
        start = message.match_start
        start.match_id = setup.match_id
        start.game = game.name
        options_to_map(game.options, start.options)
        start.seat = setup.seat
        start.num_seats = game.num_seats
        start.num_actions = game.num_actions
        start.seat_names.extend(game.info.seat_names)
        start.clock.CopyFrom(clock_to_message(setup.clock))
        start.agent_seed = setup.agent_seed
        players_to_messages(setup.players, start.players)
        start.family = codec.family
        start.action_labels.extend(action_labels(game))
        await self._send(message.SerializeToString())

    async def decide(self, ask: Ask) -> Answer:
        await self.send_request(ask)
        return await self.read_answer(ask)

    async def send_request(self, ask: Ask) -> None:
        """The first half of decide(): the DecisionRequest, written."""
        request = encode_decision_request(ask, self._fill, self._field, self.omit_labels)
        self._sent_at = time.perf_counter()  # the bot's clock runs from here: building the request was ours
        await self._send(request)

    async def read_answer(self, ask: Ask) -> Answer:
        """The second half of decide(): the bot's next message, which must be the Decision."""
        self._awaited = (ask.sequence, ask.step)  # (named only where a fault says it: not on every decision)
        try:
            raw = await self._context.read()
        except Exception as error:  # (a cancellation is no Exception: it goes on up)
            raise self._lost(f"the bot's stream broke ({type(error).__name__}: {error})") from None
        if raw is _EOF:
            raise self._lost(await self._why_the_stream_ended(decision_name(ask.sequence, ask.step)))
        if len(raw) > MAX_MESSAGE_BYTES:
            raise SeatFault(self._seat, Termination.MALFORMED_MESSAGE,
                            f"a message of {len(raw)} bytes, over the {MAX_MESSAGE_BYTES}-byte limit")
        try:
            reply = BotMessage.FromString(raw)
        except DecodeError as error:
            raise SeatFault(self._seat, Termination.MALFORMED_MESSAGE,
                            f"{len(raw)} bytes that are not an arena.v1.BotMessage ({error})") from None
        if reply.HasField("decision"):
            decision = reply.decision
            process = self.process
            if process is not None and process.manifest.concurrency == 1 and process.has_unread_output():
                # what it wrote before it answered is this decision's (a pipe's worth at most)
                await process.drain_output(OUTPUT_SETTLE_S, OUTPUT_SETTLE_BYTES)
            return Answer(decision.sequence, decision.action, decision.think_us / 1e6, decision.note,
                          self._output_of_decision(), self._sent_at)
        kind = reply.WhichOneof("kind")
        if kind is None:
            raise SeatFault(self._seat, Termination.MALFORMED_MESSAGE,
                            f"{len(raw)} bytes that carry no known BotMessage field")
        raise SeatFault(self._seat, Termination.PROTOCOL_ERROR,
                        f"sent {kind} while {decision_name(ask.sequence, ask.step)} was awaited")

    def _output_of_decision(self) -> str:
        """What the bot wrote since its last decision (what it had written when its answer came is read first:
        a line written just before the answer goes with it); '' for a process that plays several matches at once
        (its lines cannot be told apart) or a bot that is not a local process."""
        process = self.process
        if process is None or process.manifest.concurrency > 1:
            return ""
        mark, self._decision_mark = self._decision_mark, process.output.total
        return process.output.since(mark, OUTPUT_CHARS) if process.output.total > mark else ""

    async def finish(self, result: MatchResult) -> None:
        try:
            if self.started and not self._gone:
                message = RefereeMessage()
                end = message.match_end
                end.match_id = self._match_id
                end.seat = self._seat
                result_to_message(result, end.result)
                await self._context.write(message.SerializeToString())
        except Exception:  # the bot is gone; nothing more to tell it
            pass
        finally:
            if self.started:
                self.close()
            if self.on_release is not None:
                self.on_release(self)

    async def examine(self, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
        self.faulted = True
        process = self.process
        if process is None:
            return fault, {}
        if fault.reason in _MAYBE_A_LIMIT:
            fault = await self._as_seen_by_the_process(fault, process)
        await process.drain_output(2.0)  # its last words are in the record, however the fault came (a busy
        # machine may take a while to read them: the match is over, no clock waits on this)
        output = process.output.since(self._output_mark)
        if fault.reason is Termination.CRASH:
            note = _crash_note(process, output)
            fault = SeatFault(fault.seat, fault.reason, f"{fault.detail}; {note}" if note else fault.detail)
        return fault, _evidence(process, output)

    async def _as_seen_by_the_process(self, fault: SeatFault, process: BotProcess) -> SeatFault:
        """A disconnect, crash or timeout restated by what the process shows: a limit it met, or how it exited."""
        if fault.reason is not Termination.TIMEOUT:
            await process.wait_exit(CRASH_WAIT_S)
        exceeded = process.limit_exceeded()
        ended = process.has_exited and fault.reason is Termination.DISCONNECT
        if exceeded is not None:
            reason, detail = exceeded
            return SeatFault(fault.seat, reason, detail if ended else f"{detail} ({fault.detail})")
        if ended and process.exited_abnormally:  # the stream went with the process: say so, nothing else
            return SeatFault(fault.seat, Termination.CRASH,
                             f"the bot process {process.exit_description()} while "
                             f"{decision_name(*self._awaited) if self._awaited else 'no decision'} "
                             "was awaited")
        if ended:
            return SeatFault(fault.seat, fault.reason, f"{fault.detail}; then the bot process exited (status 0)")
        return fault

    # --- the wire --------------------------------------------------------------------------------

    async def _send(self, data: bytes) -> None:
        try:
            await self._context.write(data)
        except Exception as error:  # (a cancellation is no Exception: it goes on up)
            raise self._lost(f"the bot's stream could not be written to ({type(error).__name__})") from None

    async def _why_the_stream_ended(self, awaited: str) -> str:
        """A stream the bot half-closed stays up; one the transport ends at once was cut: the bot sent a
        message over the transport's limit (gRPC refuses it before reading it whole) or cancelled, or its
        process ended (examine() then says how, in place of this)."""
        try:
            await asyncio.wait_for(self._rpc_ended.wait(), CUT_WAIT_S)
        except TimeoutError:
            return f"the bot closed its stream (half-close) while {awaited} was awaited"
        return (f"the bot's stream was cut while {awaited} was awaited: it sent a message over the "
                f"{TRANSPORT_MESSAGE_LIMIT}-byte transport limit, or cancelled the stream")

    def _lost(self, detail: str) -> SeatFault:
        self._gone = True
        return SeatFault(self._seat, Termination.DISCONNECT, detail)


@functools.lru_cache(maxsize=64)
def action_labels(game: Game) -> tuple[str, ...]:
    """Every action id's label, in id order (MatchStart.action_labels; the same as docs/actions)."""
    return tuple(label for _, label in game.action_space())


def encode_decision_request(ask: Ask, fill: Callable[[Any, Any], None], field: str, omit_labels: bool) -> bytes:
    """The serialized RefereeMessage asking `ask.seat` to decide: built from its observation only."""
    message = RefereeMessage()
    request = message.decision_request
    request.sequence = ask.sequence
    request.step = ask.step
    request.seat = ask.seat
    legal = ask.legal_actions
    request.legal_actions.extend(legal)
    state = ask.state
    if not omit_labels:
        label = state.action_to_string
        request.legal_labels.extend([label(action) for action in legal])
    fill(getattr(request.observation, field), state.observation(ask.seat))
    request.time_left_ms = int((ask.time_left_s or 0.0) * 1000.0)
    request.bank_ms = int((ask.bank_s or 0.0) * 1000.0)
    return message.SerializeToString()


def limit_hint(output: str) -> tuple[str, str] | None:
    """(words, limit name) when a program's last words show a per-process limit refused it."""
    for words, limit in _LIMIT_HINTS:
        if words in output:
            return words, limit
    return None


def _crash_note(process: BotProcess, output: str) -> str:
    """What a crash's detail adds: the limit its last words show it probably met, else the process's limits note."""
    hint = limit_hint(output)
    limits = process.plan.limits.to_json() if process.plan is not None else {}
    if hint is not None and hint[1] in limits:
        return f"it probably met its {hint[1]} limit of {limits[hint[1]]} ({hint[0]!r} in its output)"
    return process.limits_note()


def _evidence(process: BotProcess, output: str) -> dict[str, Any]:
    """A faulted process's evidence: its pid, and its last output, output throttling and usage where it has them."""
    evidence: dict[str, Any] = {"pid": process.pid}
    if output:
        evidence["output"] = output
    if process.output.throttled_s:
        evidence["output_throttled_s"] = round(process.output.throttled_s, 3)
    usage = process.usage()
    if usage is not None:
        evidence["usage"] = usage.to_json()
    return evidence


def _no_codec(message: Any, observation: Any) -> None:
    raise RuntimeError("decide() before start()")
