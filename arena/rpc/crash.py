"""A bot program's crash as its owner reads it: the SDK (run_bot) prints an agent's uncaught error so, on
stderr, in place of Python's own traceback. Paths are shortened (the bot's own files relative to its folder,
Arena's `<arena sdk>/...`, Python's `<python>/...`), and each run of frames in Arena's SDK (with the
Python library frames it called through, asyncio's) is folded into one line: what the referee keeps of
the bot's last output is the bot's own frames and the error, not the host's install paths."""

from __future__ import annotations

import sysconfig
import traceback
from pathlib import Path
from typing import Optional

import arena

ARENA = Path(arena.__file__).resolve().parent
CHAINS = 5  # the most chained errors (raise ... from, or during handling) written out


def _python_folders() -> list[tuple[Path, str]]:
    """Python's own folders, most specific first, and how they are written."""
    paths = sysconfig.get_paths()
    found = [(Path(paths[key]).resolve(), "<site-packages>") for key in ("purelib", "platlib") if key in paths]
    found += [(Path(paths[key]).resolve(), "<python>") for key in ("stdlib", "platstdlib") if key in paths]
    return found


def _where(filename: str, folder: Path) -> tuple[str, str]:
    """(the kind of a frame's file: 'bot', 'sdk', 'python' or 'other'; its path as shown)."""
    try:
        path = Path(filename).resolve()
    except (OSError, RuntimeError):
        return "other", filename
    if path.is_relative_to(folder):
        return "bot", str(path.relative_to(folder))
    if path.is_relative_to(ARENA):
        return "sdk", f"<arena sdk>/{path.relative_to(ARENA)}"
    for base, name in _python_folders():
        if path.is_relative_to(base):
            return ("other" if name == "<site-packages>" else "python"), f"{name}/{path.relative_to(base)}"
    return "other", filename


def _frame_lines(shown: str, frame: traceback.FrameSummary) -> list[str]:
    lines = [f'  File "{shown}", line {frame.lineno}, in {frame.name}']
    return lines + [f"    {frame.line.strip()}"] if frame.line else lines


def _frames(tb: Optional[traceback.StackSummary], folder: Path) -> list[str]:
    """The frames' lines: each run of the SDK's frames (and the library frames between them) that calls the
    bot's code as one line; a run the error came from (the SDK's own) written out, paths short."""
    lines: list[str] = []
    folded: list[str] = []
    for frame in tb or []:
        kind, shown = _where(frame.filename, folder)
        if kind == "sdk" or (kind == "python" and folded):
            folded += _frame_lines(shown, frame)
            continue
        if folded:
            count = sum(1 for line in folded if line.startswith("  File "))
            lines.append(f"  [{count} frame(s) of Arena's SDK, <arena sdk>, calling your code]")
            folded = []
        lines += _frame_lines(shown, frame)
    return lines + folded


def readable_traceback(error: BaseException, folder: Path | str | None = None) -> str:
    """`error`'s traceback (and the errors it was chained to) as its owner reads it; `folder`: the bot's
    folder (the working folder when not given)."""
    base = Path(folder or Path.cwd()).resolve()
    chain, links = [error], []  # links[i]: what joins chain[i + 1] (the earlier error) to chain[i]
    while len(chain) < CHAINS:
        last = chain[-1]
        if last.__cause__ is not None:
            chain.append(last.__cause__)
            links.append("The above exception was the direct cause of the following exception:")
        elif last.__context__ is not None and not last.__suppress_context__:
            chain.append(last.__context__)
            links.append("During handling of the above exception, another exception occurred:")
        else:
            break
    parts: list[str] = []
    for index in range(len(chain) - 1, -1, -1):
        one = chain[index]
        parts.append("\n".join(["Traceback (most recent call last):",
                                *_frames(traceback.extract_tb(one.__traceback__), base)]))
        parts.append("".join(traceback.format_exception_only(type(one), one)).rstrip())
        if index:
            parts.append(f"\n{links[index - 1]}\n")
    return "\n".join(parts) + "\n"
