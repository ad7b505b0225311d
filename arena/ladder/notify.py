"""The ladder service's webhook: each stored result POSTed as JSON to an owner's URL.

Posting never holds up the ladder: results queue up for a thread of their own, each is tried a few
times with a short timeout and then dropped with one log line. What was sent is remembered in the
database by the service (the last match id), so a restarted service sends what it had not.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from arena import __version__

USER_AGENT = f"arena-ladder/{__version__}"


class Notifier:
    """POSTs JSON documents to one URL from a background thread."""

    def __init__(self, url: str, log: Callable[[str], None], *, timeout_s: float = 5.0, attempts: int = 3,
                 backoff_s: float = 1.0, capacity: int = 10_000) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"--notify-url must be an http:// or https:// URL, not {url!r}")
        self.url = url
        self.log = log
        self.timeout_s = timeout_s
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.sent = 0
        self.failed = 0
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(maxsize=capacity)
        self._thread = threading.Thread(target=self._run, name="arena-notify", daemon=True)
        self._thread.start()

    def post(self, document: dict[str, Any]) -> None:
        """Queue one document (dropped, with a log line, if the queue is full: the receiver is far behind)."""
        try:
            self._queue.put_nowait(document)
        except queue.Full:
            self.failed += 1
            self.log(f"webhook: {self.url} is too far behind; a result was not sent")

    def close(self, timeout_s: float = 10.0) -> None:
        """Send what is queued (for up to `timeout_s`), then stop."""
        try:
            self._queue.put(None, timeout=timeout_s)
        except queue.Full:
            return
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            document = self._queue.get()
            if document is None:
                return
            self._send(document)

    def _send(self, document: dict[str, Any]) -> None:
        body = json.dumps(document).encode("utf-8")
        problem = ""
        for attempt in range(self.attempts):
            request = urllib.request.Request(self.url, data=body, method="POST", headers={
                "Content-Type": "application/json", "User-Agent": USER_AGENT})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    response.read(1024)
                self.sent += 1
                return
            except urllib.error.HTTPError as error:
                problem = f"HTTP {error.code}"
                if 400 <= error.code < 500 and error.code != 429:
                    break  # the receiver refuses it: trying again will not help
            except (urllib.error.URLError, OSError, ValueError) as error:
                problem = str(getattr(error, "reason", error))
            time.sleep(self.backoff_s * (attempt + 1))
        self.failed += 1
        self.log(f"webhook: could not POST match {document.get('match', {}).get('uid', '?')} to {self.url}: "
                 f"{problem}")
