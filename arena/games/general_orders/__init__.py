"""General Orders: one family engine (engine.py: the round, the turn, commanders, cards and their
windows, dice, supply, JSON) for its two games, each a package with the same modules: wwii/ and
sengoku/ (rules.py, board.py, positions.py, knowledge.py, and their data files). Shared pieces:
common.py (bit masks, dice, supply, the card multiset), loader.py (reading and checking the data
files), builder.py (set positions), knowledge.py (what the built-in players know of both games),
view.py (what the web viewer draws), family.py (the registered families and modes)."""
