"""Scoring benchmark: metaeval vs ROUGE-1.5.5 (Perl) vs rouge-score, in one run.

    .venv/bin/python benchmarks/bench_scoring.py [--dataset ../shared/data/summeval]
                                                 [--perl-summaries N] [--copies 1 4 16]

1. metaeval scores every judged summary with all 8 measures (R1 R2 R3 R4 RL RW RS4 RSU4) x 4
   settings (stemming x stop words), -f A, in a child process: wall time and peak memory (max RSS).
2. ROUGE-1.5.5 scores the same summaries with the same measures and settings (four runs of the Perl
   script, -f A, one bootstrap sample); every per-summary value is compared with ours.
3. rouge-score on what it supports (ROUGE-1/2/L, Porter stemming; ``score_multi`` over the
   references) against metaeval's R1/R2/RL with stemming on the same summaries.
4. Linearity: metaeval on the data set repeated 1x, 4x, 16x (topics copied under new ids).
5. End to end through the workflow: ``snakemake results/<d>/scores/summary_scores.tsv`` in a fresh
   folder (validation, the four scoring jobs, gathering; SERA off, BLEU on), wall time and its
   ratio to ROUGE-1.5.5's run above (which scores ROUGE only).

Each tool runs in its own child process; its peak memory is that child's max RSS (os.wait4).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ["R1", "R2", "R3", "R4", "RL", "RW", "RS4", "RSU4"]
SETTINGS = [(0, 0), (0, 1), (1, 0), (1, 1)]
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "summeval"


def _load(path: str, copies: int = 1, subset: int | None = None):
    from metaeval.data.datasets import Dataset, Summary, load_dataset

    ds = load_dataset(path)
    if subset:
        keep = set(random.Random(0).sample(sorted(ds.judgments), subset))
        judgments = {k: v for k, v in ds.judgments.items() if k in keep}
        ds = Dataset(ds.name, ds.meta, ds.dimensions, ds.human, ds.summaries, judgments, ds.documents)
    if copies == 1:
        return ds
    summaries = [Summary(f"{s.topic}#{c}", s.summarizer, s.kind, s.sentences) for c in range(copies) for s in ds.summaries]
    judgments = {(f"{t}#{c}", s): v for c in range(copies) for (t, s), v in ds.judgments.items()}
    return Dataset(ds.name, ds.meta, ds.dimensions, ds.human, summaries, judgments, ds.documents)


def worker_ours(path: str, copies: int, subset: int | None, measures: list[str], settings: list[tuple[int, int]],
                out: str | None) -> dict:
    from metaeval.metrics.rouge import parse_measure
    from metaeval.stages.scoring import score_dataset
    from metaeval.metrics.tokenize import Setting

    ds = _load(path, copies, subset)
    t0 = time.perf_counter()
    parts = score_dataset(ds, [parse_measure(m) for m in measures], [Setting(bool(a), bool(b)) for a, b in settings])
    wall = time.perf_counter() - t0
    if out:
        Path(out).write_text(json.dumps({f"{m}|{a}|{b}": rows for (m, a, b), rows in parts.items()}))
    return {"wall": wall, "summaries": len(ds.judgments)}


def worker_perl(path: str, subset: int | None, out: str) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))   # the reference runner
    import perl_rouge

    ds = _load(path, 1, subset)
    items, keys = [], []
    for s in ds.judged():
        items.append((s.sentences, [r.sentences for r in ds.references(s.topic)]))
        keys.append(s.key)
    with tempfile.TemporaryDirectory() as tmp:
        data = perl_rouge.build_data_dir(Path(tmp) / "data")
        t0 = time.perf_counter()
        results = {}
        for stem, stop in SETTINGS:
            res = perl_rouge.run(items, perl_rouge.Options(stem=bool(stem), remove_stopwords=bool(stop)), data,
                                 Path(tmp) / f"w{stem}{stop}")
            for (m, i), prf in res.items():
                results[f"{m}|{stem}|{stop}|{keys[i][0]}|{keys[i][1]}"] = prf
        wall = time.perf_counter() - t0
    Path(out).write_text(json.dumps(results))
    return {"wall": wall, "summaries": len(items)}


def worker_rouge_score(path: str, subset: int | None) -> dict:
    from rouge_score import rouge_scorer

    ds = _load(path, 1, subset)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    t0 = time.perf_counter()
    n = 0
    for s in ds.judged():
        scorer.score_multi([" ".join(r.sentences) for r in ds.references(s.topic)], " ".join(s.sentences))
        n += 1
    return {"wall": time.perf_counter() - t0, "summaries": n}


def scoring_through_snakemake(dataset: str) -> float:
    """Wall time of the workflow's scoring target on ``dataset`` in a fresh folder (SERA off)."""
    import yaml

    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "config").mkdir()
        (Path(tmp) / "config/config.yaml").write_text(yaml.safe_dump(
            {"datasets": {"d": {"format": "canonical", "path": str(Path(dataset).resolve())}},
             "sera": {"enabled": False}}))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "-d", tmp, "--cores", "2",
                        "results/d/scores/summary_scores.tsv", "--quiet"], check=True, capture_output=True)
        return time.perf_counter() - t0


