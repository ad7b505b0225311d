"""General Orders: two games, each a package with the same modules, wwii/ and sengoku/ (rules.py: the
game's turn, top-down like its rulebook; board.py, positions.py, knowledge.py and their data files),
and the library they share, plain functions over a position's core that never call back into a game:
core.py (ids, phases, a mode's data, the fields every position has), commanders.py, cards.py,
dice.py, setup.py, chance.py, state_json.py, supply.py, masks.py. Beside them: loader.py (the board
compile's steps), builder.py (set positions), knowledge.py (what the built-in players know of both
games), view.py (what the web viewer draws), family.py (the registered families and modes)."""
