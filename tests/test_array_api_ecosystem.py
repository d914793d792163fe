"""scipy and scikit-learn on strided tensors, through the Array API (``strided.array_api``).

scipy reads ``SCIPY_ARRAY_API`` once, when it is first imported, so the calls run in a
subprocess that sets it before importing scipy (the rest of the suite may have imported scipy
already, without it). scikit-learn dispatches with ``sklearn.set_config(array_api_dispatch=True)``.
Each function is called on non-contiguous strided tensors and on the same values as NumPy
arrays: the result must be a strided tensor (or a tuple of them), equal to NumPy's, and the call
must have run through strided's namespace (its ops report ``array_api.<name>`` records).

The functions were picked because they dispatch on the namespace in scipy 1.17 / scikit-learn
1.9 (``xp = array_namespace(x)`` in their source), not because they convert to NumPy.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

_NEEDED = ("scipy", "sklearn", "array_api_compat")
_MISSING = [m for m in _NEEDED if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"needs the test extra: {', '.join(_MISSING)} missing")

_SCRIPT = r'''
import json, os, sys, traceback
assert "scipy" not in sys.modules
import numpy as np
import strided as st
import strided.array_api  # installs Tensor.__array_namespace__
import scipy.special, scipy.stats, scipy.cluster.vq
import sklearn
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.metrics.pairwise import euclidean_distances

rng = np.random.default_rng(0)
raw = rng.standard_normal((6, 20))
X = st.from_numpy(raw.copy()).T              # (20, 6), strides (1, 20): not contiguous
Xn = raw.T.copy()
x = X[::3, 1:5]                              # (7, 4), stepped
xn = Xn[::3, 1:5]
y = st.tensor(np.arange(20) % 2)
yn = np.arange(20) % 2

CASES = {
    "scipy.special.logsumexp": lambda a, b: scipy.special.logsumexp(a, axis=1),
    "scipy.special.softmax": lambda a, b: scipy.special.softmax(a, axis=0),
    "scipy.stats.zscore": lambda a, b: scipy.stats.zscore(a, axis=0),
    "scipy.stats.moment": lambda a, b: scipy.stats.moment(a, order=3, axis=0),
    "scipy.stats.variation": lambda a, b: scipy.stats.variation(a, axis=1),
    "scipy.cluster.vq.whiten": lambda a, b: scipy.cluster.vq.whiten(a),
    "scipy.stats.pearsonr": lambda a, b: scipy.stats.pearsonr(a[:, 0], a[:, 1]).statistic,
    "scipy.stats.ttest_ind": lambda a, b: scipy.stats.ttest_ind(a[:, 0], a[:, 2]).pvalue,
    "sklearn.preprocessing.MinMaxScaler": lambda a, b: MinMaxScaler().fit_transform(a),
    "sklearn.preprocessing.StandardScaler": lambda a, b: StandardScaler().fit(a).transform(a),
    "sklearn.discriminant_analysis.LinearDiscriminantAnalysis":
        lambda a, b: LinearDiscriminantAnalysis().fit(a, b).transform(a),
    "sklearn.metrics.pairwise.euclidean_distances": lambda a, b: euclidean_distances(a[:5], a[5:9]),
    "sklearn.decomposition.PCA": lambda a, b: PCA(3, svd_solver="full").fit_transform(a),  # the linalg extension
}
WHOLE = {"sklearn.preprocessing.MinMaxScaler", "sklearn.preprocessing.StandardScaler",
         "sklearn.discriminant_analysis.LinearDiscriminantAnalysis",
         "sklearn.metrics.pairwise.euclidean_distances", "sklearn.decomposition.PCA"}

out = {}
with sklearn.config_context(array_api_dispatch=True):
    for name, call in CASES.items():
        a, an = (X, Xn) if name in WHOLE else (x, xn)
        records = []
        try:
            with st.dispatch.listen(records.append):
                got = call(a, y)
            want = call(an, yn)
            ok = isinstance(got, st.Tensor) and tuple(got.shape) == np.shape(want)
            close = ok and bool(np.allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12))
            out[name] = {"type": type(got).__name__, "shape_ok": ok, "close": close,
                         "dtype": str(np.asarray(got).dtype), "want_dtype": str(np.asarray(want).dtype),
                         "namespace_ops": sum(r.name.startswith("array_api.") for r in records),
                         "numpy_fallbacks": sorted({r.name for r in records if r.name.startswith("np.")})}
        except Exception:
            out[name] = {"error": traceback.format_exc()}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


CASES = [
    "scipy.special.logsumexp", "scipy.special.softmax", "scipy.stats.zscore", "scipy.stats.moment",
    "scipy.stats.variation", "scipy.cluster.vq.whiten", "scipy.stats.pearsonr", "scipy.stats.ttest_ind",
    "sklearn.preprocessing.MinMaxScaler",
    "sklearn.preprocessing.StandardScaler", "sklearn.discriminant_analysis.LinearDiscriminantAnalysis",
    "sklearn.metrics.pairwise.euclidean_distances", "sklearn.decomposition.PCA",
]


@pytest.mark.parametrize("name", CASES)
def test_library_function_returns_strided_tensors_equal_to_numpys(results, name):
    got = results[name]
    assert "error" not in got, got.get("error")
    assert got["type"] == "Tensor" and got["shape_ok"], got
    assert got["dtype"] == got["want_dtype"], got
    assert got["close"], got
    assert got["namespace_ops"] > 0, got  # it computed through strided.array_api, not np.asarray
    assert got["numpy_fallbacks"] == [], got  # and never handed a tensor to a NumPy function
