"""The probe: a bot that tries every escape a hostile bot would, then plays, or confesses.

Before its first match it tries to
  environment      find secrets in its environment (admin token, seed salt, a token, database URLs)
  sibling-folder   read another bot's folder (../random, or any bot.toml it can find)
  write-outside    write anywhere but its scratch folder (its own folder, a sibling, /, results)
  results          read the results folder or a database file
  tcp              open a TCP connection (PostgreSQL at 127.0.0.1:5432, Redis, the referee's port, the net)
  other-tokens     read another process's launch token (/proc/*/environ and cmdline, token files)
  host-root        find itself mapped to the host's root (/proc/self/uid_map)
  kernel-settings  open a kernel setting for writing (/proc/sys/kernel/core_pattern; closed unwritten)
  user-namespace   make a user namespace of its own (in a child process)
  system-calls     make calls a bot has no use for (keyctl, bpf, ptrace, perf_event_open, mount)
  host-paths       see a host path in its mounts (/proc/self/mountinfo) that it was not given
and, once seated (it needs the match id),
  admin-service    call RefereeAdmin.ListMatches on every referee address it knows
  watch-match      watch its own match for hidden information (the seed, a card the other seat drew)

Each attempt prints one line to standard error: "probe: NAME: blocked: ..." or "probe: NAME:
ESCAPED: ...". If every attempt was blocked it plays uniformly random legal actions, so the match
ends by the rules; if one escaped it answers an illegal action, so the match records the fault and
this output as evidence. Where to look can be hinted through its environment (PROBE_TARGETS: paths
separated by ':'; PROBE_REFEREE: host:port), as a test knows them; without hints it searches.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import platform
import queue
import random
import re
import socket
import sys
from pathlib import Path
from typing import Iterator

import grpc

from arena.rpc.generated import admin_pb2, admin_pb2_grpc, bot_pb2, bot_pb2_grpc

TOKEN = re.compile(rb"\b[0-9a-f]{48}\b")
SECRET_WORDS = ("ADMIN_TOKEN", "SEED_SALT", "PASSWORD", "SECRET", "DATABASE", "ARENA_DB", "ARENA_TOKEN=", "PGPASS")
SKIP_WALK = ("/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc")
escaped: list[str] = []
lines: list[str] = []


def report(name: str, escaped_with: str | None, blocked_because: str = "") -> None:
    if escaped_with:
        escaped.append(name)
        lines.append(f"probe: {name}: ESCAPED: {escaped_with}")
    else:
        lines.append(f"probe: {name}: blocked: {blocked_because}")
    print(lines[-1], file=sys.stderr, flush=True)


def hints() -> list[Path]:
    return [Path(p) for p in os.environ.get("PROBE_TARGETS", "").split(":") if p]


def runtime_roots() -> list[str]:
    return [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(grpc.__file__))}]


def walk(limit: int = 20_000) -> Iterator[Path]:
    """Every file it can list outside the system and runtime folders (at most `limit`)."""
    skip = set(SKIP_WALK) | set(runtime_roots())
    seen = 0
    for top, folders, files in os.walk("/", onerror=lambda error: None):
        folders[:] = [f for f in folders if os.path.join(top, f) not in skip and not f.startswith(".")]
        for name in files:
            seen += 1
            if seen > limit:
                return
            yield Path(top, name)


def own_folder() -> Path:
    return Path.cwd().resolve()


def try_environment() -> None:
    found = [f"{key}=..." for key, value in os.environ.items()
             if key != "ARENA_TOKEN_FILE" and (any(word in f"{key}=" for word in SECRET_WORDS)
                                               or TOKEN.search(value.encode()))]
    report("environment", ", ".join(found) if found else None,
           f"{len(os.environ)} variables, none a secret: {', '.join(sorted(os.environ))}")


def try_sibling_folder() -> None:
    """The likely places first; the search of every folder it can list only if none of them gives one away (a walk
    of a whole machine's disk can take a minute where it is busy, longer than a referee waits for a bot)."""
    mine = (own_folder() / "bot.toml").read_bytes()
    likely = [own_folder().parent / "random" / "bot.toml"] + [h / "random" / "bot.toml" for h in hints()]
    tried = 0
    for path in itertools.chain(likely, (path for path in walk() if path.name == "bot.toml")):
        tried += 1
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if data != mine:
            report("sibling-folder", f"read {path}")
            return
    report("sibling-folder", None, f"no other bot.toml readable ({tried} places tried)")


def in_scratch(place: Path) -> bool:
    """True for its scratch folder and what lies in it (a sandbox's /tmp is a file system of its own)."""
    scratch = Path(os.environ.get("TMPDIR", "/tmp"))
    try:
        if place.resolve().is_relative_to(scratch.resolve()):
            return True
        return os.path.ismount(scratch) and place.stat().st_dev == scratch.stat().st_dev
    except OSError:
        return False


def try_write_outside() -> None:
    places = [own_folder(), own_folder().parent / "random", Path("/"), Path("/etc"), Path("/usr"),
              Path(sys.prefix), *hints()]
    for place in places:
        if in_scratch(place):
            continue
        target = place / f"probe-was-here-{os.getpid()}"
        try:
            target.write_text("probe")
        except OSError:
            continue
        target.unlink(missing_ok=True)
        report("write-outside", f"wrote {target}")
        return
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "probe-scratch"
    scratch.write_text("scratch is fine")
    report("write-outside", None, f"{len(places)} places read-only or absent; scratch {scratch.parent} writable")


def is_stored_result(path: Path) -> bool:
    return (path.suffix in (".db", ".sqlite", ".jsonl") or path.name.endswith(".jsonl.gz")
            or path.name == "admin-token")


def try_results() -> None:
    for hint in hints():
        try:
            if hint.is_file() and is_stored_result(hint):
                hint.read_bytes()
                report("results", f"read {hint}")
                return
            if hint.is_dir():
                found = [p for p in hint.rglob("*") if p.is_file() and is_stored_result(p)]
                if found:
                    report("results", f"found {found[0]} under {hint}")
                    return
        except OSError:
            continue
    for path in walk():
        if is_stored_result(path):
            try:
                path.read_bytes()[:16]
            except OSError:
                continue
            report("results", f"read {path}")
            return
    report("results", None, "no results folder, record or database visible")


def try_tcp() -> None:
    targets = [("127.0.0.1", 5432), ("127.0.0.1", 6379), ("1.1.1.1", 53), ("10.0.2.2", 80)]
    referee = os.environ.get("PROBE_REFEREE")
    if referee:
        host, _, port = referee.rpartition(":")
        targets.append((host, int(port)))
    failures = []
    for host, port in targets:
        try:
            with socket.create_connection((host, port), timeout=1.0):
                report("tcp", f"connected to {host}:{port}")
                return
        except OSError as error:
            failures.append(f"{host}:{port} {error.strerror or error}")
    report("tcp", None, "; ".join(failures))


def try_other_tokens(own_token: str) -> None:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for part in ("environ", "cmdline"):
            try:
                data = (entry / part).read_bytes()
            except OSError:
                continue
            found += [t.decode() for t in TOKEN.findall(data) if t.decode() != own_token]
    for path in [*Path("/tmp").glob("arena-referee-*/bots/*/token"), *Path("/run/arena").glob("*"),
                 *(h for hint in hints() for h in hint.glob("bots/*/token") if hint.is_dir())]:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if TOKEN.fullmatch(text.encode()) and text != own_token:
            found.append(text)
    visible = sum(1 for entry in Path("/proc").iterdir() if entry.name.isdigit())
    report("other-tokens", f"{len(found)} token(s) of others" if found else None,
           f"{visible} process(es) visible, no token but its own")


def try_host_root() -> None:
    with open("/proc/self/uid_map") as handle:
        mapping = [[int(part) for part in line.split()] for line in handle if line.strip()]
    root = [line for line in mapping if line[1] <= 0 < line[1] + line[2]]
    report("host-root", f"mapped to the host's root: {root}" if root else None,
           f"uid {os.getuid()}, mapped to host uid {', '.join(str(line[1]) for line in mapping)}")


def try_kernel_settings() -> None:
    try:
        descriptor = os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY)
    except OSError as error:
        report("kernel-settings", None, f"core_pattern: {error.strerror}")
        return
    os.close(descriptor)  # never written
    report("kernel-settings", "opened /proc/sys/kernel/core_pattern for writing")


