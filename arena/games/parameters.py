"""Keyword parameters a user types (a game's `-o key=value`, an agent's `mcts:iterations=200`) checked
against what the callable takes, before it is called: a mistake is one line that names the valid
parameters with their types and defaults (or their choices), never Python's own message."""

from __future__ import annotations

import difflib
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union


class ParameterError(ValueError):
    """A parameter the callable does not take, or a value of the wrong type."""


def parameters_of(func: Callable[..., Any]) -> dict[str, tuple[Any, Any]] | None:
    """name -> (resolved annotation or None, default or inspect.Parameter.empty); None when `func` takes
    any keyword (**kwargs): nothing can be checked here. A factory object with a `takes` attribute is
    described by that callable instead."""
    func = getattr(func, "takes", func)  # a factory object may name what it really calls
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    target = func.func if isinstance(func, functools.partial) else func
    target = target.__init__ if inspect.isclass(target) else target  # type: ignore[misc]
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # (an annotation that does not resolve: no types, names still checked)
        hints = {}
    found = {}
    for name, parameter in signature.parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            found[name] = (hints.get(name), parameter.default)
    return found


def _kinds(annotation: Any) -> tuple[Any, ...]:
    """The plain types an annotation allows (Optional[int] -> (int, NoneType)); () when not plain."""
    if annotation in (int, float, bool, str, type(None)):
        return (annotation,)
    if typing.get_origin(annotation) in (Union, types.UnionType):
        kinds = tuple(kind for arg in typing.get_args(annotation) for kind in _kinds(arg))
        return kinds if len(kinds) == len(typing.get_args(annotation)) else ()
    return ()


_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "text", type(None): "none"}


def _type_words(annotation: Any) -> str:
    kinds = _kinds(annotation)
    return " or ".join(_WORDS[kind] for kind in kinds) if kinds else ""


def _fits(value: Any, annotation: Any) -> bool:
    kinds = _kinds(annotation)
    if not kinds:
        return True
    if value is None:
        return type(None) in kinds
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int):
        return int in kinds or float in kinds
    if isinstance(value, float):
        return float in kinds
    return isinstance(value, str) and str in kinds


def describe(parameters: Mapping[str, tuple[Any, Any]], choices: Mapping[str, Sequence[str]] | None = None) -> str:
    """'iterations (an integer or none, default none), seconds (...)' for a one-line message."""
    parts = []
    for name, (annotation, default) in parameters.items():
        detail = ", ".join(part for part in (_kind_words(name, annotation, choices), _default_words(default)) if part)
        parts.append(f"{name} ({detail})" if detail else name)
    return ", ".join(parts) if parts else "none"


def _kind_words(name: str, annotation: Any, choices: Mapping[str, Sequence[str]] | None) -> str:
    """What parameter `name` takes: 'one of a, b' for one with choices, else its type in words ('' if none)."""
    if choices and name in choices:
        return "one of " + ", ".join(choices[name])
    return _type_words(annotation)


def _default_words(default: Any) -> str:
    """'default 3' ('default none', 'default true'), or '' for a parameter without a default."""
    shown = "none" if default is None else str(default).lower() if isinstance(default, bool) else default
    return "" if default is inspect.Parameter.empty else f"default {shown}"


def check_parameters(what: str, func: Callable[..., Any], given: Mapping[str, Any],
                     choices: Mapping[str, Sequence[str]] | None = None, hidden: Sequence[str] = (),
                     noun: str = "parameter") -> None:
    """Raise ParameterError (one line) when `given` names a parameter `func` does not take, a value of the
    wrong type, or one outside its `choices`; `hidden` parameters are neither offered nor accepted."""
    parameters = parameters_of(func)
    if parameters is None:
        return
    for name in hidden:
        parameters.pop(name, None)
    for name, value in given.items():
        if name not in parameters:
            close = difflib.get_close_matches(name, list(parameters), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"{what} has no {noun} {name!r}{hint}; its {noun}s: {describe(parameters, choices)}")
        annotation, _default = parameters[name]
        if choices and name in choices and value not in choices[name]:
            raise ParameterError(f"{what}: {name} is one of {', '.join(choices[name])} (got {value!r})")
        if not _fits(value, annotation):
            raise ParameterError(f"{what}: {name} takes {_type_words(annotation)} (got {value!r})")
