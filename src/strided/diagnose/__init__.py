"""Diagnostics: readers of the layout algebra's plans and refusals and of the op records.

- :mod:`.dims` — how a reshape's output dims map onto its input dims (split, merge, regroup);
- :mod:`.report` — :class:`Explanation`, what ``explain`` returns;
- :mod:`.flow` — the records ``watch`` and ``watch_torch`` keep, and their table.

This layer sits above ``tensor`` and ``ops`` and never holds a second copy of a rule: every
"why" comes from a plan or a refusal of :mod:`strided.layout`. PyTorch is imported only inside
the functions that need it.
"""
