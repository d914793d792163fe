"""The playground's web server: the standard library's threaded HTTP server on 127.0.0.1.

Who may drive it (the threat model, Jupyter's; checks in :mod:`.access`): only the person who
started it — every request must carry the random token of the URL ``strided playground`` prints
(``?token=`` or a ``SameSite=Strict`` cookie for the page, the ``X-Strided-Token`` header for the API);
other web pages cannot — a foreign ``Host`` (DNS rebinding) or ``Origin`` is refused, the API takes
only ``application/json`` bodies, no CORS header is ever sent and no GET changes anything. A program
pasted into the watch view runs behind an operating-system boundary (:mod:`.boundary`), or not at
all unless the user started the server with ``--allow-unsandboxed-watch``.

Routes (the API answers JSON: 200 for an answered request, 4xx for a request it cannot or will
not serve, 500 for a failure of ours, after which the server goes on serving):

- ``GET /?token=T`` — the page (:func:`~.render.page_html`), and the cookie;
- ``GET /api/show?expr=EXPR`` — :func:`~.show.show_payload` plus ``html`` (the step cards);
- ``POST /api/watch`` — body ``{"program": "..."}`` (JSON, with a Content-Length of at most
  :data:`MAX_BODY` bytes, refused before it is read otherwise): :func:`~.sandbox.run_watch` plus
  ``html``; 429 while :data:`~.sandbox.MAX_SANDBOXES` programs run;
- ``GET /api/tour?lang=en|zh`` — :func:`~.tour.tour_payload`.

Why no web framework: three routes and a page. The framework the playground used before parsed
form bodies, which is how cross-site posts got in, and spooled chunked bodies of any size to disk;
``http.server`` gives us every byte of the request to check ourselves, and one dependency less.
"""

from __future__ import annotations

import json
import secrets
import socket
import sys
import threading
import traceback
import urllib.parse
import webbrowser
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from .access import Gate, Refusal, new_token
from .boundary import probe
from .render import page_html, steps_html, watch_html
from .sandbox import MAX_PROGRAM_CHARS, Busy, off_reason, run_watch
from .show import show_payload
from .tour import tour_payload

__all__ = ["MAX_BODY", "PlaygroundServer", "make_server_on", "serve"]

MAX_BODY = 4 * MAX_PROGRAM_CHARS + 1024
"""The largest request body read (bytes): a program of MAX_PROGRAM_CHARS characters as JSON."""

REQUEST_TIMEOUT_S = 30
"""Seconds a connection may take to send its whole request (a slow client cannot hold a thread)."""

MAX_CONNECTIONS = 64
"""Connections served at once; one more is closed at once (each holds a thread)."""


class PlaygroundServer(ThreadingHTTPServer):
    """The playground on 127.0.0.1:``server_port``: its :class:`~.access.Gate` (port and token),
    ``url`` (the address to open, with the token), and how the watch view runs programs."""

    daemon_threads = True  # a request still running never keeps the process alive after Ctrl-C
    request_queue_size = 128  # (the default 5 drops connections that arrive together: a page loads several)

    def __init__(self, port: int, token: str, unsandboxed_watch: bool) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.gate = Gate(self.server_port, token)
        self.unsandboxed_watch = unsandboxed_watch
        self._connections = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._connections.acquire(blocking=False):
            self.shutdown_request(request)  # too many at once: this one is closed unanswered
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/?token={self.gate.token}"

    def watch_status(self) -> dict[str, Any]:
        """How the watch view runs programs here: ``mode`` "sandbox", "unsandboxed" or "off", and why."""
        boundary = probe()
        if boundary.available:
            return {"mode": "sandbox", "note": f"runs in a sandbox: {boundary.reason}"}
        if self.unsandboxed_watch:
            return {"mode": "unsandboxed", "note": f"no sandbox here ({boundary.reason}); started with "
                                                   "--allow-unsandboxed-watch, so programs run as you, unisolated"}
        return {"mode": "off", "note": off_reason(boundary.reason)}


