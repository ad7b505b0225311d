"""Clients from many addresses on one machine: gRPC's Python client cannot choose its source address, and the
referee counts its caps per address; so each loopback address 127.0.0.N gets an entrance of its own, a Unix
socket whose connections reach the target from that address (`unix:PATH` is then a channel target that
arrives from 127.0.0.N). Not a benchmark: what bench/spectators.py and the tests build on (here, so that bench/
never imports tests/)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

CHUNK = 1 << 16


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(CHUNK):
            target.write(chunk)
            await target.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        try:
            target.close()
        except OSError:
            pass


class SourceAddresses:
    """Entrances to `host:port` from loopback addresses: `async with SourceAddresses(...) as entrances:` gives a
    channel target ("unix:...") per address, served on the running event loop."""

    def __init__(self, host: str, port: int, addresses: list[str]) -> None:
        self.host, self.port, self.addresses = host, port, addresses
        self.folder = Path(tempfile.mkdtemp(prefix="arena-src-"))
        self.servers: list[asyncio.AbstractServer] = []
        self.targets: dict[str, str] = {}

    async def __aenter__(self) -> dict[str, str]:
        for index, address in enumerate(self.addresses):
            path = self.folder / f"{index}.sock"

            async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                              source: str = address) -> None:
                try:
                    upstream_reader, upstream_writer = await asyncio.open_connection(
                        self.host, self.port, local_addr=(source, 0))
                    await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
                except (OSError, asyncio.CancelledError):  # (refused, or closed with the entrances)
                    writer.close()

            self.servers.append(await asyncio.start_unix_server(forward, path=str(path)))
            self.targets[address] = f"unix:{path}"
        return self.targets

    async def __aexit__(self, *exc_info: object) -> None:
        for server in self.servers:
            server.close()
        for server in self.servers:
            await server.wait_closed()
        for path in self.folder.iterdir():
            path.unlink(missing_ok=True)
        self.folder.rmdir()


def loopback(count: int, first: int = 2) -> list[str]:
    """`count` loopback addresses, 127.0.x.y, from 127.0.0.`first` on (each a different /24 past 250)."""
    return [f"127.0.{(first + index) // 250}.{(first + index) % 250 + 1}" for index in range(count)]