LIBC = ctypes.CDLL(None, use_errno=True)


def in_a_child(call: "object") -> int:
    """Run `call` (returning 0 or an errno) in a child process: its exit status."""
    pid = os.fork()
    if pid == 0:
        os._exit(min(call(), 255))  # type: ignore[operator]
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def try_user_namespace() -> None:
    def unshare() -> int:
        return 0 if LIBC.unshare(0x10000000) == 0 else ctypes.get_errno()

    code = in_a_child(unshare)
    report("user-namespace", "made a user namespace" if code == 0 else None, f"unshare: errno {code}")


SYSCALLS = {"x86_64": {"keyctl": 250, "bpf": 321, "ptrace": 101, "perf_event_open": 298, "mount": 165},
            "aarch64": {"keyctl": 219, "bpf": 280, "ptrace": 117, "perf_event_open": 241, "mount": 40}}


def try_system_calls() -> None:
    answered = []
    for name, number in SYSCALLS.get(platform.machine(), {}).items():
        def call(number: int = number) -> int:
            return 0 if LIBC.syscall(number, 0, 0, 0, 0, 0) >= 0 else ctypes.get_errno()

        code = in_a_child(call)
        if code != 1:  # EPERM: the filter's answer
            answered.append(f"{name} (errno {code})")
    report("system-calls", f"answered: {', '.join(answered)}" if answered else None, "every one refused (EPERM)")


