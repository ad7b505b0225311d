"""A real nginx in front of a local `arena web`, as docker/nginx.conf sets it up: what bench/web_attack.py's
--through-nginx runs its attacks through.

The configuration is docker/nginx.conf with only what a local process needs changed: its paths (pid, log, a
self-signed certificate made here, the folders where nginx would keep bodies and responses on disk, so that their
size can be watched), the address it listens on (127.0.0.1 and a free port), the web it passes to (127.0.0.1 and
the web's port) and its worker count. Every limit, timeout and buffer is the deployment's own. `NginxFront` starts
it in the foreground (`daemon off`) in a process group of its own and stops it (and its workers) on leaving.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "docker" / "nginx.conf"
BODY_FOLDERS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")  # where nginx may write what passes through


def nginx_binary() -> Optional[str]:
    """The nginx program here: the one $ARENA_NGINX names (empty: none), else nginx on PATH or Debian's
    /usr/sbin/nginx; None where there is none."""
    named = os.environ.get("ARENA_NGINX")
    if named is not None:
        return named if named and os.access(named, os.X_OK) else None
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def local_conf(folder: Path, port: int, web_port: int, workers: int) -> str:
    """docker/nginx.conf for a local process: paths under `folder`, listening on 127.0.0.1:`port`, passing to
    127.0.0.1:`web_port`, `workers` workers; nothing else changed (a replacement that finds nothing fails)."""
    text = CONF.read_text(encoding="utf-8")
    temp = "".join(f"    {name}_temp_path {folder / name};\n" for name in BODY_FOLDERS)
    replacements = [
        (r"worker_processes auto;", f"worker_processes {workers};"),
        (r"pid /run/nginx\.pid;", f"pid {folder / 'nginx.pid'};"),
        (r"access_log /dev/stdout arena;", f"access_log {folder / 'access.log'} arena;\n{temp}"),
        (r"server web:8080;", f"server 127.0.0.1:{web_port};"),
        (r"listen 8443 ssl http2;", f"listen 127.0.0.1:{port} ssl http2;"),
        (r"/run/arena-secrets/tls/cert\.pem", str(folder / "cert.pem")),
        (r"/run/arena-secrets/tls/key\.pem", str(folder / "key.pem")),
    ]
    for pattern, replacement in replacements:
        text, found = re.subn(pattern, lambda _match, r=replacement: r, text)
        if not found:
            raise RuntimeError(f"docker/nginx.conf no longer has {pattern!r}: bench/nginx_front.py needs updating")
    return text


class NginxFront:
    """nginx in front of 127.0.0.1:`web_port`, listening on 127.0.0.1:`port` (TLS, self-signed), with its files in
    `folder`; a context manager that starts and stops it."""

    def __init__(self, binary: str, folder: Path, port: int, web_port: int, workers: int = 1) -> None:
        self.binary, self.folder, self.port, self.web_port, self.workers = binary, folder, port, web_port, workers
        self.process: Optional[subprocess.Popen[bytes]] = None

    def __enter__(self) -> NginxFront:
        self.folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", str(self.folder / "key.pem"),
                        "-out", str(self.folder / "cert.pem")], check=True, capture_output=True)
        for name in BODY_FOLDERS:
            (self.folder / name).mkdir(exist_ok=True)
            if os.geteuid() == 0:  # the workers run as nobody: their folders theirs, the way to them open to pass
                shutil.chown(self.folder / name, "nobody")
                for folder in (self.folder, self.folder.parent):
                    folder.chmod(folder.stat().st_mode | 0o011)
        conf = self.folder / "nginx.conf"
        conf.write_text(local_conf(self.folder, self.port, self.web_port, self.workers), encoding="utf-8")
        command = [self.binary, "-p", str(self.folder), "-c", str(conf), "-e", str(self.folder / "error.log"),
                   "-g", "daemon off;"]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
        if checked.returncode != 0:
            raise RuntimeError(f"nginx refused its configuration: {checked.stderr.strip()}")
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        return self

    def __exit__(self, kind: Optional[type[BaseException]], error: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop nginx and its workers (quickly, then by force)."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(15)

    def pids(self) -> list[int]:
        """The master's and its workers' process ids."""
        if self.process is None:
            return []
        master = self.process.pid
        try:
            children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        except OSError:
            children = []
        return [master, *(int(child) for child in children)]

    def resident_mb(self) -> float:
        """Memory the master and its workers hold (their resident sets added up; shared pages counted in each)."""
        total = 0.0
        for pid in self.pids():
            try:
                total += int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024
            except (OSError, IndexError):
                pass
        return total

    def disk_mb(self) -> float:
        """What nginx keeps on disk now of bodies and responses passing through (its temporary folders)."""
        total = 0
        for name in BODY_FOLDERS:
            for path in (self.folder / name).rglob("*"):
                try:
                    total += path.stat().st_size
                except OSError:
                    pass
        return total / (1 << 20)

    def statuses(self) -> Counter[str]:
        """The statuses nginx has answered so far (its access log: docker/nginx.conf's `arena` format), a count each;
        """
        found: Counter[str] = Counter()
        try:
            lines = (self.folder / "access.log").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return found
        for line in lines:
            fields = line.rsplit(" ", 3)
            if len(fields) == 4 and fields[1].isdigit():
                found[fields[1]] += 1
        return found

    def wait_until_up(self, timeout_s: float = 30.0) -> None:
        """Until it listens (or fails: RuntimeError with its log's end)."""
        import socket

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        log = (self.folder / "error.log")
        raise RuntimeError(f"nginx did not start: {log.read_text()[-2000:] if log.exists() else 'no log'}")
