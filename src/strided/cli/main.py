"""Entry point of the ``strided`` console script (the commands are being built: issue 9)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the ``strided`` command line; returns the exit code."""
    args = sys.argv[1:] if argv is None else argv
    print("strided: commands to come (tour, show, explain, watch)", file=sys.stderr)
    return 2 if args else 0


if __name__ == "__main__":
    raise SystemExit(main())
