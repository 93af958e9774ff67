"""``ar-sudoku serve``: the web page (photo upload with corrections, and live AR in the browser).

The web stack is an optional extra, so this module imports it only when the
command runs; without it, one line says how to install it.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from ar_sudoku import signals
from ar_sudoku.cli.common import EXIT_INTERRUPTED, EXIT_OK, CliError, help_format

WEB_MODULES = ("starlette", "uvicorn", "multipart", "cryptography")


def _check_extra() -> None:
    missing = []
    for name in WEB_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise CliError("serve needs the web extra (missing: " + ", ".join(missing) + "): "
                       "pip install -e '.[web]' in a clone, or pip install 'ar-sudoku[web]'")


def _addresses(host: str, port: int, scheme: str) -> tuple[str, list[str]]:
    """The address to open here, and the ones a phone on the network would use."""
    from ar_sudoku.web.server import is_loopback, lan_addresses

    if is_loopback(host):
        return f"{scheme}://{'localhost' if host in ('127.0.0.1', 'localhost') else host}:{port}/", []
    if host in ("0.0.0.0", "::", ""):
        return f"{scheme}://localhost:{port}/", [f"{scheme}://{ip}:{port}/" for ip in lan_addresses()]
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}/", [f"{scheme}://{shown}:{port}/"]


def _why(exc: OSError, args: argparse.Namespace) -> str:
    """What to do about a socket that could not listen: another port only when the port is the trouble."""
    import errno
    import socket

    if exc.errno == errno.EADDRINUSE:
        return f" (another server on that port? try --port {args.port + 1})"
    if exc.errno == errno.EACCES and 0 < args.port < 1024:
        return " (ports below 1024 need root; try --port 8000)"
    if isinstance(exc, socket.gaierror) or exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.EINVAL):
        return (f" (--host {args.host} is not an address of this computer: 127.0.0.1 for this computer only, "
                "0.0.0.0 for every network)")
    return ""


def run(args: argparse.Namespace) -> int:
    _check_extra()
    from ar_sudoku.web.app import WebConfig, create_app
    from ar_sudoku.web.server import bind, is_loopback, lan_addresses, make_server

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port}: give a port from 1 to 65535 (0: any free port)")
    if args.max_sessions < 1:
        raise CliError("--max-sessions must be at least 1")
    app = create_app(WebConfig(model=args.model, max_sessions=args.max_sessions))  # a missing model fails here
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}{_why(exc, args)}") from exc
    port = sock.getsockname()[1]
    certfile = keyfile = None
    scheme = "https" if args.https else "http"
    local, remote = _addresses(args.host, port, scheme)
    if args.https:
        from ar_sudoku.web.tls import default_folder, ensure_certificate, fingerprint

        folder = Path(args.cert_dir) if args.cert_dir else default_folder()
        hosts = [args.host] if not is_loopback(args.host) and args.host not in ("0.0.0.0", "::") else []
        if args.host in ("0.0.0.0", "::"):
            hosts = lan_addresses()
        try:
            certfile, keyfile, made = ensure_certificate(folder, hosts)
        except OSError as exc:
            sock.close()
            raise CliError(f"cannot write the certificate to {folder}: {exc.strerror or exc} "
                           "(choose a folder with --cert-dir)") from exc
        print(f"{'made' if made else 'using'} a self-signed certificate: {certfile}")
        print(f"  SHA-256 fingerprint {fingerprint(certfile)}")
        print("  the browser will warn that it is not trusted (it was made here, not by an authority):")
        print("  Chrome/Android: Advanced > Proceed to ... (unsafe); Safari/iPhone: Show Details > visit this website;")
        print("  Firefox: Advanced > Accept the Risk. Compare the fingerprint in the certificate's details first.")
    print(f"ar-sudoku serving on {local}  (photo: {local}photo, live: {local}live)")
    if is_loopback(args.host):
        print(f"  only this computer can connect ({args.host}); for a phone on your network: "
              "ar-sudoku serve --host 0.0.0.0 --https")
    else:
        print(f"  listening on {args.host}: other computers on the network can connect: "
              + (", ".join(remote) if remote else "use this computer's address"))
        if not args.https:
            print("  a phone's browser gives a page its camera only over https: add --https for the live page")
    print("  Ctrl-C stops the server", flush=True)
    server = make_server(app, sock, certfile=certfile, keyfile=keyfile,
                         log_level="info" if args.verbose else "warning")
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt as exc:  # uvicorn re-raises the signal it shut down on: stopped cleanly
        print("ar-sudoku: server stopped")
        return 128 + exc.signum if isinstance(exc, signals.Terminated) else EXIT_INTERRUPTED  # SIGTERM: 143
    finally:
        sock.close()
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="a web page: photo upload with corrections, and live AR with the browser's camera",
        **help_format(
            "Serve the photo page (upload or take a photo, correct misread cells, see it solved) and the "
            "live page (the browser's camera, solved digits drawn over the video), and their JSON API. "
            "Needs the web extra: pip install -e '.[web]'. Listens on this computer only unless --host says "
            "otherwise; a phone needs --https for its camera (a self-signed certificate is made for it).",
            "  ar-sudoku serve                              # then open http://localhost:8000/\n"
            "  ar-sudoku serve --host 0.0.0.0 --https       # a phone on the same network\n"
            "  curl -F photo=@samples/photo.jpg -F set=r3c5=7 http://localhost:8000/api/read\n",
        ),
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this computer only; 0.0.0.0: every network)")
    p.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0 picks a free one)")
    p.add_argument("--https", action="store_true",
                   help="serve over https with a self-signed certificate (a phone's camera needs it)")
    p.add_argument("--cert-dir", metavar="DIR",
                   help="where the certificate is kept (default: ~/.cache/ar-sudoku/tls)")
    p.add_argument("--max-sessions", type=int, default=4, metavar="N",
                   help="live pages served at once (default 4; each costs about one core at full rate)")
    p.add_argument("--model", metavar="PATH", help="another digits.onnx (default: the shipped model)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=run)
