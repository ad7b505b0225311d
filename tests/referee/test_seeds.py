"""The seeds of an analysis' searches (arena.referee.seeds.search_seed): one path, every search of every decision
its own, the same for the same analysis seed."""

from __future__ import annotations

from arena.referee.seeds import Search, search_seed


def test_each_search_of_each_decision_has_its_own_seed() -> None:
    places = [(decision, search) for decision in range(50) for search in Search]
    seeds = {place: search_seed(7, *place) for place in places}
    assert len(set(seeds.values())) == len(seeds)
    assert all(0 <= seed < 2 ** 63 for seed in seeds.values())
    assert seeds == {place: search_seed(7, *place) for place in places}  # the same every time
    assert search_seed(8, 3, Search.CHOOSE) != search_seed(7, 3, Search.CHOOSE)


def test_the_seeds_are_the_ones_analyses_were_made_with() -> None:
    """(Changing them would change every analysis of a record, seed and budget.)"""
    assert search_seed(0, 0, Search.CHOOSE) == 0xA11A
    assert search_seed(2, 5, Search.CHOOSE) == 2 * 1_000_003 + 5 * 7919 + 0xA11A
    assert search_seed(2, 5, Search.CONFIRM) == search_seed(3, 5, Search.CHOOSE)
    assert search_seed(2, 5, Search.STATIC) == search_seed(2, 5, Search.CHOOSE) ^ 0x57A71C
    assert search_seed(2, 5, Search.JUDGE) == (search_seed(2, 5, Search.CHOOSE) * 6364136223846793005
                                               + 1442695040888963407) % 2 ** 63