def run_child(args: list[str]) -> dict:
    """Run this script as a worker in a child process; return its report plus its peak RSS."""
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{stderr.decode()[-3000:]}")
    report = json.loads(stdout.decode().strip().splitlines()[-1])
    report["peak_mb"] = usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default=str(DEFAULT_DATA))
    ap.add_argument("--perl-summaries", type=int, default=None,
                    help="score only this many (random, seeded) summaries in the comparison with ROUGE-1.5.5 "
                         "(default: all)")
    ap.add_argument("--copies", type=int, nargs="*", default=[1, 4, 16])
    ap.add_argument("--worker", choices=["ours", "perl", "rouge_score"], help=argparse.SUPPRESS)
    ap.add_argument("--measures", nargs="*", default=MEASURES, help=argparse.SUPPRESS)
    ap.add_argument("--settings", default="00,01,10,11", help=argparse.SUPPRESS)
    ap.add_argument("--copies-one", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--subset", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    settings = [(int(s[0]), int(s[1])) for s in a.settings.split(",")]
    if a.worker == "ours":
        print(json.dumps(worker_ours(a.dataset, a.copies_one, a.subset, a.measures, settings, a.out)))
        return
    if a.worker == "perl":
        print(json.dumps(worker_perl(a.dataset, a.subset, a.out)))
        return
    if a.worker == "rouge_score":
        print(json.dumps(worker_rouge_score(a.dataset, a.subset)))
        return

    if not Path(a.dataset).exists():
        sys.exit(f"{a.dataset} not found: pass --dataset")
    subset = ["--subset", str(a.perl_summaries)] if a.perl_summaries else []
    print(f"data set: {a.dataset}")
    run_child(["--worker", "ours", "--dataset", a.dataset, "--measures", "R1", "--settings", "00"])  # JIT cache warm-up
    with tempfile.TemporaryDirectory() as tmp:
        ours = run_child(["--worker", "ours", "--dataset", a.dataset, "--out", f"{tmp}/ours.json", *subset])
        perl = run_child(["--worker", "perl", "--dataset", a.dataset, "--out", f"{tmp}/perl.json", *subset])
        ours_vals = json.loads(Path(f"{tmp}/ours.json").read_text())
        perl_vals = json.loads(Path(f"{tmp}/perl.json").read_text())
    compared = differ = 0
    for key, rows in ours_vals.items():
        for t, s, p, r, f in rows:
            compared += 1
            differ += perl_vals[f"{key}|{t}|{s}"] != [p, r, f]
    workflow = scoring_through_snakemake(a.dataset) if not a.perl_summaries else None
    rs_ours = run_child(["--worker", "ours", "--dataset", a.dataset, "--measures", "R1", "R2", "RL", "--settings", "10", *subset])
    rs = run_child(["--worker", "rouge_score", "--dataset", a.dataset, *subset])

    n = ours["summaries"]
    print(f"\n8 measures x 4 settings, -f A, {n} judged summaries:")
    print(f"  metaeval       {ours['wall']:8.2f} s   peak {ours['peak_mb']:7.0f} MB")
    print(f"  ROUGE-1.5.5    {perl['wall']:8.2f} s   peak {perl['peak_mb']:7.0f} MB   (Perl, 4 runs)")
    print(f"  speed-up       {perl['wall'] / ours['wall']:8.1f} x")
    print(f"  agreement      {compared - differ} of {compared} (P, R, F) triples identical at 5 decimals")
    if workflow is not None:
        print(f"  through the workflow (snakemake, fresh folder, validation + scoring + gathering, BLEU too): "
              f"{workflow:.2f} s -> {perl['wall'] / workflow:.1f} x ROUGE-1.5.5")
    print(f"\nROUGE-1/2/L with stemming, {rs['summaries']} summaries (what rouge-score supports):")
    print(f"  metaeval       {rs_ours['wall']:8.2f} s   peak {rs_ours['peak_mb']:7.0f} MB")
    print(f"  rouge-score    {rs['wall']:8.2f} s   peak {rs['peak_mb']:7.0f} MB")
    print(f"  speed-up       {rs['wall'] / rs_ours['wall']:8.1f} x")
    print("\nlinearity (metaeval, 8 measures x 4 settings):")
    base = None
    for c in a.copies:
        r = run_child(["--worker", "ours", "--dataset", a.dataset, "--copies-one", str(c)])
        per = r["wall"] / r["summaries"] * 1000
        base = base or per
        print(f"  {c:3d}x  {r['summaries']:7d} summaries  {r['wall']:8.2f} s  {per:6.3f} ms/summary "
              f"(x{per / base:4.2f} of 1x)  peak {r['peak_mb']:7.0f} MB")


if __name__ == "__main__":
    main()
