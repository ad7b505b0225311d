"""Typed observations per game family: the codec a family declares (arena.games.family), or the
generic JSON observation for a family that has no message of its own in the protocol.

A codec module defines FIELD (its field of arena.v1.Observation's oneof, whose message is the
family's), fill(message, observation), to_message(observation) and to_dict(message). A family
whose declaration names no codec reaches bots as `Observation.generic`: the observation dict as
JSON text (keys and values exactly the engine's, JSON types).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from arena.games.base import JSON
from arena.games.registry import family, family_of, game_families
from arena.rpc.generated.observations_pb2 import GenericObservation, Observation

GENERIC_FIELD = "generic"


class NoObservationCodec(LookupError):
    """A family's declared codec cannot be loaded, or a message of a family this side does not know."""

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

    @property
    def is_generic(self) -> bool:
        """True for the JSON observation of a family with no message of its own."""
        return self.field == GENERIC_FIELD

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


_encode_json = json.JSONEncoder(separators=(",", ":")).encode


def _fill_generic(message: GenericObservation, observation: JSON) -> None:
    message.json = _encode_json(observation)


def _generic_to_message(observation: JSON) -> GenericObservation:
    return GenericObservation(json=_encode_json(observation))


def _generic_to_dict(message: GenericObservation) -> JSON:
    observation: JSON = json.loads(message.json)
    return observation


def generic_codec(family_name: str) -> ObservationCodec:
    """The codec of a family with no message of its own: the observation dict as JSON text."""
    return ObservationCodec(family_name, GENERIC_FIELD, _fill_generic, _generic_to_message, _generic_to_dict)


_CACHE: dict[str, ObservationCodec] = {}


def families_with_codecs() -> list[str]:
    """Families whose observations have a typed message."""
    return sorted(declared.name for declared in game_families() if declared.codec)


def codec_for_family(name: str) -> ObservationCodec:
    """The codec of a game family: its own, or the generic JSON one."""
    codec = _CACHE.get(name)
    if codec is not None:
        return codec
    module_name = family(name).codec
    if module_name is None:
        codec = generic_codec(name)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise NoObservationCodec(f"game family {name!r} declares the codec {module_name}, which cannot be "
                                     f"imported: {error}") from None
        codec = ObservationCodec(name, module.FIELD, module.fill, module.to_message, module.to_dict)
    _CACHE[name] = codec
    return codec


def codec_for_game(name: str) -> ObservationCodec:
    """The codec for a registered game name (via its family)."""
    return codec_for_family(family_of(name).name)


def decode_any(message: Observation) -> JSON:
    """The observation dict inside an Observation, whatever its family."""
    which = message.WhichOneof("family")
    if which == GENERIC_FIELD:
        return _generic_to_dict(message.generic)
    for declared in game_families():
        codec = codec_for_family(declared.name)
        if codec.field == which:
            return codec.to_dict(getattr(message, which))
    raise NoObservationCodec(f"an observation of unknown family field {which!r}")
