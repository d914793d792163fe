"""The playground: strided's memory pictures in a local web page (``strided playground``).

- :mod:`.show` — one expression (the ``strided show`` grammar, never ``eval``-ed) as step data;
- :mod:`.peers` — what NumPy and PyTorch would do for a step (from ``strided.explain``);
- :mod:`.tour` — the tour's steps for the page (en / zh);
- :mod:`.boundary` — the OS boundary around a pasted program (bubblewrap namespaces + seccomp);
- :mod:`.sandbox` and :mod:`.child` — the watch view's program, run in a child process behind it;
- :mod:`.render` — the HTML fragments, the page and the one-file export (``static/``);
- :mod:`.access` — who may drive the server (the token, Host and Origin checks: the threat model);
- :mod:`.server` — the threaded loopback HTTP server (the standard library's ``http.server``);
- :mod:`.limits` — the size cap shared by the expression view and its peers;
- :mod:`.export` — ``strided show "EXPR" --html FILE``.
"""
