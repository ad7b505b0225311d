"""General Orders: Sengoku Jidai (Rivers and Fortress modes): rules.py (what Sengoku adds to the
family's turn, in ../engine.py), board.py (its board, cards and terms as data: boards/*.json,
cards.json, terms.json), positions.py (set positions by name), knowledge.py (what its built-in
players know)."""
