"""Bootstrap intervals of system ROUGE scores: Perl's random numbers reproduced, and the intervals
equal to what ROUGE-1.5.5 itself prints with -c 95 -r 1000 (the Perl script, run here)."""
from __future__ import annotations

import subprocess
import shutil

import numpy as np
import pytest

from conftest import shared_dataset
import perl_rouge
from metaeval.data.datasets import load_dataset
from metaeval.stats.rouge_bootstrap import perl_resample_indices, rouge_interval
from metaeval.metrics.rouge import parse_measure
from metaeval.stages.scoring import TokenRecord, score_measure
from metaeval.metrics.tokenize import Setting, tokenize_summary
from reference import require


def test_perl_random_numbers():
    require(None if shutil.which("perl") else "perl is not installed", "perl")
    code = "for $s (0, 1, 7) { srand($s); print join(' ', map { int(rand(37)) } 1..25), \"\\n\" }"
    out = subprocess.run(["perl", "-e", code], capture_output=True, text=True, check=True).stdout.split("\n")
    ours = perl_resample_indices(37, 8, 0)
    for row, seed in zip(out, (0, 1, 7)):
        assert [int(x) for x in row.split()] == list(ours[seed, :25])


def test_interval_indexing_and_degenerate_cases():
    iv = rouge_interval(np.full(10, 0.25), 1000, 0.95, 0)
    assert (iv.mean, iv.lower, iv.upper) == (0.25, 0.25, 0.25)
    assert np.isnan(rouge_interval(np.array([]), 1000, 0.95, 0).mean)
    scores = np.linspace(0, 1, 30)
    iv = rouge_interval(scores, resamples=1000, confidence=0.95, seed=0)
    assert iv.lower < iv.mean < iv.upper
    assert rouge_interval(scores, 1000, 0.95, seed=5) != iv   # the seed shifts Perl's seeds


@pytest.mark.reference
def test_intervals_equal_rouge_155(tmp_path):
    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    ds = load_dataset(shared_dataset("summeval"))
    system = sorted({s.summarizer for s in ds.judged() if s.kind == "system"})[5]
    peers = [s for s in ds.judged() if s.summarizer == system][:30]
    items = [(s.sentences, [r.sentences for r in ds.references(s.topic)]) for s in peers]
    data_dir = perl_rouge.build_data_dir(tmp_path / "data")
    for stem, stop in ((1, 0), (0, 1)):
        printed = perl_rouge.run_averages(items, perl_rouge.Options(stem=bool(stem), remove_stopwords=bool(stop),
                                                                    resamples=1000), data_dir)
        setting = Setting(bool(stem), bool(stop))
        records = []
        for k, (s, (peer, refs)) in enumerate(zip(peers, items)):
            # ROUGE-1.5.5 sorts its evaluation ids (1..n here) as strings: use them as topics
            records.append(TokenRecord(str(k + 1), "peer", "system", True, tokenize_summary(peer, setting)))
            records += [TokenRecord(str(k + 1), f"ref{j}", "human", False, tokenize_summary(r, setting))
                        for j, r in enumerate(refs)]
        for m in ("R1", "R2", "RL", "RW", "RSU4"):
            rows = sorted(score_measure(records, parse_measure(m), 0.5, "A", False))   # topic (string) order
            for k, prf in ((2, "P"), (3, "R"), (4, "F")):
                iv = rouge_interval(np.array([r[k] for r in rows]), 1000, 0.95, 0)
                avg, lo, hi = printed[(m, prf)]
                assert (round(iv.resampled_mean, 5), round(iv.lower, 5), round(iv.upper, 5)) == \
                       pytest.approx((avg, lo, hi), abs=1.01e-5), (m, prf, stem, stop)
