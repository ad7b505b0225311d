"""The referee's network edge: the only package that imports grpc.

generated/     Python code generated from protos/arena/v1 (git-ignored; built at install time)
convert        pure converters between Arena values and messages
observations/  typed observation converters, one module per game family
sdk            run_bot(agent): turn an in-process agent into a bot program
server         the referee server: bot service, admin service, health, reflection
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_bot", "RefereeServer", "ServerConfig", "BackgroundReferee"]


def __getattr__(name: str) -> Any:  # lazy: a bot importing the SDK does not load the server
    if name == "run_bot":
        from arena.rpc.sdk import run_bot

        return run_bot
    if name in ("RefereeServer", "ServerConfig"):
        from arena.rpc import server

        return getattr(server, name)
    if name == "BackgroundReferee":
        from arena.rpc.background import BackgroundReferee

        return BackgroundReferee
    raise AttributeError(f"module 'arena.rpc' has no attribute {name!r}")
