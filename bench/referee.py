"""Referee speed: the per-decision round trip through the referee against raw gRPC, and throughput.

    .venv/bin/python bench/referee.py [--json] [--decisions N] [--matches-per-lane M] [--sandbox bwrap|none]
                                      [--launches L]

1. raw: a grpc.aio server sends a 150-byte message to a client process over one bidirectional
   stream and waits for its 12-byte answer (ping-pong: a DecisionRequest and a Decision's sizes): the
   anchor. It runs over a Unix socket, as local bots reach the referee (its bot socket).
2. referee: Major General matches through RefereeServer between two `arena/bots/trivial` seats (first
   legal action, through the bot SDK; its bot.toml lets one process play 16 matches at once, so
   here one process plays both seats, on two streams). Its round trip is what the referee
   records for each decision as think + transport time: from the DecisionRequest's leaving (it was
   built, observation included, before: the referee's time, not the bot's) to holding the parsed
   Decision. The cycle, decision to decision (rules engine, request building, chance and bookkeeping
   included), is printed too.
   Raw and referee are measured in alternating batches, so both see the same machine load.
   Beside them, the protocol's own floor (`codec_p50_us`): the same raw stream carrying the real messages, a
   Major General DecisionRequest encoded as the referee encodes it and the Decision parsed, the client answering
   as the bot SDK does (typed messages both ways); `referee_over_codec_p50` is the referee's own share. Both
   round trips run from the request's leaving: building it (`request_build_p50_us`, the observation encoded) is
   the referee's own time, before the bot's clock starts (as the referee times a decision since issue 44).
3. throughput: 8 matches at once between trivial bots, back to back: decisions per second, and
   the CPU time per decision of the referee and of the bot processes (on a shared machine the
   wall-clock rate also depends on everyone else's load; cores / CPU per decision does not).
4. the sandbox's cost, both ways in the same run: the launch of a bot process (spawn to its first
   stream's Hello) with and without bubblewrap, and the decision round trip with bots in their
   sandboxes against bots without one (alternating batches), --launches launches of each.
`--sandbox` chooses how the bots of 2. and 3. run (default bwrap, as a referee runs them); with `--sandbox none`
bubblewrap is never started (where it cannot run) and the sandbox's figures of 4. are null.

Targets (issue 3): referee p50 <= 1.5 x raw p50; >= 3,000 decisions/s with 8 matches on 2 cores.
Targets (issue 26): referee and SDK CPU per decision <= 200 us each (printed beside the raw gRPC anchor:
the CPU of one raw grpc.aio round trip on the server side and on the client side, in the same run, one stream at
a time; and, like for like with the throughput run, the server's with 8 streams busy at once, each replaced after
as many round trips as a seat's decisions in a match: several streams at once cost grpc.aio less a message).
Targets (issue 13): launch <= 100 ms more in the sandbox; sandboxed round trip p50 <= 1.1 x unsandboxed.
Where the referee's CPU goes (issue 44, whose target is <= 200 us a decision): the throughput run's CPU split into
its event loop's thread (the referee's Python, and gRPC's calls made from it) and its other threads (gRPC's own, and
the bots' memory watch where one runs), beside the raw anchor's split; and `referee_in_memory_cpu_us_per_decision`,
the match loop driving two BotSessions over in-memory streams (the real messages built and parsed): the referee's
own work with the transport taken out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from arena.bots import BUILTIN_BOTS
from arena.games.base import CHANCE, State  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import referee_match  # noqa: E402
from arena.referee.clock import ClockSettings  # noqa: E402
from arena.referee.record import Step  # noqa: E402
from arena.referee.seats import Ask  # noqa: E402
from arena.rpc.generated.bot_pb2 import BotMessage, RefereeMessage  # noqa: E402
from arena.rpc.observations import codec_for_family  # noqa: E402
from arena.rpc.server import RefereeServer, ServerConfig  # noqa: E402
from arena.rpc.session import BotSession, encode_decision_request  # noqa: E402
from arena.sandbox import SANDBOX_MODES, SandboxSettings  # noqa: E402

RAW_SERVICE, RAW_METHOD = "bench.PingPong", "Play"
PAYLOAD = b"x" * 150  # about the size of a Major General DecisionRequest (without labels, as the SDK asks)
REPLY = b"y" * 12  # about the size of a Decision
STOP = b"stop"
LANES = 8  # matches at once in the throughput run (and the raw anchor's streams at once)
BATCHES = 6
LAUNCHES = 12  # bot process launches timed per sandbox mode


def percentile(values: list[float], fraction: float) -> float:
    """The value at `fraction` (0..1) of the sorted values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class RawPingPong:
    """A raw grpc.aio server and one client process with `streams` streams open, each echoing a short reply to
    whatever it is sent, and opening a new stream when the server ends one (as a bot opens one per match), until
    it is told to stop."""

    def __init__(self, streams: int = 1, codec: bool = False) -> None:
        self.server = grpc.aio.server()
        self.streams: asyncio.Queue[tuple[object, asyncio.Future[None]]] = asyncio.Queue()
        self.count = streams
        self.codec = codec  # its client answers as the bot SDK does (see codec_client)
        self.client: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        async def play(request_iterator, context):  # type: ignore[no-untyped-def]
            await context.read()  # the client's hello
            ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.streams.put_nowait((context, ended))
            await ended

        self.server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            RAW_SERVICE, {RAW_METHOD: grpc.stream_stream_rpc_method_handler(play)})])
        self.folder = tempfile.mkdtemp(prefix="arena-bench-")
        address = f"unix:{self.folder}/raw.sock"
        self.server.add_insecure_port(address)
        await self.server.start()
        self.client = await asyncio.create_subprocess_exec(sys.executable, __file__, "--raw-client", address,
                                                           "--raw-streams", str(self.count),
                                                           *(["--codec"] if self.codec else []))
        self.stream = await self.streams.get()  # the one the ping-pongs go over

    async def round_trips(self, count: int, stream: tuple[object, asyncio.Future[None]] | None = None) -> list[float]:
        """`count` ping-pongs on one stream; seconds each."""
        context = (stream or self.stream)[0]
        clock = time.perf_counter
        times = []
        for _ in range(count):
            started = clock()
            await context.write(PAYLOAD)  # type: ignore[attr-defined]
            await context.read()  # type: ignore[attr-defined]
            times.append(clock() - started)
        return times

    async def codec_round_trips(self, asks: list[Ask]) -> tuple[list[float], list[float]]:
        """The protocol's own messages over the same raw stream, one per ask: a real DecisionRequest encoded as the
        referee encodes it (observation included), its Decision parsed. Seconds each, as the referee's round trip
        is timed (from the request's leaving to holding the parsed answer), and the seconds each request took to
        build (the referee's own time, before the bot's clock starts)."""
        context = self.stream[0]
        codec = codec_for_family("major-general")
        clock = time.perf_counter
        times, builds = [], []
        for ask in asks:
            built = clock()
            request = encode_decision_request(ask, codec.fill, codec.field, True)
            started = clock()
            await context.write(request)  # type: ignore[attr-defined]
            BotMessage.FromString(await context.read())  # type: ignore[attr-defined]
            times.append(clock() - started)
            builds.append(started - built)
        return times, builds

    async def cpu_per_round_trip(self, count: int) -> tuple[float, float]:
        """CPU seconds per ping-pong of this (server) process and of the client process, one stream at a time."""
        assert self.client is not None
        client_before, server_before = tree_cpu_s(self.client.pid), time.process_time()
        await self.round_trips(count)
        return ((time.process_time() - server_before) / count,
                (tree_cpu_s(self.client.pid) - client_before) / count)

    async def cpu_at_once(self, count: int, per_stream: int) -> tuple[float, float]:
        """CPU seconds per ping-pong of this (server) process, and of its event loop's thread alone, with all the
        client's streams busy at once (as the throughput run's matches are), each stream ended and a new one taken
        after `per_stream` ping-pongs (as a bot's stream ends with its match)."""
        self.streams.put_nowait(self.stream)

        async def lane(trips: int) -> None:
            while trips > 0:
                stream = await self.streams.get()
                done = min(per_stream, trips)
                await self.round_trips(done, stream)
                stream[1].set_result(None)  # the stream ends; the client opens another
                trips -= done

        await asyncio.gather(*(lane(per_stream) for _ in range(self.count)))  # warm: every stream once
        before, loop_before = time.process_time(), time.thread_time()
        await asyncio.gather(*(lane(count // self.count) for _ in range(self.count)))
        cpu, loop_cpu = time.process_time() - before, time.thread_time() - loop_before
        self.stream = await self.streams.get()
        trips = count // self.count * self.count
        return cpu / trips, loop_cpu / trips

    async def stop(self) -> None:
        streams = [self.stream] + [await self.streams.get() for _ in range(self.count - 1)]
        for context, ended in streams:  # the client's streams end, and it exits
            if not self.codec:
                await context.write(STOP)  # type: ignore[attr-defined]
            ended.set_result(None)
        if self.client is not None:
            await self.client.wait()
        await self.server.stop(None)
        shutil.rmtree(self.folder, ignore_errors=True)


async def codec_client(address: str) -> None:
    """The codec anchor's client: one stream, each DecisionRequest answered as the bot SDK answers (typed messages
    both ways, the first legal action), until the server ends the stream."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(f"/{RAW_SERVICE}/{RAW_METHOD}", request_serializer=BotMessage.SerializeToString,
                                     response_deserializer=RefereeMessage.FromString)()
        await call.write(BotMessage())
        while True:
            message = await call.read()
            if message is grpc.aio.EOF or not message.HasField("decision_request"):
                return
            request = message.decision_request
            legal = list(request.legal_actions)
            reply = BotMessage()
            reply.decision.sequence = request.sequence
            reply.decision.action = legal[0]
            await call.write(reply)


def codec_asks(count: int, seed: int = 1) -> list[Ask]:
    """Major General decisions of random games, as the referee asks them (the codec anchor's messages)."""
    game = load_game("major-general")
    rng = random.Random(seed)
    asks: list[Ask] = []
    state = game.new_initial_state()
    while len(asks) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            asks.append(Ask(len(asks) + 1, state.current_player(), legal, state.clone(), None, None, len(asks) + 1))
            state.apply_action(rng.choice(legal))
    return asks


async def raw_client(address: str, streams: int) -> None:
    """The raw ping-pong's client: on each of `streams` streams, answer every message with a Decision-sized
    reply; a stream the server ends is replaced by a new one, until the server says stop."""
    async with grpc.aio.insecure_channel(address) as channel:
        async def echo() -> None:
            while True:
                call = channel.stream_stream(f"/{RAW_SERVICE}/{RAW_METHOD}")()
                await call.write(b"hello")
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:
                        break
                    if message == STOP:
                        return
                    await call.write(REPLY)

        await asyncio.gather(*(echo() for _ in range(streams)))


async def referee_decisions(server: RefereeServer, count: int, first_seed: int) -> tuple[list[float], list[float]]:
    """Round trips (think + transport as recorded) and decision-to-decision cycles, in seconds."""
    round_trips: list[float] = []
    cycles: list[float] = []
    seed = first_seed
    while len(round_trips) < count:
        live = server.start_match("major-general", ["trivial", "trivial"], seed=seed)
        keep_step = live.on_step
        last_decision = [0.0]

        def on_step(state: State, step: Step, keep_step: Callable[[State, Step], None] = keep_step,
                    last_decision: list[float] = last_decision) -> None:
            keep_step(state, step)
            if not step.is_chance:
                now = time.perf_counter()
                if last_decision[0]:
                    cycles.append(now - last_decision[0])
                last_decision[0] = now

        live.on_step = on_step  # type: ignore[method-assign]
        assert live.task is not None
        record = await live.task
        round_trips.extend((step.timing["think_ms"] + step.timing["transport_ms"]) / 1000.0
                           for step in record.decisions[1:])  # the first includes the match start
        seed += 1
    return round_trips[:count], cycles


class MemoryStream:
    """A bot's stream held in memory, for the referee's own cost without the transport: what the referee writes is
    kept, and each read answers the DecisionRequest written last with its first legal action (as the trivial bot
    does), keeping the request it answered."""

    def __init__(self) -> None:
        self.last = b""
        self.answered: list[bytes] = []

    async def write(self, data: bytes) -> None:
        self.last = data

    async def read(self) -> bytes:
        self.answered.append(self.last)
        return first_legal_answer(self.last)


def first_legal_answer(data: bytes) -> bytes:
    """The Decision answering a serialized DecisionRequest with its first legal action."""
    request = RefereeMessage.FromString(data).decision_request
    reply = BotMessage()
    reply.decision.sequence = request.sequence
    reply.decision.action = request.legal_actions[0]
    return reply.SerializeToString()


async def in_memory_cpu_per_decision(matches: int) -> float:
    """CPU seconds per decision of the match loop and its sessions with the transport taken out: the match loop
    (rules, chance, clocks, the record, the public labels) driving two BotSessions, each building and parsing the
    real messages, over in-memory streams (the server's own bookkeeping around a match, its pool and its live
    view, left out). All of it runs on this thread, so its CPU is this thread's (the referee's other threads, still
    up, are not counted); the in-memory bot's own parsing and answering is timed apart, in one tight loop (a little
    cheaper than spread through the matches), and taken off. A match that does not end by the rules stops the
    bench: its figure would be of matches cut short."""
    game = load_game("major-general")
    streams: list[MemoryStream] = []
    decisions = 0
    before = time.thread_time()
    for seed in range(matches):
        pair = [MemoryStream(), MemoryStream()]
        seats = [BotSession(stream, name="trivial", version="1", games=("*",), omit_labels=True) for stream in pair]
        record = await referee_match(game, seats, 20_000 + seed, clock=ClockSettings(), public_view=True)
        result = record.result
        if result is None or result.offender is not None or result.voided:
            raise SystemExit(f"an in-memory match did not end by the rules: {result}")
        decisions += len(record.decisions)
        streams += pair
    cpu = time.thread_time() - before
    before = time.thread_time()
    for stream in streams:
        for request in stream.answered:
            first_legal_answer(request)
    return (cpu - (time.thread_time() - before)) / decisions


def tree_cpu_s(root: int) -> float:
    """User plus system CPU seconds a process and its descendants have used so far (Linux /proc):
    a sandboxed bot is the grandchild of the process the referee launched."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stats[int(entry.name)] = entry.joinpath("stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, fields in stats.items():
            if pid not in tree and int(fields[1]) in tree:
                tree.add(pid)
                grew = True
    ticks = sum(int(stats[pid][11]) + int(stats[pid][12]) for pid in tree if pid in stats)
    return ticks / os.sysconf("SC_CLK_TCK")


class Throughput(NamedTuple):
    """The throughput run's figures: decisions per second and in all; CPU seconds per decision of the referee
    (all its threads), of its event loop's thread alone (the rest is its other threads: gRPC's own, and the bots'
    memory watch where one runs) and of every bot process together; the number of bot processes; the matches that
    ended in a fault (a crashed bot is relaunched: its figures are not the referee's steady cost)."""

    rate: float
    decisions: int
    referee_cpu: float
    loop_thread_cpu: float
    bots_cpu: float
    processes: int
    faulted: int


async def throughput(server: RefereeServer, lanes: int, matches_per_lane: int) -> Throughput:
    """`lanes` matches at once, each lane playing matches back to back."""
    faulted = 0

    async def lane(first_seed: int, matches: int) -> int:
        nonlocal faulted
        decisions = 0
        for index in range(matches):
            record = await server.run_match("major-general", ["trivial", "trivial"], seed=first_seed + index)
            decisions += len(record.decisions)
            faulted += record.result is not None and record.result.offender is not None
        return decisions

    await asyncio.gather(*(lane(1000 + 100 * n, 1) for n in range(lanes)))  # launch and warm every bot
    faulted = 0
    bots = server.pool.local_pids()
    # the bots' CPU is read before the referee's clock starts: reading every process's /proc entry (milliseconds on a
    # busy machine) is the bench's own CPU, not the referee's
    bots_before = sum(tree_cpu_s(pid) for pid in bots)
    referee_before, loop_before = time.process_time(), time.thread_time()
    started = time.perf_counter()
    counts = await asyncio.gather(*(lane(5000 + 100 * n, matches_per_lane) for n in range(lanes)))
    elapsed = time.perf_counter() - started
    referee_cpu, loop_cpu = time.process_time() - referee_before, time.thread_time() - loop_before
    bots_cpu = sum(tree_cpu_s(pid) for pid in bots) - bots_before
    decisions = sum(counts)
    return Throughput(decisions / elapsed, decisions, referee_cpu / decisions, loop_cpu / decisions,
                      bots_cpu / decisions, len(bots), faulted)


def referee_server(sandbox: str) -> RefereeServer:
    """A referee with no network port, its bots from arena/bots/ run as `sandbox` says."""
    return RefereeServer(ServerConfig(port=None, bot_dirs=[BUILTIN_BOTS], results_dir=None,
                                      sandbox=SandboxSettings(mode=sandbox)))


async def launch_time(sandbox: str) -> float:
    """Seconds from launching a bot process to holding its first stream (it said Hello), on a fresh referee."""
    server = referee_server(sandbox)
    await server.start()
    try:
        started = time.perf_counter()
        await server.pool.acquire("trivial", "major-general", "major-general")
        return time.perf_counter() - started
    finally:
        await server.stop(drain_s=0.0)


def compared_modes(sandbox: str) -> tuple[str, ...]:
    """The sandbox modes measured: both with bwrap (the sandbox's cost beside none), only none with none (where
    bubblewrap may not start at all)."""
    return SANDBOX_MODES if sandbox == "bwrap" else (sandbox,)


def p50_of(times: dict[str, list[float]], mode: str, scale: float) -> float | None:
    """The median of a mode's times, scaled (None for a mode not measured)."""
    return percentile(times[mode], 0.5) * scale if times.get(mode) else None


def sandbox_figures(launches: dict[str, list[float]], trips: dict[str, list[float]]) -> dict[str, float | None]:
    """The sandbox's cost, both ways (None where only one mode was measured)."""
    launch_bwrap, launch_none = p50_of(launches, "bwrap", 1000.0), p50_of(launches, "none", 1000.0)
    trip_bwrap, trip_none = p50_of(trips, "bwrap", 1e6), p50_of(trips, "none", 1e6)
    figures: dict[str, float | None] = {
        "launch_ms_p50_bwrap": None, "launch_ms_p50_none": None, "launch_extra_ms_sandbox": None,
        "round_trip_p50_us_bwrap": None, "round_trip_p50_us_none": None, "round_trip_ratio_sandbox": None}
    if launch_none is not None and trip_none is not None:
        figures.update(launch_ms_p50_none=round(launch_none, 1), round_trip_p50_us_none=round(trip_none, 1))
        if launch_bwrap is not None and trip_bwrap is not None:
            figures.update(launch_ms_p50_bwrap=round(launch_bwrap, 1),
                           launch_extra_ms_sandbox=round(launch_bwrap - launch_none, 1),
                           round_trip_p50_us_bwrap=round(trip_bwrap, 1),
                           round_trip_ratio_sandbox=round(trip_bwrap / trip_none, 3))
    return figures


async def measure(decisions: int, matches_per_lane: int, sandbox: str, launch_count: int = LAUNCHES) -> dict:
    modes = compared_modes(sandbox)
    launches: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(launch_count):  # alternate the modes, so both see the same load
        for mode in modes:
            launches[mode].append(await launch_time(mode))
    raw = RawPingPong(LANES)
    await raw.start()
    codec = RawPingPong(1, codec=True)
    await codec.start()
    asks = codec_asks(200)
    servers = {mode: referee_server(mode) for mode in modes}
    raw_times: list[float] = []
    codec_times: list[float] = []
    build_times: list[float] = []
    by_mode: dict[str, list[float]] = {mode: [] for mode in modes}
    cycle_times: list[float] = []
    try:
        for server in servers.values():
            await server.start()
            await server.run_match("major-general", ["trivial", "trivial"], seed=999)  # launch and warm the bots
        await raw.round_trips(200)
        await codec.codec_round_trips(asks)  # (warm)
        per_batch = max(1, decisions // BATCHES)
        for batch in range(BATCHES):  # alternate, so all see the same load on a shared machine
            raw_times += await raw.round_trips(per_batch)
            trips, builds = await codec.codec_round_trips([asks[n % len(asks)] for n in range(per_batch)])
            codec_times += trips
            build_times += builds
            for mode, server in servers.items():
                round_trips, cycles = await referee_decisions(server, per_batch, 10_000 * (batch + 1))
                by_mode[mode] += round_trips
                if mode == sandbox:
                    cycle_times += cycles
        raw_server_cpu, raw_client_cpu = await raw.cpu_per_round_trip(max(2000, decisions))
        run = await throughput(servers[sandbox], LANES, matches_per_lane)
        seat_decisions = max(1, round(run.decisions / (LANES * matches_per_lane * 2)))  # a stream's, in a match
        raw_server_cpu_at_once, raw_loop_cpu_at_once = await raw.cpu_at_once(max(2000, decisions), seat_decisions)
        in_memory_cpu = await in_memory_cpu_per_decision(LANES * matches_per_lane)
        await raw.stop()
        await codec.stop()
    finally:
        for server in servers.values():
            await server.stop()
    referee_times = by_mode[sandbox]
    raw_p50, referee_p50 = percentile(raw_times, 0.5), percentile(referee_times, 0.5)
    codec_p50 = percentile(codec_times, 0.5)
    referee_cpu, bots_cpu = run.referee_cpu, run.bots_cpu
    cpu_per_decision = referee_cpu + bots_cpu
    return {
        "sandbox": sandbox,
        **sandbox_figures(launches, by_mode),
        "raw_p50_us": round(raw_p50 * 1e6, 1),
        "raw_p99_us": round(percentile(raw_times, 0.99) * 1e6, 1),
        "referee_p50_us": round(referee_p50 * 1e6, 1),
        "referee_p99_us": round(percentile(referee_times, 0.99) * 1e6, 1),
        "ratio_p50": round(referee_p50 / raw_p50, 3),
        # the protocol's own floor: raw gRPC carrying the real messages, parsed as the referee and the SDK do (no
        # referee, no match); referee over it is the referee's own share. Building a request (the observation
        # encoded) is the referee's time before the bot's clock starts: beside, not in, either round trip
        "codec_p50_us": round(codec_p50 * 1e6, 1),
        "request_build_p50_us": round(percentile(build_times, 0.5) * 1e6, 1),
        "codec_ratio_p50": round(codec_p50 / raw_p50, 3),
        "referee_over_codec_p50": round(referee_p50 / codec_p50, 3),
        "referee_cycle_p50_us": round(percentile(cycle_times, 0.5) * 1e6, 1),
        "referee_cycle_mean_us": round(statistics.fmean(cycle_times) * 1e6, 1),
        "decisions_per_s_8_matches": round(run.rate, 1),
        "decisions_8_matches": run.decisions,
        "cpu_us_per_decision_8_matches": round(cpu_per_decision * 1e6, 1),
        "referee_cpu_us_per_decision_8_matches": round(referee_cpu * 1e6, 1),
        # where the referee's CPU goes: its event loop's thread (the referee's Python, and gRPC's calls made from
        # it), its other threads (gRPC's own, and the bots' memory watch where one runs), and the match loop and its
        # sessions with the transport taken out
        "referee_event_loop_thread_cpu_us_per_decision_8_matches": round(run.loop_thread_cpu * 1e6, 1),
        "referee_other_threads_cpu_us_per_decision_8_matches": round((referee_cpu - run.loop_thread_cpu) * 1e6, 1),
        "referee_in_memory_cpu_us_per_decision": round(in_memory_cpu * 1e6, 1),
        "bots_cpu_us_per_decision_8_matches": round(bots_cpu * 1e6, 1),
        "bot_processes_8_matches": run.processes,
        "faulted_matches_8_matches": run.faulted,
        # the anchor, in the same run: CPU of one raw grpc.aio message round trip on each side
        "raw_server_cpu_us_per_round_trip": round(raw_server_cpu * 1e6, 1),
        "raw_client_cpu_us_per_round_trip": round(raw_client_cpu * 1e6, 1),
        "referee_cpu_ratio_to_raw": round(referee_cpu / raw_server_cpu, 3),
        # the like-for-like anchor: as many streams busy at once as the throughput run's matches, each stream
        # replaced after as many round trips as a seat's decisions in a match (a bot's stream lasts a match)
        "raw_server_cpu_us_per_round_trip_8_streams": round(raw_server_cpu_at_once * 1e6, 1),
        "raw_server_event_loop_thread_cpu_us_per_round_trip_8_streams": round(raw_loop_cpu_at_once * 1e6, 1),
        "raw_server_other_threads_cpu_us_per_round_trip_8_streams": round(
            (raw_server_cpu_at_once - raw_loop_cpu_at_once) * 1e6, 1),
        "referee_cpu_ratio_to_raw_8_streams": round(referee_cpu / raw_server_cpu_at_once, 3),
        "bots_cpu_ratio_to_raw": round(bots_cpu / raw_client_cpu, 3),
        "cpu_bound_decisions_per_s": round((os.cpu_count() or 1) / cpu_per_decision, 1),
        "round_trips_measured": len(referee_times),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--decisions", type=int, default=3000, help="round trips measured for each p50")
    parser.add_argument("--matches-per-lane", type=int, default=12, help="matches per lane in the 8-match run")
    parser.add_argument("--sandbox", choices=SANDBOX_MODES, default="bwrap",
                        help="how the bots of the round-trip and throughput runs are launched (bwrap: also "
                             "measured without, for the sandbox's cost; none: bwrap is never started)")
    parser.add_argument("--launches", type=int, default=LAUNCHES, help=f"launches timed per mode (default {LAUNCHES})")
    parser.add_argument("--raw-client", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--raw-streams", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--codec", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.raw_client:
        asyncio.run(codec_client(arguments.raw_client) if arguments.codec
                    else raw_client(arguments.raw_client, arguments.raw_streams))
        return 0
    figures = asyncio.run(measure(arguments.decisions, arguments.matches_per_lane, arguments.sandbox,
                                  arguments.launches))
    if arguments.json:
        print(json.dumps(figures))
        return 0
    print(f"$ bench/referee.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"{figures['cpus']} CPUs")
    print(f"raw grpc.aio ping-pong      p50 {figures['raw_p50_us']:8.1f} us   p99 {figures['raw_p99_us']:8.1f} us")
    print(f"referee decision round trip p50 {figures['referee_p50_us']:8.1f} us   p99 {figures['referee_p99_us']:8.1f} us")
    print(f"ratio referee/raw p50       {figures['ratio_p50']:.2f}   (target <= 1.5)")
    print(f"the protocol's messages     p50 {figures['codec_p50_us']:8.1f} us   "
          f"({figures['codec_ratio_p50']:.2f}x raw: a real DecisionRequest and its Decision, parsed as the referee "
          f"and the SDK do, over raw gRPC); referee over it {figures['referee_over_codec_p50']:.2f}")
    print(f"building a request          p50 {figures['request_build_p50_us']:8.1f} us   (the observation encoded: the "
          "referee's time, before the bot's clock starts)")
    print(f"decision to decision        p50 {figures['referee_cycle_p50_us']:8.1f} us   (rules engine and chance "
          "included)")
    print(f"8 concurrent matches        {figures['decisions_per_s_8_matches']:.0f} decisions/s "
          f"({figures['decisions_8_matches']} decisions; target >= 3000 on 2 cores)")
    print(f"  CPU per decision           {figures['cpu_us_per_decision_8_matches']:.0f} us (referee and bots together): "
          f"{figures['cpu_bound_decisions_per_s']:.0f} decisions/s if this machine's {figures['cpus']} cores were ours alone")
    print(f"    referee {figures['referee_cpu_us_per_decision_8_matches']:.0f} us, "
          f"bots {figures['bots_cpu_us_per_decision_8_matches']:.0f} us "
          f"({figures['bot_processes_8_matches']} bot process(es) for 8 matches; "
          f"{figures['faulted_matches_8_matches']} match(es) ended in a fault)")
    print(f"    raw grpc.aio CPU per round trip (the anchor): server {figures['raw_server_cpu_us_per_round_trip']:.0f} us "
          f"(referee {figures['referee_cpu_ratio_to_raw']:.2f}x), client {figures['raw_client_cpu_us_per_round_trip']:.0f}"
          f" us (bot SDK {figures['bots_cpu_ratio_to_raw']:.2f}x), one stream at a time")
    print(f"      like for like, {LANES} streams busy at once, each replaced after a seat's decisions in a match: "
          f"server {figures['raw_server_cpu_us_per_round_trip_8_streams']:.0f} us "
          f"(referee {figures['referee_cpu_ratio_to_raw_8_streams']:.2f}x)")
    print(f"    by thread: referee event loop "
          f"{figures['referee_event_loop_thread_cpu_us_per_decision_8_matches']:.0f} us + other threads (gRPC's) {figures['referee_other_threads_cpu_us_per_decision_8_matches']:.0f} us; "
          f"raw server {figures['raw_server_event_loop_thread_cpu_us_per_round_trip_8_streams']:.0f} + "
          f"{figures['raw_server_other_threads_cpu_us_per_round_trip_8_streams']:.0f} us")
    print(f"    the match loop and its sessions without the transport (messages built and parsed, in memory): "
          f"{figures['referee_in_memory_cpu_us_per_decision']:.0f} us a decision")
    if figures["launch_extra_ms_sandbox"] is None:
        print(f"sandbox cost: not measured (--sandbox {figures['sandbox']}: bwrap was not started); launch to Hello "
              f"p50 {figures['launch_ms_p50_none']:.1f} ms")
    else:
        print(f"sandbox cost (bots of the runs above: {figures['sandbox']})")
        print(f"  launch to Hello p50        bwrap {figures['launch_ms_p50_bwrap']:.1f} ms, none "
              f"{figures['launch_ms_p50_none']:.1f} ms: {figures['launch_extra_ms_sandbox']:+.1f} ms (target <= +100)")
        print(f"  decision round trip p50    bwrap {figures['round_trip_p50_us_bwrap']:.1f} us, none "
              f"{figures['round_trip_p50_us_none']:.1f} us: ratio {figures['round_trip_ratio_sandbox']:.3f} "
              "(target <= 1.1)")
    print(f"load average (1 min) at the end: {figures['load_average_1min']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
