"""What a referee server can be set to (`arena serve` fills it from the command line and --config)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.rpc.manifest import BotManifest
from arena.sandbox.launch import SandboxSettings


@dataclass(frozen=True)
class SpectatorLimits:
    """How many anonymous watchers a referee admits: in all, per address, per network; of them, those that take
    a message per step (not batched: each costs the referee several times a batched one's sends)."""

    total: int = 64
    per_address: int = 4
    per_network: int = 16
    unbatched: int = 8


@dataclass
class ServerConfig:
    """Everything `arena serve` can set."""

    host: str = "127.0.0.1"
    port: Optional[int] = 0  # 0 = a free port; None = no network listener (local bots on the bot socket only)
    bot_dirs: Sequence[Path] = (Path("bots"),)  # folders of <name>/bot.toml; those missing are skipped
    skip_bad_bots: bool = False  # a bad bot.toml in bot_dirs leaves that bot out (RefereeServer.unavailable)
    bot_check: Optional[Callable[[Path], str]] = None  # with skip_bad_bots: what is wrong with a bot's folder ("": ok)
    builtin_bots: bool = True  # also serve Arena's own bot programs (arena/bots/) under names not taken above
    bot_manifests: Sequence[BotManifest] = ()  # served besides those found in bot_dirs (e.g. under aliases)
    remote_tokens: dict[str, str] = field(default_factory=dict)  # remote bot name -> token
    results_dir: Optional[Path] = Path("results")  # None: keep records in memory only
    clock: ClockSettings = field(default_factory=ClockSettings)
    fault_policy: FaultPolicy = field(default_factory=FaultPolicy)
    agent_limits: AgentLimits = DEFAULT_LIMITS  # an in-process agent seated here: per decision, per match
    startup_timeout_s: float = 30.0  # a launched bot must say Hello within this
    connect_timeout_s: float = 30.0  # a remote bot must have a stream open within this
    hello_timeout_s: float = 10.0  # a new stream must say Hello within this
    max_matches: int = 64  # matches played at once; more wait their turn
    finished_kept: int = 1000  # finished matches the admin service can still show (records stay on disk)
    seed_salt: Optional[str] = None  # keys bots' seeds (authority.seat_seed); None: a secret one made at start
    public_seeds: bool = False  # bots' seeds from the match seed alone (as in local play): trusted bots only
    named_opponents: bool = True  # MatchStart.players names every seat; False: the others are "opponent" (a ladder)
    admin_token: Optional[str] = None  # admin calls need "authorization: Bearer <token>"; None: one is made
    admin_token_file: Optional[Path] = None  # where a made token is written (0600), for admin clients here
    viewer_token: Optional[str] = None  # lists and watches matches without the caps on watchers, nothing else
    spectators: SpectatorLimits = SpectatorLimits()  # anonymous watchers: in all, per address, per network
    watch_delay_s: Optional[float] = None  # admins' full view of a running match lags this far; None: at the end
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    idle_timeout_s: float = 600.0  # a warm bot process idle this long is stopped
    tls_cert: Optional[Path] = None  # PEM certificate chain and key: the network port speaks TLS
    tls_key: Optional[Path] = None
    max_pending_hellos_per_peer: int = 32  # streams one network address may hold open before saying Hello
    max_connections_per_peer: int = 64  # connections one network address (an IPv6 /64) may hold open
    max_connections_per_network: int = 256  # ... one network (an IPv4 /24, an IPv6 /48)
    max_connections: Optional[int] = None  # in all (None: as many as the open-file limit allows)
    reserved_connections: Optional[int] = None  # of those, kept for vouched ones: the admin, bots (None: a tenth)
    idle_connection_s: float = 60.0  # a network connection with no stream open is closed after this
