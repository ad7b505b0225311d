"""Bounds on in-process agents: a limit on each decision and on a seat's thinking over a match.

Arena's own players are bounded by design (each has a budget per decision); these limits are the
watchdog for everything else: a bug, an agent an installed package registers, a search set far too
large. A decision that runs past its allowance (the decision limit, or what is left of the match
limit, whichever is smaller) is interrupted: a watchdog thread raises `DecisionOverrun` inside the
agent's thread, and the seat loses on time, as a bot program would. Time is wall-clock time, so the
defaults are generous; a busy machine must not turn a sound player's decision into a loss.

An agent stuck where Python cannot interrupt it (inside a C extension) is not stopped here: the
executors stop the whole match past its bound (`match_bound_s`) as a last resort.
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
import time
from dataclasses import dataclass
from threading import get_ident
from time import monotonic
from typing import Any, Callable

DEFAULT_DECISION_S = 60.0
DEFAULT_MATCH_S = 1800.0
POLL_S = 0.05  # how often the watchdog looks at the decisions under way
REFIRE_S = 1.0  # an agent that swallows the interruption is interrupted again this often


@dataclass(frozen=True)
class AgentLimits:
    """How long an in-process agent may think: per decision, and in all over one match (wall seconds)."""

    decision_s: float = DEFAULT_DECISION_S
    match_s: float = DEFAULT_MATCH_S

    def __post_init__(self) -> None:
        if not (self.decision_s > 0 and self.match_s > 0):
            raise ValueError(f"agent limits must be above 0 s, got {self.decision_s} and {self.match_s}")

    def describe(self) -> str:
        """'60s per decision, 1800s per match'."""
        return f"{self.decision_s:g}s per decision, {self.match_s:g}s per match"

    def to_json(self) -> dict[str, float]:
        """The limits as a JSON-able dict (for jobs and records)."""
        return {"decision_s": self.decision_s, "match_s": self.match_s}

    @classmethod
    def from_json(cls, data: dict[str, float] | None) -> AgentLimits:
        """The limits `to_json` wrote (the defaults for None)."""
        return cls() if not data else cls(float(data["decision_s"]), float(data["match_s"]))

    def match_bound_s(self, seats: int) -> float:
        """The longest a match of in-process agents can take while the watchdog works: every seat's match
        limit, one decision's overrun, and room for the rules and the record. Past this an executor stops it."""
        thinking = seats * self.match_s + self.decision_s
        return thinking + 5.0 + 0.1 * thinking


DEFAULT_LIMITS = AgentLimits()


class DecisionOverrun(BaseException):
    """Raised inside an agent's thread when its decision ran past its allowance. A BaseException, so that an
    agent's `except Exception` does not swallow it."""


class _Slot:
    """One thread's decision under way: when it is overdue (or due to be interrupted again), and whether the
    watchdog interrupted it."""

    __slots__ = ("thread_id", "deadline", "fired")

    def __init__(self, thread_id: int) -> None:
        self.thread_id = thread_id
        self.deadline: float | None = None  # time.monotonic() at which the decision is overdue
        self.fired = False


_NO_SLOT = _Slot(-1)  # a seat's slot before its first decision: no thread's

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
_set_async_exc.restype = ctypes.c_int


