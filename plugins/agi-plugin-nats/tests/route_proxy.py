"""A TCP relay for the partition test: ``python route_proxy.py LISTEN:TARGET ...`` on 127.0.0.1.

Both routes of a two-server NATS cluster run through it; SIGKILL cuts them (the servers see
their routes close and cannot connect again), starting it again on the same ports heals them.
Prints ``ready`` once it listens.
"""

from __future__ import annotations

import asyncio
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def _relay(listen: int, target: int) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            target_reader, target_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, target_writer), _pipe(target_reader, writer))

    return await asyncio.start_server(handle, "127.0.0.1", listen, reuse_address=True)


async def _main(pairs: list[str]) -> None:
    servers = [await _relay(*map(int, pair.split(":"))) for pair in pairs]
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1:]))
