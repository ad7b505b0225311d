"""General Orders: WWII (Alpine and Island modes): rules.py (its turn, calling the family's library),
board.py (its board, cards and terms as data: boards/*.json, cards.json, terms.json), positions.py
(set positions by name), knowledge.py (what its built-in players know)."""
