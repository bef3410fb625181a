"""``sgam serve`` (HTTP API and MCP over streamable HTTP) and ``sgam mcp`` (MCP on stdio).

Both need the ``server`` extra (``pip install 'sgam[server]'``); without it they say so.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
from typing import Annotated, NoReturn

import typer

from .._core.errors import SgamError, ValidationError
from .output import DbOption, errors, fail

LOOPBACK = "127.0.0.1"


def _model_configured() -> bool:
    return bool(os.environ.get("SGAM_LLM_BASE_URL") and os.environ.get("SGAM_LLM_MODEL"))


def _need_server_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        errors.print(f"error: {exc.name} is missing; install the server extra: pip install 'sgam[server]'",
                     highlight=False, markup=False)
        raise typer.Exit(2) from None


def _listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything else starts, so a port in use or a host
    that is not this machine's is one plain line and exit status 2, not a server that
    starts, logs a bind error and stops."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as exc:
        _cannot_serve(f"--host {host!r} is not an address this machine can bind ({exc})")
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            _cannot_serve(f"port {port} on {host} is in use by another program: stop it or choose another --port "
                          f"(--host picks the interface: {LOOPBACK} by default, 0.0.0.0 for every interface)")
        if exc.errno == errno.EACCES:
            _cannot_serve(f"port {port} on {host} needs privileges this user lacks: choose a --port above 1023")
        _cannot_serve(f"cannot listen on {host}:{port} ({exc.strerror or exc}): check --host and --port")
    sock.set_inheritable(True)
    return sock


def _cannot_serve(message: str) -> NoReturn:
    errors.print(f"error: {message}", highlight=False, markup=False, soft_wrap=True)
    raise typer.Exit(2)


_GONE = (BrokenPipeError, ConnectionResetError)


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` (an exception group from the stdio task group, as anyio raises it)
    is only the client going away: its pipe broke or closed while a request ran. That
    ends a stdio session normally, so it is one log line, not a traceback."""
    import anyio

    gone = (*_GONE, anyio.BrokenResourceError, anyio.ClosedResourceError)
    return all(isinstance(leaf, gone) for leaf in _leaves(exc))


def _quiet_stdout() -> None:
    """Point stdout at /dev/null and let go of flushes into the broken pipe: the interpreter
    flushes stdout at exit, and the MCP transport's private duplicate of it is flushed when
    collected; either would print one more error about a client already reported gone."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    previous_hook = sys.unraisablehook

    def ignore_broken_pipe(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, BrokenPipeError):
            previous_hook(unraisable)

    sys.unraisablehook = ignore_broken_pipe


def _configure_logging() -> None:
    """Plain one-line records on stderr, warnings and up: a server's log is read by
    operators and written on the event loop, so nothing in it may be slow to render."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(
        host: Annotated[str, typer.Option(help="Interface to bind (loopback by default; put a TLS proxy in front "
                                               "before binding anything else).")] = LOOPBACK,
        port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
        db: DbOption = None,
        max_body: Annotated[int, typer.Option(help="Largest request body accepted, in bytes.")] = 1_048_576,
        public_url: Annotated[str | None, typer.Option(
            help="URL clients use to reach the server (behind a proxy); default http://HOST:PORT.")] = None,
        allowed_host: Annotated[list[str] | None, typer.Option(
            help="Extra Host header the MCP endpoint accepts, e.g. memory.example.com (repeatable).")] = None,
        workers: Annotated[int, typer.Option(help="Store calls in flight at once.")] = 8,
        resume_backfills: Annotated[bool, typer.Option(
            help="Resume a tenant's unfinished schema backfills on its first request.")] = True,
    ) -> None:
        """Serve the HTTP API under /v1 and MCP at /mcp; every request needs an API key."""
        _need_server_extra()
        _configure_logging()
        import uvicorn

        from ..memory.asynchronous import AsyncMemory
        from ..server import create_app
        from ..server.http11 import uvicorn_config

        listening = _listening_socket(host, port)
        try:
            try:
                memory = AsyncMemory.from_env(db, workers=workers)
            except SgamError as exc:
                fail(exc)
                return
            application = create_app(memory, max_body=max_body, extract=_model_configured(),
                                     public_url=public_url or f"http://{host}:{port}", allowed_hosts=allowed_host,
                                     resume_backfills=resume_backfills)
            try:
                uvicorn.Server(uvicorn_config(application, host, port, log_level="info")).run(sockets=[listening])
            finally:
                memory.memory.close()
        finally:
            listening.close()

    @app.command("mcp")
    def mcp_command(
        tenant: Annotated[str, typer.Option("--tenant", "-t", envvar="SGAM_TENANT",
                                            help="The tenant every tool acts for.")],
        scope: Annotated[str, typer.Option(
            help="read, write or admin: the tools listed and allowed (admin adds forget, set_retention and "
                 "purge).")] = "write",
        db: DbOption = None,
    ) -> None:
        """Serve MCP on stdin/stdout for a local assistant, for one tenant."""
        _need_server_extra()
        _configure_logging()
        import anyio

        from .._core.values import check_tenant
        from ..access import SCOPES
        from ..memory.asynchronous import AsyncMemory
        from ..server import build_mcp, fixed_caller

        try:
            check_tenant(tenant)
            chosen = next((s for s in SCOPES if s == scope), None)
            if chosen is None:
                raise ValidationError("scope", scope, f"must be one of {', '.join(SCOPES)}")
            memory = AsyncMemory.from_env(db)
        except SgamError as exc:
            fail(exc)
            return
        server = build_mcp(memory, fixed_caller(tenant, chosen), extract=_model_configured())
        try:
            anyio.run(server.run_stdio_async)
        except BaseException as exc:
            if not _client_gone(exc):
                raise
            logging.getLogger("sgam.mcp").warning("the MCP client closed the connection mid-request (%s); stopping",
                                                  _leaves(exc)[0].__class__.__name__)
            _quiet_stdout()
        finally:
            memory.memory.close()
