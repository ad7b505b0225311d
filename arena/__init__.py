"""Arena: a referee platform for bot tournaments on strategy board games."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1  # what Hello.protocol_version must say for arena.v1 (here, not in arena.rpc: `arena --version`)