class _Handler(BaseHTTPRequestHandler):
    server: PlaygroundServer
    timeout = REQUEST_TIMEOUT_S

    def version_string(self) -> str:
        return "strided-playground"  # (not the Python version: nothing a client needs)

    def setup(self) -> None:
        super().setup()
        # the socket timeout bounds each read; this bounds the whole request (a client sending one
        # byte every few seconds would otherwise hold its thread for ever)
        self._reading = True
        self._deadline = threading.Timer(REQUEST_TIMEOUT_S, self._expire)
        self._deadline.daemon = True
        self._deadline.start()

    def _expire(self) -> None:
        if self._reading:
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def finish(self) -> None:
        self._deadline.cancel()
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    # ------------------------------------------------------------------ answers

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # the token never leaves in a Referer
        self.send_header("X-Frame-Options", "DENY")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json; charset=utf-8", headers)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self.close_connection = True  # whatever body the client still sends is never read
        self._json({"ok": False, "error": message}, status, headers)

    # ------------------------------------------------------------------ dispatch

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self._dispatch("POST")

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        self._dispatch("HEAD")

    def _dispatch(self, method: str) -> None:
        if method != "POST":
            self._reading = False  # the request is read: what follows is ours to answer
        try:
            path, _, query = self.path.partition("?")
            try:
                params = urllib.parse.parse_qs(query, keep_blank_values=True, errors="strict", max_num_fields=8)
            except UnicodeDecodeError:
                params = None
            except ValueError:
                return self._error(400, "too many query parameters")
            token = (params or {}).get("token", [None])[0]
            refusal: Refusal | None = self.server.gate.refusal(method, path, self.headers, query_token=token)
            if refusal is not None:
                if path.startswith("/api/") or method != "GET":
                    return self._error(refusal.status, refusal.reason)
                return self._refused_page(refusal)
            route = _ROUTES.get(path)
            if route is None:
                return self._error(404, f"404 Not Found: {method} {path} is not a playground address")
            if method not in route[0] and not (method == "HEAD" and "GET" in route[0]):
                return self._error(405, f"405 Method Not Allowed: {method} {path} is not a playground address",
                                   {"Allow": ", ".join(route[0])})
            route[1](self, params)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            return  # the client went away (or was cut off at its deadline): nobody to answer
        except Exception as exc:  # noqa: BLE001 - an error of ours is an answer; the server keeps serving
            try:
                traceback.print_exception(exc, file=sys.stderr)
            except OSError:
                pass  # (a closed stderr must not cost the client its answer)
            try:
                self._error(500, f"the playground failed on this input ({type(exc).__name__}: {exc}); "
                                 "it goes on serving")
            except OSError:
                pass

    def _refused_page(self, refusal: Refusal) -> None:
        body = (f"<!DOCTYPE html><meta charset='utf-8'><title>strided playground</title>"
                f"<p>{escape(refusal.reason)}</p>").encode()
        self.close_connection = True
        self._send(refusal.status, body, "text/html; charset=utf-8")

    # ------------------------------------------------------------------ routes

    def _index(self, params: dict[str, list[str]] | None) -> None:
        nonce = secrets.token_urlsafe(16)
        csp = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; img-src data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        page = page_html(token=self.server.gate.token, watch=self.server.watch_status(), nonce=nonce)
        self._send(200, page.encode("utf-8"), "text/html; charset=utf-8",
                   {"Content-Security-Policy": csp, "Set-Cookie": self.server.gate.set_cookie()})

    def _favicon(self, params: dict[str, list[str]] | None) -> None:
        self.send_response(204)  # no icon: say so quietly rather than with a 404
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _show(self, params: dict[str, list[str]] | None) -> None:
        if params is None:
            return self._error(400, "the expression is not UTF-8 text")
        payload = show_payload(params.get("expr", [""])[0])
        payload["html"] = steps_html(payload)
        self._json(payload)

    def _tour(self, params: dict[str, list[str]] | None) -> None:
        payload = tour_payload((params or {}).get("lang", ["en"])[0] or "en")
        self._json(payload, 200 if payload["ok"] else 400)

    def _watch(self, params: dict[str, list[str]] | None) -> None:
        if self.headers.get("Transfer-Encoding") is not None:
            return self._error(411, "send the program with a Content-Length (chunked bodies are not read)")
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            return self._error(411, "send the program with a Content-Length")
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if length < 0:
            return self._error(400, f"the Content-Length {length_text!r} is not a number of bytes")
        if length > MAX_BODY:
            return self._error(413, f"the request is {length:,} bytes; the watch view accepts programs of at most "
                                    f"{MAX_PROGRAM_CHARS:,} characters")
        raw = self.rfile.read(length)
        self._reading = False
        try:
            body = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return self._error(400, 'the body is not JSON: send {"program": "..."}')
        program = body.get("program") if isinstance(body, dict) else None
        if not isinstance(program, str):
            return self._error(400, 'send the program as {"program": "..."} (a string)')
        try:
            result = run_watch(program, unsandboxed=self.server.unsandboxed_watch)
        except Busy as exc:
            return self._error(429, f"busy: {exc}", {"Retry-After": "5"})
        result["html"] = watch_html(result)
        self._json(result)


_ROUTES: dict[str, tuple[tuple[str, ...], Any]] = {
    "/": (("GET",), _Handler._index),
    "/favicon.ico": (("GET",), _Handler._favicon),
    "/api/show": (("GET",), _Handler._show),
    "/api/tour": (("GET",), _Handler._tour),
    "/api/watch": (("POST",), _Handler._watch),
}


def make_server_on(port: int = 0, *, token: str | None = None, unsandboxed_watch: bool = False) -> PlaygroundServer:
    """A threaded playground server on 127.0.0.1:``port`` (0: a free port) with ``token`` (a new
    random one by default). ``server.url`` is the address to open."""
    return PlaygroundServer(port, token or new_token(), unsandboxed_watch)


def serve(port: int = 0, open_browser: bool = True, out: TextIO | None = None, *,
          unsandboxed_watch: bool = False) -> int:
    """Serve the playground on 127.0.0.1 until Ctrl-C; print the URL (with its token); open it in
    the browser unless ``open_browser`` is False. Returns the exit code (0; 2 if the port is taken)."""
    out = sys.stdout if out is None else out
    try:
        server = make_server_on(port, unsandboxed_watch=unsandboxed_watch)
    except OSError as exc:
        print(f"strided playground: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:  # (from the first line on: a Ctrl-C right after the URL is printed stops cleanly too)
        print(f"strided playground: serving on {server.url}  (Ctrl-C stops it; the address carries this "
              "server's token: only you can use it)", file=out, flush=True)
        print(f"strided playground: watch view: {server.watch_status()['note']}", file=out, flush=True)
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstrided playground: stopped", file=out, flush=True)
    finally:
        server.server_close()
    return 0

