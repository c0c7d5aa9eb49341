"""Scale benchmark: the workflow's scoring stage on large simulated data sets.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 25000 50000 100000] [--shard-size 6250]

For each size, a simulated data set with that many summaries (16 systems + 4 judged humans per
topic) is scored by the real workflow (`snakemake results/big/scores/summary_scores.tsv`,
--cores 2) with all 8 ROUGE measures and BLEU under one setting (stemmed, stop words kept; SERA
off, since its retrieval over the whole corpus grows with the square of the data set),
split into topic shards of about --shard-size summaries (config scale.shards). Prints the
wall time of the scoring stage, time per summary, and the peak memory of every kind of job
(from the jobs' logs): the per-shard scoring jobs stay bounded by the shard size while the data
grows; the validation and gathering jobs, which see the whole data set, grow with it.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PER_TOPIC = 20


def run(size: int, shard_size: int, keep: Path | None) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"scale{size}-", dir=keep))
    topics = size // PER_TOPIC
    shards = max(1, round(size / shard_size))
    cfg = {"datasets": {"big": {"format": "simulated", "topics": topics, "systems": 16, "humans": 4, "seed": 7}},
           "rouge": {"stemming": [1], "stopwords_removed": [0]}, "scale": {"shards": shards},
           "sera": {"enabled": False}}   # SERA retrieves over the whole corpus: see docs/performance.md
    (work / "config").mkdir()
    (work / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    base = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(work), "--cores", "2"]
    t0 = time.perf_counter()
    subprocess.run([*base, "results/big/data/summary.tsv"], check=True, capture_output=True)
    t_data = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([*base, "results/big/scores/summary_scores.tsv"], check=True, capture_output=True)
    t_scoring = time.perf_counter() - t0
    peaks: dict[str, float] = {}
    for log in (work / "results/big/logs").glob("*.log"):
        m = re.search(r"peak memory (\d+) MB", log.read_text())
        if m:
            kind = log.name.split("_ST")[0].split(".")[0]
            kind = {"score": "score (per shard)"}.get(kind, kind)     # score_sera is one job
            peaks[kind] = max(peaks.get(kind, 0.0), float(m[1]))
    return {"size": size, "shards": shards, "data": t_data, "scoring": t_scoring, "peaks": peaks}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=[25000, 50000, 100000])
    ap.add_argument("--shard-size", type=int, default=6250)
    a = ap.parse_args()
    base = None
    print(f"{'summaries':>10} {'shards':>6} {'import+validate':>16} {'scoring':>9} {'ms/summary':>10} {'x of first':>10}  peak memory (MB)")
    for size in a.sizes:
        r = run(size, a.shard_size, None)
        per = r["scoring"] / size * 1000
        base = base or per
        peaks = ", ".join(f"{k} {v:.0f}" for k, v in sorted(r["peaks"].items()))
        print(f"{size:>10} {r['shards']:>6} {r['data']:>15.1f}s {r['scoring']:>8.1f}s {per:>10.2f} {per / base:>10.2f}  {peaks}",
              flush=True)


if __name__ == "__main__":
    main()
