"""Running the app: a socket bound before uvicorn starts, so a port in use is one clear line and
``--port 0`` (any free port) can still print the address it got."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

WS_MAX_SIZE = 2 * 1024 * 1024 + 1024  # uvicorn refuses larger WebSocket messages itself (the app says why)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; raises OSError (port in use, no such address)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def make_server(app: Starlette, sock: socket.socket, *, certfile: Path | None = None,
                keyfile: Path | None = None, log_level: str = "warning") -> uvicorn.Server:
    """A uvicorn server for ``app`` on ``sock``; run it with ``server.run(sockets=[sock])``."""
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, access_log=log_level == "info",
        ws_max_size=WS_MAX_SIZE,
        ws_per_message_deflate=False,  # frames are JPEG: compressing them again only costs time
        ssl_certfile=str(certfile) if certfile else None, ssl_keyfile=str(keyfile) if keyfile else None,
        timeout_graceful_shutdown=3,
    )
    return uvicorn.Server(config)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, from its own host name (no packet is sent)."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return found
    for *_, addr in infos:
        ip = str(addr[0])
        if not ipaddress.ip_address(ip).is_loopback and ip not in found:
            found.append(ip)
    return found
