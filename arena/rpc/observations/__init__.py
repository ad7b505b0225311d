"""Typed observations per game family: a registry of pure converters keyed by family name.

A family joins by adding one message to protos/arena/v1/observations.proto (and a field to
Observation's oneof) and one module here with FAMILY, FIELD, MESSAGE, fill, to_message and
to_dict; then one line in `_CODEC_MODULES`. A game whose family has no codec cannot be played
through the referee: `codec_for_game` says so rather than falling back to JSON.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from arena.games.base import JSON
from arena.games.registry import resolve
from arena.rpc.generated.observations_pb2 import Observation

_CODEC_MODULES = {
    "major-general": "arena.rpc.observations.major_general",
    "general-orders-wwii": "arena.rpc.observations.general_orders_wwii",
    "general-orders-sengoku": "arena.rpc.observations.general_orders_sengoku",
}


class NoObservationCodec(LookupError):
    """The game's family has no typed observation message yet."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class ObservationCodec:
    """How one family's observation dict travels: the Observation field and its converters."""

    family: str
    field: str
    fill: Callable[[Any, JSON], None]
    to_message: Callable[[JSON], Any]
    to_dict: Callable[[Any], JSON]

    def encode(self, observation: JSON, target: Observation | None = None) -> Observation:
        """Write an observation dict into an Observation (a new one unless `target` is given)."""
        message = target if target is not None else Observation()
        self.fill(getattr(message, self.field), observation)
        return message

    def decode(self, message: Observation) -> JSON:
        """The observation dict inside an Observation; raises ValueError for another family."""
        which = message.WhichOneof("family")
        if which != self.field:
            raise ValueError(f"expected a {self.family} observation, got {which or 'none'}")
        return self.to_dict(getattr(message, self.field))


_CACHE: dict[str, ObservationCodec] = {}


def families_with_codecs() -> list[str]:
    """Families whose observations have a typed message."""
    return sorted(_CODEC_MODULES)


def codec_for_family(family: str) -> ObservationCodec:
    """The codec of a game family; raises NoObservationCodec if it has none."""
    codec = _CACHE.get(family)
    if codec is not None:
        return codec
    module_name = _CODEC_MODULES.get(family)
    if module_name is None:
        raise NoObservationCodec(
            f"game family {family!r} has no typed observation message in the protocol yet, so the referee "
            f"cannot serve it to bots (families with one: {', '.join(families_with_codecs())}); "
            "see docs/protocol.md, 'Adding a game family'")
    module = importlib.import_module(module_name)
    codec = ObservationCodec(module.FAMILY, module.FIELD, module.fill, module.to_message, module.to_dict)
    _CACHE[family] = codec
    return codec


def codec_for_game(name: str) -> ObservationCodec:
    """The codec for a registered game name (via its family)."""
    return codec_for_family(resolve(name).family)


def decode_any(message: Observation) -> JSON:
    """The observation dict inside an Observation, whatever its family."""
    which = message.WhichOneof("family")
    for family, codec in ((f, codec_for_family(f)) for f in _CODEC_MODULES):
        if codec.field == which:
            return codec.to_dict(getattr(message, which))
    raise NoObservationCodec(f"an observation of unknown family field {which!r}")
