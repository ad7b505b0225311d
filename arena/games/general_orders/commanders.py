"""Commanders and the round for both General Orders games: deploying one per turn onto an action
space (a second one onto an opponent's Advance space with Counter Attack), the two pass rules,
whose turn is next, the end of a round (commanders recalled, the round marker advanced, the game
scored after the last), and the HQ check at the end of every action.

The pass rule is the board's flag: a final pass (WWII, GO-14: the round ends when both have
passed) or a pass that sends a commander to standby (Sengoku, SJ-14: the round ends when both
reserves are empty, and standby commanders come back with the rest).

Plain functions over a position's `Core`; none calls back into a game: a deployment returns, and
the game starts the action of its space."""

from __future__ import annotations

from arena.games.general_orders.cards import spend
from arena.games.general_orders.core import (DEPLOY_BASE, OVER, REASON_HQ, REASON_TIE, REASON_VP, TURN, Core,
    clear_action)
from arena.games.general_orders.masks import BIT


def begin_turn(core: Core, seat: int) -> None:
    """`seat`'s turn begins at its deploy step; no card effect is used yet this turn."""
    core.active = seat
    core.used = [0, 0]
    core.phase = TURN


def deploy(core: Core, action: int, code: int) -> None:
    """Put the active seat's commander (`code`) on the space of a deploy or Counter Attack id (as
    the second commander there) and make the space's action the one under way; the game starts it."""
    game = core._game
    seat = core.active
    if action >= game.COUNTER_BASE:
        space = action - game.COUNTER_BASE
        core.occ2[space] = code
        spend(core, seat, game.counter_card, effect=True)
    else:
        space = action - DEPLOY_BASE
        core.occ[space] = code
    kind, link = game.space_action[space], game.space_link[space]
    core.act, core.space, core.link = kind, space, link
    core.fx = 0
    # GO-D4, SJ-4: supply (and so every area bonus) is read at the start of the action.
    core.snap = [core.supplied(0), core.supplied(1)]
    if link < 0:
        core.support_used[seat] |= BIT[kind]


def pass_turn(core: Core) -> None:
    """A pass: final for the round (WWII, GO-14), or one commander to standby (Sengoku, SJ-14);
    then the next turn."""
    seat = core.active
    if core._game.board.final_pass:
        core.passed[seat] = True
    else:
        core.cmd_reserve[seat] -= 1
        core.cmd_standby[seat] += 1
    end_turn(core)


def end_turn(core: Core) -> None:
    """The next turn: the opponent's unless it is out of the round; or the end of the round."""
    seat = core.active
    other = 1 - seat
    if core._game.board.final_pass:
        passed = core.passed
        if passed[0] and passed[1]:
            end_round(core)
            return
        begin_turn(core, other if not passed[other] else seat)
    else:
        reserve = core.cmd_reserve
        if not reserve[0] and not reserve[1]:
            end_round(core)
            return
        begin_turn(core, other if reserve[other] else seat)


def end_round(core: Core) -> None:
    """Recall the commanders (to standby those deployed from it; with the standby pass rule,
    standby commanders back to the reserve too), advance the round marker, maybe end the game."""
    final_pass = core._game.board.final_pass
    _recall_commanders(core)
    if not final_pass:
        for seat in (0, 1):
            core.cmd_reserve[seat] += core.cmd_standby[seat]
            core.cmd_standby[seat] = 0
    core.round += 1
    if core.round > core._game.board.rounds:
        core.round = core._game.board.rounds
        _score(core)
        return
    if final_pass:
        core.passed = [False, False]
    core.support_used = [0, 0]
    begin_turn(core, core.initiative)


def _recall_commanders(core: Core) -> None:
    """Take every commander off the action spaces: to standby those deployed from it, the rest to the reserve."""
    for occ in (core.occ, core.occ2):
        for s, code in enumerate(occ):
            if code:
                seat, from_standby = (code - 1) & 1, (code - 1) >> 1
                if from_standby:
                    core.cmd_standby[seat] += 1
                else:
                    core.cmd_reserve[seat] += 1
                occ[s] = 0


def _score(core: Core) -> None:
    """The game ends after the last round: the side with more VP wins, a tie goes to the initiative holder."""
    vp = core.victory_points()
    if vp[0] != vp[1]:
        finish(core, 0 if vp[0] > vp[1] else 1, REASON_VP)
    else:
        finish(core, core.initiative, REASON_TIE)


def finish(core: Core, winner: int, reason: str) -> None:
    """The game is over: `winner` won for `reason`."""
    core.winner = winner
    core.reason = reason
    core.phase = OVER
    clear_action(core)


def hq_lost(core: Core) -> bool:
    """The HQ check after an action (GO-2, GO-5, SJ-5): True, and the game over, when a side has no
    land units left in its HQ (an HQ is a land area, in `ctrl` exactly while it holds land units)."""
    hq = core._game.board.hq
    ctrl = core.ctrl
    for seat in (core.active, 1 - core.active):
        if not ctrl[seat] >> hq[seat] & 1:
            finish(core, 1 - seat, REASON_HQ)
            return True
    return False

