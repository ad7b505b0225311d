"""Every bench in bench/ that starts a referee, a web server or a ladder runs here at its smallest size (with
--smoke where its smallest size would still take long), so that none rots: a smoke test each, asserting the keys of
its --json output, never its figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.nginx_front import nginx_binary
from tests.bench.run import has_keys, run_bench

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (pre-flights)")


def test_referee_without_the_sandbox() -> None:
    """--sandbox none never starts bubblewrap: the sandbox's own figures are null, every other one is there."""
    figures = run_bench("referee.py", "--decisions", "12", "--matches-per-lane", "1", "--sandbox", "none",
                        "--launches", "1")
    has_keys(figures, "raw_p50_us referee_p50_us ratio_p50 referee_cycle_p50_us decisions_per_s_8_matches "
                      "referee_cpu_us_per_decision_8_matches raw_server_cpu_us_per_round_trip referee_cpu_ratio_to_raw "
                      "launch_ms_p50_none round_trip_p50_us_none raw_server_cpu_us_per_round_trip_8_streams "
                      "referee_cpu_ratio_to_raw_8_streams faulted_matches_8_matches codec_p50_us codec_ratio_p50 "
                      "request_build_p50_us referee_over_codec_p50 referee_in_memory_cpu_us_per_decision "
                      "referee_event_loop_thread_cpu_us_per_decision_8_matches "
                      "referee_other_threads_cpu_us_per_decision_8_matches "
                      "raw_server_event_loop_thread_cpu_us_per_round_trip_8_streams "
                      "raw_server_other_threads_cpu_us_per_round_trip_8_streams")
    assert figures["launch_ms_p50_bwrap"] is None and figures["round_trip_ratio_sandbox"] is None


def test_ladder() -> None:
    figures = run_bench("ladder.py", "--rounds", "1", "--matches", "2", "--sandbox", "none")
    assert [field["field"] for field in figures["fields"]] == ["agents", "programs"]
    has_keys(figures["fields"][0], "rounds matches_per_round match_ms overhead_ms_per_match overhead_per_match_time")


def test_ladder_scale() -> None:
    figures = run_bench("ladder_scale.py", "--bots", "10", "--matches", "100", "--db", "sqlite", "--requests", "2")
    has_keys(figures, "sizes plan_round_s store_round_s leaderboard_ms bot_page_ms rerate_s db_bytes_per_match command")
    assert len(figures["sizes"]) == 3


def test_hello_flood() -> None:
    has_keys(run_bench("hello_flood.py", "--streams", "10", "--rounds", "1", "--smoke"),
             "streams rss_mb_before rounds rss_mb_growth")


def test_hello_storm() -> None:
    figures = run_bench("hello_storm.py", "--hellos", "20")
    has_keys(figures, "wrong_token right_token command")
    has_keys(figures["wrong_token"], "hellos wall_s referee_cpu_s referee_cpu_us_per_hello codes")


def test_archives() -> None:
    figures = run_bench("archives.py", "--smoke")
    has_keys(figures, "shapes goal_met command")
    assert figures["shapes"]["ok"]["accepted"] and not figures["shapes"]["hidden-count"]["accepted"]


@needs_bwrap
def test_uploads() -> None:
    has_keys(run_bench("uploads.py", "--uploads", "0", "--workers", "1"),
             "alone_upload_to_live_s alone_preflight_s alone_status status_p50_ms status_p50_ms_alone live")


def test_web() -> None:
    has_keys(run_bench("web.py", "--bots", "5", "--results", "100", "--requests", "2", "--smoke"),
             "anchor_ms leaderboard_ms bot_page_ms page_shell_ms replay_doc_ms replay_browser_open_ms "
             "replay_1000_decisions_server_ms command")


def test_spectators() -> None:
    figures = run_bench("spectators.py", "--matches", "1", "--watchers", "0,10", "--smoke")
    has_keys(figures, "watchers goal_met command")
    has_keys(figures["watchers"]["10"], "matches decisions added_ms_mean vs_none timeouts admitted refused "
             "referee_cpu_ms_per_decision messages_per_decision cpu_us_per_message")


def test_spectators_without_a_decision_to_compare_with_says_why() -> None:
    """Bots that cannot start leave the run without watchers no decision: a clear error, not a ZeroDivisionError."""
    from bench.spectators import figures

    crashed = {"added": [], "decision": [], "timeout": False, "ending": "crash: bot 'mcts' exited with status 1",
               "cpu_s": 0.1, "admitted": 0, "refused": 0, "other": {}, "messages": 0}
    with pytest.raises(SystemExit, match="without watchers recorded no decisions.*crash: bot 'mcts' exited"):
        figures({0: [crashed], 10: [dict(crashed, admitted=10)]})
    played = dict(crashed, added=[1.0, 3.0], decision=[5.0, 7.0], ending="win: ")
    assert figures({0: [played], 10: [dict(played, added=[2.0, 6.0])]})[10]["vs_none"] == 2.0


WEB_ATTACKS = ["body", "one_client", "slow", "slow_bodies", "streams", "upload_bodies", "uploads"]


def test_web_attack() -> None:
    figures = run_bench("web_attack.py", "--requests", "3", "--slow", "10", "--smoke")
    has_keys(figures, "idle attacks memory_mb proxy through_nginx goal_met failures command")
    has_keys(figures["idle"], "p50_ms p95_ms within_3s errors")
    assert sorted(figures["attacks"]) == WEB_ATTACKS
    for row in figures["attacks"].values():
        has_keys(row, "p50_ms p95_ms within_3s vs_idle errors server_5xx web_cpu_s web_rss_mb_peak attacker")
    has_keys(figures["attacks"]["streams"], "stream_within_3s")
    assert figures["proxy"] is None and figures["through_nginx"] is False


@pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (apt-get install nginx)")
def test_web_attack_through_nginx() -> None:
    """The same attacks through a real nginx configured by docker/nginx.conf, which the bench stops again."""
    figures = run_bench("web_attack.py", "--requests", "3", "--slow", "10", "--smoke", "--through-nginx",
                        "--attacks", "slow_bodies,upload_bodies,one_client")
    has_keys(figures, "idle attacks memory_mb proxy through_nginx goal_met failures command")
    has_keys(figures["proxy"], "memory_mb disk_mb_peak")
    for row in figures["attacks"].values():
        has_keys(row, "within_3s proxy_rss_mb_peak proxy_disk_mb_peak")
    assert figures["through_nginx"] is True and "--through-nginx" in figures["command"]
    assert not nginx_processes(), "the bench left nginx running"


def nginx_processes() -> list[str]:
    """The nginx masters running now (their command lines) that bench/web_attack.py started."""
    found = []
    for status in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = status.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if line.startswith(("nginx", "/usr/sbin/nginx")) and "arena-web-attack-" in line:
            found.append(line)
    return found


def test_web_attack_without_nginx_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """--through-nginx where there is no nginx: skipped with a message, not a failure."""
    monkeypatch.setenv("ARENA_NGINX", "")  # (the bench's own way to be told there is none; installed or not)
    figures = run_bench("web_attack.py", "--smoke", "--through-nginx")
    assert "nginx is not installed" in figures["skipped"]
