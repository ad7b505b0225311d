"""Odd input is never a server error, on the real PostgreSQL (which refuses NUL in text where SQLite takes it):
every route of the API, with every method, odd paths (NUL, control characters, long, non-ASCII, escaped
slashes), odd query strings, odd bodies (not JSON, JSON with NUL, huge numbers) and odd content types, answer
4xx, never 5xx; and the game registry is loaded before it answers, so the first requests at once all work."""

from __future__ import annotations

import re
import threading
from urllib.parse import quote
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import load_game
from arena.store import Store
from arena.tournament.bots import parse_bots
from arena.tournament.service import PlaySettings, TournamentSpec, run
from arena.web.app import create_app
from arena.web.owners import hash_token
from tests.pg import fresh_schema

TOKEN = "odd-input-owner-token"
ODD = ["\x00", "%00", "a\x00b", "%2e%2e%2f", "..%2F..", "\x7f", "\t", "%0d%0a", "𝟘", "x" * 3000, "'; --",
       "%ff%fe", "%C2%B9", "-1", "99999999999999999999999", "1e309", "NaN"]
BODIES: list[tuple[bytes, str]] = [
    (b"token=abc", "application/x-www-form-urlencoded"),
    (b'{"token": "a\\u0000b", "name": "n\\u0000"}', "application/json"),
    (b'{"name": 1e999}', "application/json"),
    (b"\xff\xfe\x00", "application/json"),
    (b"[" * 5000 + b"]" * 5000, "application/json"),
    (b"hello", "text/plain"),
    (b"--x\r\nContent-Disposition: form-data; name=a\r\n\r\n\x00\r\n--x--\r\n", "multipart/form-data; boundary=x"),
]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with fresh_schema() as url:
        store = Store.open(url)
        run(TournamentSpec(games=(load_game("major-general"),), bots=tuple(parse_bots("random,greedy")),
                           format="round-robin", rounds=1, seed=3, name="odd"), store, PlaySettings(concurrency=1))
        store.owners.add("ann", hash_token(TOKEN))
        with TestClient(create_app(store), raise_server_exceptions=False) as test_client:
            yield test_client
        store.close()


def _paths(test_client: TestClient) -> list[tuple[str, str]]:
    schema = test_client.get("/openapi.json").json()
    return [(method.upper(), path) for path, methods in schema["paths"].items() for method in methods
            if path != "/api/live/{match_id}/events"]


def _filled(path: str, value: str) -> str:
    """The path with `value` in every parameter, its characters escaped as a client sends them (an escape already
    there is kept: %00 reaches the server as a NUL)."""
    return re.sub(r"\{[^}]+\}", lambda _match: quote(value, safe="%"), path)


def test_every_route_with_odd_paths_queries_bodies_and_methods_is_never_a_server_error(client: TestClient) -> None:
    failures = []
    for method, path in _paths(client):
        for value in ODD:
            for verb in {method, "GET", "POST", "DELETE", "PUT"}:
                response = client.request(verb, _filled(path, value))
                if response.status_code >= 500:
                    failures.append((verb, _filled(path, value)[:80], response.status_code, response.text[:120]))
        for body, content_type in BODIES:
            for signed_in in (False, True):  # (an owner's token reaches past the sign-in to the store)
                headers = {"content-type": content_type, **({"authorization": f"Bearer {TOKEN}"} if signed_in else {})}
                response = client.request(method, _filled(path, "1"), content=body, headers=headers)
                if response.status_code >= 500:
                    failures.append((method, path, content_type, response.status_code, response.text[:120]))
        for query in ("page=%00", "per_page=-5", "bot=%00x", "pool=%01", "page=99999999999999999999"):
            response = client.get(f"{_filled(path, '1')}?{query}")
            if response.status_code >= 500:
                failures.append(("GET", path, query, response.status_code, response.text[:120]))
    assert not failures, failures[:10]


@given(value=st.text(min_size=1, max_size=40), query=st.text(max_size=30))
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_any_text_in_any_path_parameter_is_never_a_server_error(client: TestClient, value: str, query: str) -> None:
    for method, path in _paths(client):
        if "{" not in path:
            continue
        response = client.request(method, re.sub(r"\{[^}]+\}", quote(value, safe=""), path) + "?q="
                                  + quote(query, safe=""))
        assert response.status_code < 500, (method, path, value, response.status_code, response.text[:200])


def test_the_first_requests_at_once_all_find_their_game(client: TestClient) -> None:
    """A fresh web server (a fresh registry) answering 16 first replays at once: none says "unknown game"."""
    import arena.games.registry as registry

    _total, [match] = client.app.state.store.matches.page(pool="major-general", limit=1)  # type: ignore[attr-defined]
    saved = dict(registry._FAMILIES), dict(registry._MODES)
    registry._FAMILIES.clear()
    registry._MODES.clear()
    registry._LOADED = False
    answers: list[int] = []
    start = threading.Barrier(16)

    def replay() -> None:
        start.wait()
        answers.append(client.get(f"/api/matches/{match.id}/replay").status_code)

    try:
        threads = [threading.Thread(target=replay) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        registry._FAMILIES.update(saved[0])
        registry._MODES.update(saved[1])
        registry._LOADED = True
    assert answers == [200] * 16, answers

