"""Bootstrap-interval benchmark: ROUGE-1.5.5's -c 95 -r 1000 intervals of one system's scores.

    .venv/bin/python benchmarks/bench_intervals.py [--summaries 100]

Runs ROUGE-1.5.5 itself (Perl) on one SummEval system's summaries with -r 1 and with -r 1000; the
difference is what its bootstrap costs (4 n-gram sizes, L, W, SU4 x P/R/F). In the same run,
metaeval's vectorised reproduction of that bootstrap on the same per-summary scores; checks that
the intervals are equal at 5 decimals and prints the ratio. Needs Perl with XML::DOM and
../shared/data/summeval.
"""
from __future__ import annotations

import argparse
import tempfile
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))   # the reference runner
import perl_rouge  # noqa: E402
from metaeval.data.datasets import load_dataset
from metaeval.stats.rouge_bootstrap import rouge_interval
from metaeval.metrics.rouge import parse_measure
from metaeval.stages.scoring import TokenRecord, score_measure
from metaeval.metrics.tokenize import Setting, tokenize_summary

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--summaries", type=int, default=100)
    args = ap.parse_args()
    ds = load_dataset(REPO.parent / "shared/data/summeval")
    system = sorted({s.summarizer for s in ds.judged() if s.kind == "system"})[0]
    peers = [s for s in ds.judged() if s.summarizer == system][:args.summaries]
    items = [(s.sentences, [r.sentences for r in ds.references(s.topic)]) for s in peers]
    with tempfile.TemporaryDirectory() as tmp:
        data = perl_rouge.build_data_dir(Path(tmp) / "data")
        t = time.perf_counter()
        perl_rouge.run_averages(items, perl_rouge.Options(stem=True, resamples=1), data)
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        printed = perl_rouge.run_averages(items, perl_rouge.Options(stem=True, resamples=1000), data)
        t1000 = time.perf_counter() - t
    setting = Setting(True, False)
    records = []
    for k, (peer, refs) in enumerate(items):
        records.append(TokenRecord(str(k + 1), "peer", "system", True, tokenize_summary(peer, setting)))
        records += [TokenRecord(str(k + 1), f"r{j}", "human", False, tokenize_summary(r, setting)) for j, r in enumerate(refs)]
    scores = {m: sorted(score_measure(records, parse_measure(m), 0.5, "A", False))
              for m in ("R1", "R2", "R3", "R4", "RL", "RW", "RSU4")}
    t = time.perf_counter()
    ours = {(m, prf): rouge_interval(np.array([r[k] for r in rows]), 1000, 0.95, 0)
            for m, rows in scores.items() for k, prf in ((2, "P"), (3, "R"), (4, "F"))}
    t_ours = time.perf_counter() - t
    equal = sum(1 for key, iv in ours.items()
                if np.allclose((iv.resampled_mean, iv.lower, iv.upper), printed[key], atol=1.01e-5))
    print(f"{len(items)} summaries, {len(ours)} intervals (7 measures x P/R/F), 1000 resamples")
    print(f"ROUGE-1.5.5 bootstrap (run with -r 1000 minus run with -r 1): {t1000 - t1:.2f} s "
          f"({t1000:.2f} s - {t1:.2f} s)")
    print(f"metaeval: {t_ours:.3f} s  -> {(t1000 - t1) / t_ours:.0f}x; equal at 5 decimals: {equal}/{len(ours)}")


if __name__ == "__main__":
    main()
