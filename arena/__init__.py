"""Arena: a referee platform for bot tournaments on strategy board games."""

__version__ = "0.1.0"
