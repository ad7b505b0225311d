"""The referee's network edge: the only package that imports grpc.

generated/     Python code generated from protos/arena/v1 (git-ignored; built at install time)
protogen       the generator (setup.py's build step; on import when protos changed in a checkout)
convert        pure converters between Arena values and messages
observations   each family's observation codec (declared by the family), or the generic JSON one
config         ServerConfig: what a referee server can be set to
server         the referee server: its listeners (bot socket, network port), secrets, lifecycle
bot_service    arena.v1.Bot: Hello, admission, limits on streams that never say Hello
matches        match requests, seats, the match loop, records saved
admin          arena.v1.RefereeAdmin: start, watch (public or full), fetch
session        one bot stream as a seat of the match loop (arena.referee.authority)
pool           known bots, their streams and warm processes; tokens
manifest       bots/<name>/bot.toml
launcher       local bot processes and the tail of their output
background     the server on its own thread, for synchronous callers
client         a client of a running server's admin service
sdk            run_bot(agent): turn an in-process agent into a bot program (arena.sdk for bots)

`from arena.rpc import run_bot` was the SDK's import before `arena.sdk`; it still works, with a
DeprecationWarning (docs/writing-a-bot.md, "The SDK's public API", lists what bots may import).
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["run_bot"]


def __getattr__(name: str) -> Any:  # lazy: importing arena.rpc loads neither the server nor the SDK
    if name == "run_bot":
        warnings.warn("`from arena.rpc import run_bot` is deprecated: import it from arena.sdk "
                      "(`from arena.sdk import run_bot`)", DeprecationWarning, stacklevel=2)
        from arena.rpc.sdk import run_bot

        return run_bot
    raise AttributeError(f"module 'arena.rpc' has no attribute {name!r}")
