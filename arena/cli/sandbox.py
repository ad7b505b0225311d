"""`arena sandbox check`: does the bot sandbox hold on this machine? (arena.sandbox.check)"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from arena.cli.options import JSON_OPTION
from arena.cli.settings import read_operator_config, sandbox_settings
from arena.cli.show import console, fail, mark, print_json
from arena.sandbox.check import Protection, bubblewrap_problem, describe_host, grade, run_probe
from arena.sandbox.launch import SandboxSettings, SandboxUnavailable

_MARK = {True: mark("pass", "green"), False: mark("FAIL", "red")}

app = typer.Typer(rich_markup_mode=None, help="The bot sandbox on this machine.", no_args_is_help=True)


@app.command("check")
def check_command(
    config: Optional[Path] = typer.Option(None, "--config", help="The operator's TOML config ([sandbox] section), "
                                          "as `arena serve --config` reads it."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Run a probe in a real bot sandbox and show each protection, pass or fail, with what to do. Exits 1 if
    any fails (a referee then refuses to launch bot programs unless run with `--sandbox none`)."""
    settings = sandbox_settings("bwrap", config=read_operator_config(config))
    problem = bubblewrap_problem()
    if problem:
        fail(problem, code=1)
    found, left = _probe(settings, json_output)
    rows = grade(found, left)
    passed = all(row.passed for row in rows)
    if json_output:
        print_json({"ok": passed, "host": describe_host(), "protections": [row.to_json() for row in rows]})
    else:
        _print_protections(rows, passed)
    if not passed:
        raise typer.Exit(1)


def _probe(settings: SandboxSettings, json_output: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the full probe in a real sandbox (with a spinner unless `json_output`), or a one-line error."""
    status = None if json_output else console.status("probing the sandbox (spending memory and processes)")
    if status is not None:
        status.start()
    try:
        return run_probe(settings, full=True)
    except SandboxUnavailable as error:
        fail(str(error))
    except OSError as error:
        fail(f"the sandbox could not be checked here: {error}")
    finally:
        if status is not None:
            status.stop()


def _print_protections(rows: list[Protection], passed: bool) -> None:
    """The host, then a table of the protections (with what to do where one fails) and how many hold."""
    console.print(describe_host(), soft_wrap=True)
    table = Table(show_header=True, header_style="bold", expand=False)
    for column in ("protection", "", "found", *([] if passed else ["what to do"])):
        table.add_column(column, overflow="fold")
    for row in rows:
        fix = [] if passed else ["" if row.passed else row.fix]
        table.add_row(row.name, _MARK[row.passed], row.found, *fix)
    console.print(table)
    console.print(f"{sum(row.passed for row in rows)}/{len(rows)} protections hold" +
                  ("" if passed else ": a referee here refuses to launch bot programs until they all do "
                   "(or run bots you trust with --sandbox none)"), soft_wrap=True)
