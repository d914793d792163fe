"""The ``strided`` command: ``tour``, ``show``, ``explain``, ``watch`` (the top layer)."""