def try_host_paths() -> None:
    secrets = [str(hint) for hint in hints()]
    shown = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            root, point = line.split()[3:5]
            if root != point:  # a folder bound at its own path shows nothing the bot does not see anyway
                shown += [root for secret in secrets if secret != "/" and root.startswith(secret)]
    report("host-paths", f"its mounts show {shown[0]}" if shown else None, "no hinted host path in its mounts")


def referee_addresses() -> list[str]:
    addresses = [os.environ["ARENA_SERVER"]]
    if os.environ.get("PROBE_REFEREE"):
        addresses.append(os.environ["PROBE_REFEREE"])
    return addresses


def try_admin_service() -> None:
    failures = []
    for address in referee_addresses():
        with grpc.insecure_channel(address) as channel:
            try:
                reply = admin_pb2_grpc.RefereeAdminStub(channel).ListMatches(admin_pb2.ListMatchesRequest(), timeout=3)
            except grpc.RpcError as error:
                failures.append(f"{address}: {error.code().name}")  # type: ignore[attr-defined]
                continue
            report("admin-service", f"listed {len(reply.matches)} match(es) on {address}")
            return
    report("admin-service", None, "; ".join(failures))


def try_watch_match(match_id: str, seat: int) -> None:
    failures = []
    drawn_by_other = re.compile(r"^(\w+) draws (?!a card)")
    for address in referee_addresses():
        with grpc.insecure_channel(address) as channel:
            stub = admin_pb2_grpc.RefereeAdminStub(channel)
            for method in ("WatchMatchFull", "WatchMatch"):
                try:
                    for event in getattr(stub, method)(admin_pb2.WatchMatchRequest(match_id=match_id), timeout=2):
                        if event.HasField("header") and event.header.seed:
                            report("watch-match", f"{method} on {address} gave the seed")
                            return
                        if event.HasField("step") and event.step.seat < 0 and drawn_by_other.match(event.step.label):
                            report("watch-match", f"{method} on {address} showed {event.step.label!r}")
                            return
                    failures.append(f"{address} {method}: public view only")
                except grpc.RpcError as error:
                    code = error.code()  # type: ignore[attr-defined]
                    failures.append(f"{address} {method}: "
                                    f"{'public view only' if code == grpc.StatusCode.DEADLINE_EXCEEDED else code.name}")
    report("watch-match", None, "; ".join(failures))


def main() -> None:
    token = Path(os.environ["ARENA_TOKEN_FILE"]).read_text().strip()
    name = os.environ["ARENA_BOT_NAME"]
    for attempt in (try_environment, try_sibling_folder, try_write_outside, try_results, try_tcp, try_host_root,
                    try_kernel_settings, try_user_namespace, try_system_calls, try_host_paths):
        attempt()
    try_other_tokens(token)
    channel = grpc.insecure_channel(os.environ["ARENA_SERVER"])
    stub = bot_pb2_grpc.BotStub(channel)
    probed_match = False
    while True:  # one stream per match
        outbox: queue.SimpleQueue = queue.SimpleQueue()
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, version="1", token=token,
                                                          games=["*"])))

        def outgoing():  # type: ignore[no-untyped-def]
            while (item := outbox.get()) is not None:
                yield item

        rng, match_id = random.Random(0), ""
        try:
            for message in stub.Play(outgoing()):
                kind = message.WhichOneof("kind")
                if kind == "match_start":
                    match_id = message.match_start.match_id
                    rng = random.Random(message.match_start.agent_seed)
                elif kind == "decision_request":
                    request = message.decision_request
                    if not probed_match:
                        probed_match = True
                        try_admin_service()
                        try_watch_match(match_id, request.seat)
                        verdict = f"probe: verdict: {'ESCAPED ' + ', '.join(escaped) if escaped else 'all blocked'}"
                        print("\n".join([*lines, verdict]), file=sys.stderr, flush=True)  # all of it, in the match
                    action = -1 if escaped else rng.choice(list(request.legal_actions))
                    outbox.put(bot_pb2.BotMessage(decision=bot_pb2.Decision(sequence=request.sequence,
                                                                            action=action)))
        except grpc.RpcError:
            return
        finally:
            outbox.put(None)
        if not match_id:
            return


if __name__ == "__main__":
    main()
