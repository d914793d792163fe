"""The playground's web server: a bottle app served on 127.0.0.1 by a threaded wsgiref server.

Routes (every answer of the API is JSON, HTTP 200 for an answered request, 400 for a request the
API cannot read; an error of ours is a JSON ``{"ok": false, "error": ...}`` with status 500 and
the server goes on serving):

- ``GET /`` — the page (:func:`~.render.page_html`);
- ``GET /api/show?expr=EXPR`` — :func:`~.show.show_payload` plus ``html`` (the step cards);
- ``POST /api/watch`` — body ``{"program": "..."}`` (JSON) or a form field ``program``:
  :func:`~.sandbox.run_watch` plus ``html``;
- ``GET /api/tour?lang=en|zh`` — :func:`~.tour.tour_payload`.

Why bottle: one module with no dependencies of its own, WSGI (so the tests call the app
directly or over HTTP), routing and JSON without a framework's weight.
"""

from __future__ import annotations

import json
import sys
import threading
import traceback
import webbrowser
from socketserver import ThreadingMixIn
from typing import Any, TextIO
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import bottle

from .render import page_html, steps_html, watch_html
from .sandbox import MAX_PROGRAM_CHARS, run_watch
from .show import show_payload
from .tour import tour_payload

__all__ = ["make_app", "make_server_on", "serve"]

MAX_BODY = 4 * MAX_PROGRAM_CHARS + 1024


def _json(data: dict[str, Any], status: int = 200) -> str:
    bottle.response.status = status
    bottle.response.content_type = "application/json; charset=utf-8"
    bottle.response.set_header("Cache-Control", "no-store")
    return json.dumps(data)


def make_app() -> bottle.Bottle:
    """The playground as a WSGI application (a ``bottle.Bottle``)."""
    app = bottle.Bottle()

    @app.get("/")
    def index() -> str:
        bottle.response.content_type = "text/html; charset=utf-8"
        return page_html()

    @app.get("/favicon.ico")
    def favicon() -> Any:
        return bottle.HTTPResponse(status=204)  # no icon: say so quietly rather than with a 404

    @app.get("/api/show")
    def show() -> str:
        expr = bottle.request.query.getunicode("expr")
        if expr is None and "expr" in bottle.request.query:
            return _json({"ok": False, "error": "the expression is not UTF-8 text", "html": ""}, 400)
        payload = show_payload(expr or "")
        payload["html"] = steps_html(payload)
        return _json(payload)

    @app.post("/api/watch")
    def watch() -> str:
        length = bottle.request.content_length
        if length > MAX_BODY:
            return _json({"ok": False, "error": f"the request is {length:,} bytes; the watch view accepts programs "
                                                f"of at most {MAX_PROGRAM_CHARS:,} characters"}, 400)
        program: Any = None
        if bottle.request.content_type.startswith("application/json"):
            try:
                body = json.loads(bottle.request.body.read(MAX_BODY).decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                return _json({"ok": False, "error": 'the body is not JSON: send {"program": "..."}'}, 400)
            program = body.get("program") if isinstance(body, dict) else None
        else:
            program = bottle.request.forms.getunicode("program")
        if not isinstance(program, str):
            return _json({"ok": False, "error": 'send the program as {"program": "..."} (a string)'}, 400)
        result = run_watch(program)
        result["html"] = watch_html(result)
        return _json(result)

    @app.get("/api/tour")
    def tour() -> str:
        payload = tour_payload(bottle.request.query.getunicode("lang", default="en") or "en")
        return _json(payload, 200 if payload["ok"] else 400)

    def error_page(err: bottle.HTTPError) -> str:
        # every error, ours included, is a JSON line: the page shows it inline, never an error page
        if err.status_code >= 500:
            traceback.print_exception(err.exception, file=sys.stderr) if err.exception else None
            message = f"the playground failed on this input ({type(err.exception).__name__}: {err.exception}); " \
                      "it goes on serving"
        else:
            message = f"{err.status_line}: {bottle.request.method} {bottle.request.path} is not a playground address"
        bottle.response.content_type = "application/json; charset=utf-8"
        return json.dumps({"ok": False, "error": message})

    for code in (400, 404, 405, 413, 500):
        app.error(code)(error_page)
    return app


class _Threaded(ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a request still running never keeps the process alive after Ctrl-C


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def make_server_on(port: int = 0, app: Any = None) -> WSGIServer:
    """A threaded WSGI server for the playground on 127.0.0.1:``port`` (0: a free port)."""
    return make_server("127.0.0.1", port, app if app is not None else make_app(), server_class=_Threaded,
                       handler_class=_Quiet)


def serve(port: int = 0, open_browser: bool = True, out: TextIO | None = None) -> int:
    """Serve the playground on 127.0.0.1 until Ctrl-C; print the URL; open it in the browser
    unless ``open_browser`` is False. Returns the exit code (0; 2 if the port is taken)."""
    out = sys.stdout if out is None else out
    try:
        server = make_server_on(port)
    except OSError as exc:
        print(f"strided playground: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    url = f"http://127.0.0.1:{server.server_port}/"
    try:  # (from the first line on: a Ctrl-C right after the URL is printed stops cleanly too)
        print(f"strided playground: serving on {url}  (Ctrl-C stops it)", file=out, flush=True)
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstrided playground: stopped", file=out, flush=True)
    finally:
        server.server_close()
    return 0
