"""The Williams test against known values and against R's psych::r.test itself."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from metaeval.stats.williams import adjust, assign_clusters, optimal, williams_matrix, williams_test
from reference import require


def test_known_value_from_psych_2_2_9():
    # R psych 2.2.9: r.test(n=50, r12=.65, r13=.55, r23=.30, twotailed=FALSE)$p
    assert float(williams_test(0.65, 0.55, 0.30, 50)) == pytest.approx(0.20928617286753587, abs=1e-12)


def test_worked_example_from_data():
    h = np.array([1, 2, 3, 4, 5.0])
    a = np.array([1.1, 2, 3.1, 4, 5.1])
    b = np.array([1.5, 2, 3.1, 4, 5.5])
    c = np.corrcoef([h, a, b])
    assert float(williams_test(c[0, 1], c[0, 2], c[1, 2], 5)) == pytest.approx(0.0191, abs=5e-5)


def test_direction_and_undefined_cases():
    assert float(williams_test(0.5, 0.5, 0.4, 20)) == 0.5       # equal correlations: t = 0
    assert float(williams_test(0.3, 0.6, 0.4, 20)) > 0.5        # wrong direction: not significant
    with pytest.raises(ValueError, match="at least 4 systems"):
        williams_test(0.9, 0.5, 0.4, 3)


def _random_cases(rng: np.random.Generator, count: int):
    cases = []
    while len(cases) < count:
        n = int(rng.integers(5, 200))
        x = rng.normal(size=(n, 3)) @ rng.normal(size=(3, 3))
        c = np.corrcoef(x, rowvar=False)
        cases.append((n, float(c[0, 1]), float(c[0, 2]), float(c[1, 2])))
    return cases


def test_a_pair_alone_equals_its_cell_of_a_matrix_bit_for_bit():
    """williams_test of scalars and of arrays take one numerical path (numpy's scalar ** 3 and
    array ** 3 can differ in the last bit), so a pair tested alone equals its cell of
    williams_matrix exactly; the factuality stage relies on it."""
    rng = np.random.default_rng(3)
    human = rng.normal(size=1200)
    metrics = human * rng.uniform(0, 1, size=(40, 1)) + rng.normal(size=(40, 1200)) + rng.normal(size=1200)
    c = np.corrcoef(np.vstack([metrics, human]))
    h, mm = c[:-1, -1], c[:-1, :-1]
    p = williams_matrix(h, mm, 1200)
    assert np.isfinite(p[~np.eye(40, dtype=bool)]).all()
    for i in range(40):
        for j in range(40):
            if i != j:
                assert float(williams_test(h[i], h[j], mm[i, j], 1200)) == p[i, j]
                assert float(williams_test(float(h[i]), float(h[j]), float(mm[i, j]), 1200)) == p[i, j]


def test_against_r_psych(tmp_path):
    require(None if shutil.which("Rscript") else "Rscript is not installed (Debian: r-base-core, r-cran-psych)",
            "R psych::r.test")
    if subprocess.run(["Rscript", "-e", "library(psych)"], capture_output=True).returncode != 0:
        require("the R package psych is not installed (Debian: r-cran-psych)", "R psych::r.test")
    cases = _random_cases(np.random.default_rng(59), 300)
    csv = tmp_path / "cases.csv"
    csv.write_text("n,r12,r13,r23\n" + "".join(f"{n},{a!r},{b!r},{c!r}\n" for n, a, b, c in cases))
    script = ('suppressMessages(library(psych)); d <- read.csv(commandArgs(TRUE)[1]);'
              'p <- mapply(function(n, a, b, c) r.test(n=n, r12=a, r13=b, r23=c, twotailed=FALSE)$p, d$n, d$r12, d$r13, d$r23);'
              'cat(sprintf("%.17g", p), sep="\\n")')
    out = subprocess.run(["Rscript", "-e", script, str(csv)], capture_output=True, text=True, check=True).stdout.split()
    r_p = np.array([float(x) for x in out])
    ours = np.array([float(williams_test(a, b, c, n)) for n, a, b, c in cases])
    # psych reports P(T >= |t|); ours is directional, P(T >= t): equal when r12 >= r13
    forward = np.array([a >= b for _, a, b, _ in cases])
    assert forward.sum() > 100 and (~forward).sum() > 100
    np.testing.assert_allclose(ours[forward], r_p[forward], rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours[~forward], 1 - r_p[~forward], rtol=0, atol=1e-10)


def test_matrix_optimal_and_clusters():
    h = np.array([0.9, 0.85, 0.5, np.nan])     # metric 3 is constant: r undefined
    # 0 vs 1: a small difference between weakly related metrics (p = 0.16); 2 is beaten by both
    mm = np.array([[1, 0.7, 0.4, np.nan], [0.7, 1, 0.45, np.nan], [0.4, 0.45, 1, np.nan], [np.nan] * 4])
    p = williams_matrix(h, mm, 30)
    assert np.isnan(np.diag(p)).all() and np.isnan(p[3]).all() and np.isnan(p[:, 3]).all()
    assert p[0, 2] < 0.05 and p[2, 0] > 0.5
    opt = optimal(p, 0.05, ~np.isnan(h))
    assert opt.tolist() == [True, True, False, False]
    clusters = assign_clusters(p, np.array([0, 1, 2]), 0.05)
    assert clusters[:3].tolist() == [1, 1, 2]
    assert (adjust(p, "holm")[~np.isnan(p)] >= p[~np.isnan(p)]).all()
    assert np.array_equal(adjust(p, None), p, equal_nan=True)
