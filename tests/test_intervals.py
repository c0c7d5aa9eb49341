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


def test_a_score_equal_on_every_topic_draws_its_interval_and_says_so(tmp_path, caplog):
    """A system whose ROUGE score is 1/3 on every one of 10 topics: its bootstrap bounds are means of
    equal numbers summed in draw order, 0.33333333333333337, a rounding error above the mean
    0.3333333333333333; matplotlib refused the negative bar and the job failed. The tables keep both
    values as computed; the figure draws a zero-length bar and the log says so."""
    from metaeval import tables
    from metaeval.records import IntervalOptions
    from metaeval.stages import intervals

    per = {(s, "R1", 0, 0): [(f"t{k}", {"P": 1 / 3, "R": 1 / 3, "F": 1 / 3}) for k in range(10)] for s in ("a", "b")}
    options = IntervalOptions(1000, 0.95, 0, ("R1_ST0_RS0_A_F",))
    rows = intervals.compute(per, options)
    out = {k: str(tmp_path / f) for k, f in (("table", "t.tsv"), ("markdown", "t.md"), ("figure_png", "f.png"),
                                             ("figure_svg", "f.svg"))}
    with caplog.at_level("INFO", logger="metaeval"):
        intervals.write(rows, options, out)
    table = tables.read_tsv(out["table"], numeric=("score", "lower", "upper"))
    f = table[table.variant == "R1_ST0_RS0_A_F"]
    assert f.score.tolist() == [1 / 3, 1 / 3] and f.lower.tolist() == [0.33333333333333337] * 2
    assert "intervals figure, R1_ST0_RS0_A_F: 2 of 4 error bars drawn with zero length: the value lies outside " \
           "its interval by at most 5.55e-17" in caplog.text
    assert (tmp_path / "f.png").stat().st_size > 0


def test_error_bars_are_clamped_at_zero_length():
    """By hand: a value a rounding error below its interval gets a zero-length lower bar; an
    ordinary interval its two distances; NaN no bar."""
    from metaeval import figures

    bars = figures.error_bars([1 / 3, 0.5, np.nan], [0.33333333333333337, 0.25, np.nan], [0.33333333333333337, 0.75, 1],
                              "test figure")
    assert bars[:, :2].tolist() == [[0.0, 0.25], [0.33333333333333337 - 1 / 3, 0.25]]
    assert np.isnan(bars[:, 2]).all()
