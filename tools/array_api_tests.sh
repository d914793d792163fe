#!/usr/bin/env bash
# Run the Array API conformance suite (data-apis/array-api-tests) against strided.array_api.
#
# Not part of CI or the regular test suite. It clones the suite at a pinned commit (with its
# `array-api` spec submodule) unless ARRAY_API_TESTS_DIR points at a checkout, makes or reuses a
# virtual environment with the suite's requirements plus strided, runs the suite with the skips
# in tools/array_api_skips.txt (each with its reason), and prints the pass figure.
#
#   tools/array_api_tests.sh                      # the default: hypothesis's 100 examples a test
#   tools/array_api_tests.sh --max-examples 10    # quicker, while iterating
#   ARRAY_API_TESTS_DIR=/path/to/array-api-tests VENV=/path/to/venv JOBS=8 tools/array_api_tests.sh
#
# Extra arguments go to pytest (e.g. a test file of the suite, -k, --max-examples).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PINNED=55fcc60179efa2680ddd6cd926ddf17b83530e2b
PINNED_SHORT=55fcc60
SUITE="${ARRAY_API_TESTS_DIR:-$REPO/.array-api-tests}"
VENV="${VENV:-$REPO/.array-api-venv}"
JOBS="${JOBS:-auto}"
PYTHON="${PYTHON:-python3}"

if [ ! -d "$SUITE/array_api_tests" ]; then
    echo "cloning array-api-tests at $PINNED_SHORT into $SUITE"
    git clone --recursive https://github.com/data-apis/array-api-tests "$SUITE"
    git -C "$SUITE" checkout "$PINNED"
    git -C "$SUITE" submodule update --init --recursive
fi
have="$(git -C "$SUITE" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)"
[ "$have" = "$PINNED_SHORT" ] || echo "warning: $SUITE is at $have, not the pinned $PINNED_SHORT" >&2

if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q -r "$SUITE/requirements.txt" pytest-xdist
"$VENV/bin/python" -m pip install -q -e "$REPO"

REPORT="$(mktemp -d)/report.json"
cd "$SUITE"
set +e
ARRAY_API_TESTS_MODULE=strided.array_api \
    "$VENV/bin/python" -m pytest array_api_tests/ -p no:cacheprovider -n "$JOBS" -q --tb=no \
    --skips-file "$REPO/tools/array_api_skips.txt" \
    --json-report --json-report-file="$REPORT" --json-report-omit collectors log streams \
    "$@"
status=$?
set -e

"$VENV/bin/python" - "$REPORT" "$REPO/tools/array_api_skips.txt" <<'PY'
import collections, json, sys

report = json.load(open(sys.argv[1]))
# The skips file's second part: tests skipped because the Tensor's operators keep PyTorch's rules
# (deliberate differences). The honest figure counts them as failures.
lines = open(sys.argv[2]).read().split("# ---- deliberate differences", 1)
deliberate = {line.strip() for line in lines[1].splitlines()
              if line.startswith("array_api_tests")} if len(lines) > 1 else set()
counts = collections.Counter(t["outcome"] for t in report["tests"])
passed, failed = counts["passed"], counts["failed"] + counts["error"]
skipped = counts["skipped"] + counts["xfailed"]
ran = passed + failed
groups = collections.Counter(t["nodeid"].split("::")[0].split("/")[-1] for t in report["tests"]
                             if t["outcome"] in ("failed", "error"))
print()
for name, n in groups.most_common():
    print(f"  failing in {name}: {n}")
print(f"array-api-tests: {passed} passed, {failed} failed, {skipped} skipped, {len(report['tests'])} total; "
      f"{100 * passed / max(ran, 1):.1f}% of the {ran} tests run pass")
differ = sum(t["outcome"] == "skipped" and "array_api_tests/" + t["nodeid"].split("array_api_tests/", 1)[-1] in deliberate
             for t in report["tests"])
print(f"  with the {differ} deliberate-difference skips counted as failures: "
      f"{100 * passed / max(ran + differ, 1):.1f}% of {ran + differ} pass")
PY
exit $status
