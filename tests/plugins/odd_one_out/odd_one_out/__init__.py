"""Odd One Out, registered as an Arena game family: two modes, no typed observation (bots get the
generic JSON one), and a knowledge module for the built-in agents."""

from arena.games.family import GameFamily, GameMode

from odd_one_out.rules import TITLE, new_game

NAME = "odd-one-out"

FAMILY = GameFamily(
    name=NAME,
    title=TITLE,
    modes=(
        GameMode(NAME, NAME, TITLE, "three players, five rounds, numbers 1 to 3", new_game, {"rounds": 5}),
        GameMode(f"{NAME}/long", NAME, TITLE, "three players, nine rounds", new_game,
                 {"rounds": 9, "name": f"{NAME}/long"}),
    ),
    knowledge="odd_one_out.knowledge",
)