class _Watchdog:
    """The process's watchdog thread: started on first use, it interrupts overdue decisions of any thread.

    A decision ends without taking the lock when it can (it costs every decision of every match): the
    watchdog raises `sweeping` before it reads any deadline and lowers it after its sweep, and marks a
    slot `fired` before it interrupts that thread. A decision that clears its deadline and then sees
    neither flag raised cannot be interrupted any more: a sweep still to come reads the cleared deadline,
    and one that went by already would have left `fired` set. Otherwise it waits for the sweep on the lock.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slots: dict[int, _Slot] = {}
        self.thread: threading.Thread | None = None
        self.sweeping = False

    def slot(self) -> _Slot:
        """The calling thread's slot (made, and the watchdog started, on first use)."""
        ident = threading.get_ident()
        slot = self.slots.get(ident)
        if slot is None:
            with self.lock:
                slot = self.slots[ident] = _Slot(ident)
                if self.thread is None:
                    self.thread = threading.Thread(target=self._watch, name="arena-decision-watchdog", daemon=True)
                    self.thread.start()
        return slot

    def disarm(self, slot: _Slot) -> bool:
        """The decision is over: no interruption comes after this returns. True if the watchdog interrupted it
        (its exception may have been swallowed by the agent, or still be pending: that one is cleared)."""
        slot.deadline = None
        if not self.sweeping and not slot.fired:
            return False
        with self.lock:  # (the sweep is over once this is held; it may have moved the deadline on)
            slot.deadline = None
            fired = slot.fired
            if fired:
                slot.fired = False
                _set_async_exc(slot.thread_id, ctypes.py_object())  # a pending one never reaches the referee
        return fired

    def _watch(self) -> None:
        while True:
            time.sleep(POLL_S)
            with self.lock:
                self.sweeping = True
                self._fire_overdue(time.monotonic())
                if len(self.slots) > 64:  # threads come and go (an executor's): forget the dead ones
                    self._forget_dead_threads()
                self.sweeping = False

    def _fire_overdue(self, now: float) -> None:
        """Raise DecisionOverrun in every thread past its deadline (under the lock)."""
        for slot in list(self.slots.values()):
            deadline = slot.deadline
            if deadline is not None and now >= deadline:
                slot.fired = True
                slot.deadline = now + REFIRE_S  # (again, if the agent swallows it and thinks on)
                _set_async_exc(slot.thread_id, ctypes.py_object(DecisionOverrun))

    def _forget_dead_threads(self) -> None:
        """Drop the idle slots of threads that have ended (under the lock)."""
        alive = {thread.ident for thread in threading.enumerate()}
        for ident in [ident for ident, slot in self.slots.items() if ident not in alive and slot.deadline is None]:
            del self.slots[ident]


_WATCHDOG = _Watchdog()


def _after_fork() -> None:  # the child has no watchdog thread: it starts its own when it first needs one
    global _WATCHDOG
    _WATCHDOG = _Watchdog()


os.register_at_fork(after_in_child=_after_fork)


class AgentOverran(Exception):
    """A decision ran past its allowance; the message says which limit."""


class SeatAllowance:
    """One seat's thinking time over a match under `limits`, and the watchdog on each of its decisions."""

    __slots__ = ("limits", "decision_s", "left_s", "_slot")

    def __init__(self, limits: AgentLimits) -> None:
        self.limits = limits
        self.decision_s = limits.decision_s
        self.left_s = limits.match_s
        self._slot = _NO_SLOT

    def decide(self, act: Callable[[Any], int], request: Any, cap_s: float = math.inf) -> tuple[int, float]:
        """`act(request)` on this thread, interrupted past its allowance (the decision limit, what is left of
        the match limit, and `cap_s` if given: what the seat's clock leaves it): (the action, the seconds it
        took). AgentOverran when it ran past; the agent's own exceptions pass through.

        Every decision of every in-process match comes here: the watchdog's part is a deadline written before and
        cleared after (no lock and no other thread, unless a sweep may have seen it: _Watchdog.disarm)."""
        slot = self._slot
        if slot.thread_id != get_ident():
            slot = self._slot = _WATCHDOG.slot()
        granted = self.decision_s
        if self.left_s < granted:
            granted = self.left_s
        if cap_s < granted:
            granted = cap_s
        started = monotonic()
        slot.deadline = started + granted
        try:
            try:
                action = act(request)
            finally:  # the whole window an interruption can arrive in is inside the outer try
                interrupted = _WATCHDOG.disarm(slot)
        except DecisionOverrun:
            _WATCHDOG.disarm(slot)
            interrupted = True
            action = -1
        elapsed = monotonic() - started
        self.left_s -= elapsed
        if interrupted or elapsed > granted:
            raise AgentOverran(self._reason(granted, elapsed))
        return action, elapsed

    def _reason(self, granted: float, elapsed: float) -> str:
        if granted < self.limits.decision_s and self.left_s <= 0:
            return (f"ran out of its {self.limits.match_s:g}s of thinking for the match ({elapsed:.3f}s on this "
                    f"decision; {self.limits.describe()}: the limits on in-process agents)")
        return f"no decision within {granted:.3f}s ({self.limits.describe()}: the limits on in-process agents)"
