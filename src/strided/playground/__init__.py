"""The playground: strided's memory pictures in a local web page (``strided playground``).

- :mod:`.show` — one expression (the ``strided show`` grammar, never ``eval``-ed) as step data;
- :mod:`.peers` — what NumPy and PyTorch would do for a step (from ``strided.explain``);
- :mod:`.tour` — the tour's steps for the page (en / zh);
- :mod:`.sandbox` and :mod:`.child` — the watch view's program, run in a limited child process;
- :mod:`.render` — the HTML fragments, the page and the one-file export (``static/``);
- :mod:`.server` — the bottle app and the threaded loopback server;
- :mod:`.export` — ``strided show "EXPR" --html FILE``.
"""
