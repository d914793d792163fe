"""Who may drive the playground server: the person who started it, and nobody else.

The threat model is Jupyter's, for a local server that runs code:

- **Only the person who started the server can drive it.** The server makes a random token
  (:func:`new_token`: ``secrets.token_urlsafe(32)``, 256 bits) and prints a URL that carries it.
  Opening that URL sets a cookie (``HttpOnly``, ``SameSite=Strict``, named after the port) that
  lets a reload open the page again, and the page sends the token in the ``X-Strided-Token``
  header of every API call: the API takes the header only. A request without the
  right token (compared in constant time) is refused with 403 and nothing runs.
- **Other web pages cannot drive it.** A browser visiting another site can still send requests to
  127.0.0.1. Refused: a ``Host`` that is not the address the server bound (DNS rebinding), an
  ``Origin`` that is not the server's own, a ``Sec-Fetch-Site`` of ``cross-site`` or
  ``same-site`` on the API, and a POST whose body is not ``application/json`` (a cross-site form
  post cannot send JSON without a CORS preflight, which the server never grants: it sends no CORS
  headers at all). No GET changes anything.

Each check is a pure function of the request's method, path and headers, so the server and the
tests share them. :class:`Gate` bundles them for one server (its port and token).

    >>> gate = Gate(port=8000, token="t0k3n")
    >>> gate.refusal("GET", "/api/show", {"Host": "127.0.0.1:8000", "X-Strided-Token": "t0k3n"}) is None
    True
    >>> gate.refusal("GET", "/api/show", {"Host": "evil.example:8000", "X-Strided-Token": "t0k3n"}).status
    403
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie

__all__ = ["TOKEN_HEADER", "Gate", "Refusal", "new_token"]

TOKEN_HEADER = "X-Strided-Token"
"""The request header the page sends the token in."""

LOOPBACK_NAMES = ("127.0.0.1", "localhost")
"""The host names the server answers to (it binds 127.0.0.1 only)."""


def new_token() -> str:
    """A fresh random token: 32 bytes (256 bits) from ``secrets``, URL-safe text."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: the HTTP ``status`` and a one-line ``reason`` for the JSON answer."""

    status: int
    reason: str


@dataclass(frozen=True)
class Gate:
    """The access checks of one playground server, bound to 127.0.0.1:``port`` with ``token``."""

    port: int
    token: str

    @property
    def cookie_name(self) -> str:
        # cookies are shared by every port of a host: one name per server, so two playgrounds
        # on two ports do not overwrite each other's token
        return f"strided-playground-{self.port}"

    def hosts(self) -> set[str]:
        """The ``Host`` values this server answers to (its own address, by IP or by name)."""
        names = {f"{name}:{self.port}" for name in LOOPBACK_NAMES}
        return names | (set(LOOPBACK_NAMES) if self.port == 80 else set())

    def origins(self) -> set[str]:
        """The ``Origin`` values this server's own page sends."""
        return {f"http://{host}" for host in self.hosts()}

    def token_matches(self, candidate: str | None) -> bool:
        """Whether ``candidate`` is the token (constant time; None or empty never matches)."""
        return bool(candidate) and hmac.compare_digest(candidate.encode("utf-8"), self.token.encode("utf-8"))

    def cookie_token(self, headers: Mapping[str, str]) -> str | None:
        """The token the browser's cookie carries for this server, if any."""
        raw = _header(headers, "Cookie")
        if not raw:
            return None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(raw)
        except CookieError:
            return None
        morsel = jar.get(self.cookie_name)
        return morsel.value if morsel is not None else None

    def set_cookie(self) -> str:
        """The ``Set-Cookie`` value that lets the page's own later requests carry the token."""
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def refusal(self, method: str, path: str, headers: Mapping[str, str], *,
                query_token: str | None = None) -> Refusal | None:
        """None when the request may be served; else why not. ``path`` is without the query;
        ``query_token`` is the ``?token=`` of the URL the server printed (accepted for the page only)."""
        for name in _SINGLE:
            if len(_all(headers, name)) > 1:
                return Refusal(400, f"the request repeats its {name} header; send it once")
        host = _header(headers, "Host")
        if host not in self.hosts():
            return Refusal(403, f"this playground answers only to http://127.0.0.1:{self.port}/ (the request's "
                                f"Host is {host!r}): a page of another site cannot drive it")
        origin = _header(headers, "Origin")
        if origin is not None and origin not in self.origins():
            return Refusal(403, f"requests from {origin!r} are refused: only the playground's own page may call it")
        api = path.startswith("/api/")
        site = _header(headers, "Sec-Fetch-Site")
        if api and site in ("cross-site", "same-site"):
            return Refusal(403, f"a {site} request is refused: only the playground's own page may call it")
        # the API takes the header only: the page's script sends it, and a cookie is sent by the
        # browser on its own (to every port of the host, too), which the page needs for a reload only
        tokens = [_header(headers, TOKEN_HEADER)] + ([] if api else [self.cookie_token(headers), query_token])
        if path != "/favicon.ico" and not any(self.token_matches(t) for t in tokens):
            return Refusal(403, "this playground needs its token: open the address `strided playground` printed "
                                "(it ends in ?token=...)")
        if method == "POST":
            kind = (_header(headers, "Content-Type") or "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                return Refusal(415, f"the body must be application/json, not {kind or 'missing'!r}: "
                                    'send {"program": "..."}')
        return None


_SINGLE = ("Host", "Origin", "Sec-Fetch-Site", TOKEN_HEADER, "Cookie", "Content-Type", "Content-Length",
           "Transfer-Encoding")
"""Headers a request may carry once: with two, which one a check reads and which one a later
reader reads could differ (browsers never repeat them)."""


def _all(headers: Mapping[str, str], name: str) -> list[str]:
    """Every value of header ``name`` (an email.message.Message repeats; a dict cannot)."""
    get_all = getattr(headers, "get_all", None)
    if get_all is not None:
        return list(get_all(name) or [])
    value = _header(headers, name)
    return [] if value is None else [value]


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header's value, whatever its case in ``headers`` (an email.message.Message or a dict)."""
    value = headers.get(name)
    if value is None and isinstance(headers, dict):
        value = next((v for k, v in headers.items() if k.lower() == name.lower()), None)
    return value
