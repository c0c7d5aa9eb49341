"""Every dimension a target: what answering per dimension costs, against the run for Graham's combinations alone.

    .venv/bin/python benchmarks/bench_targets.py [--before 6864522]
    .venv/bin/python benchmarks/bench_targets.py --tables results/summeval   # docs/benchmarks.md's tables

SummEval from the release (``summeval_jsonl``: the 12 per-annotator files in
../shared/data/raw/summeval-official; 12 systems x 100 articles, 3 experts and 5 crowd workers)
runs cold, main job, ``--cores 2``, in fresh working directories, in one session:

* ``before``: the commit before targets existed (``--before``; a git worktree with its own config):
  today's run, for Graham's combinations alone;
* ``combinations``: this tree with ``human_scores.dimensions: false`` (the combinations alone);
* ``4 dimensions``: this tree with the entry's ``targets: {dimensions: [coherence, consistency,
  fluency, relevance]}`` (the expert dimensions plus Graham's 5 combinations: the issue's budget);
* ``every target``: this tree with its defaults (Graham's 5 combinations and all 8 dimensions: the
  expert ones and the crowd's ``turker_*``).

numba's cache is warmed first by a run of the small scenario in each tree (bench_pipeline.warm).
Printed: wall time, its ratio to ``before`` (the budget is at most 1.5x), the number of jobs, the
largest peak memory of any job (the budget is at most 1 GB), and per stage the sum of its jobs' own
times (bench_pipeline.STAGES).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import checkout, run_config, warm  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
BEFORE = "6864522"       # the metric-family registry landed, the targets not started
RAW = REPO.parent / "shared" / "data" / "raw" / "summeval-official"
EXPERT = ["coherence", "consistency", "fluency", "relevance"]


def entry() -> dict:
    return {"format": "summeval_jsonl", "paths": sorted(str(p) for p in RAW.glob("M*_outputs_annotations.jsonl"))}


def run(code: Path, workdir: Path, changes: dict) -> dict:
    """The main job of ``code`` on SummEval's release with ``changes`` merged into its config."""
    cfg = yaml.safe_load((code / "config/config.yaml").read_text())
    cfg["datasets"] = {"summeval": {**entry(), **changes.get("entry", {})}}
    for section, values in changes.get("sections", {}).items():
        cfg[section] = {**cfg.get(section, {}), **values}
    out = run_config(code, workdir, cfg, "summeval")
    out["peak"] = max((mb for _, mb in out["stages"].values()), default=0.0)
    targets = workdir / "results/summeval/human/targets.tsv"
    out["targets"] = len(targets.read_text().splitlines()) - 1 if targets.exists() else None
    return out


SHOWN = ["R1_ST1_RS0_A_F", "R2_ST1_RS0_A_F", "R4_ST1_RS0_A_F", "RL_ST1_RS0_A_F", "RSU4_ST1_RS0_A_F", "RW_ST1_RS0_A_F",
         "BLEU_ST1_RS0", "CHRF", "CHRF++"]


def dimension_tables(results: Path) -> str:
    """One Markdown table per expert dimension (docs/benchmarks.md): the best variant and the shown
    metrics, with system-level Pearson r [95% CI], Spearman, Kendall tau-b, and the summary-level
    Kendall tau-b (within each article, averaged)."""
    sys.path.insert(0, str(REPO / "src"))
    from metaeval import tables

    corr = tables.read_tsv(results / "analysis/correlations.tsv", numeric=("pearson",))
    level = tables.read_tsv(results / "analysis/summary_level_correlations.tsv")
    out = []
    for d in EXPERT:
        mine = corr[corr["combination"] == d].set_index("variant")
        best = mine["pearson"].idxmax()
        summary = level[level["combination"] == d].set_index("metric")["kendall"]
        rows = []
        for v in dict.fromkeys([best, *SHOWN]):
            if v not in mine.index:
                continue
            r = mine.loc[v]
            metric = v if v.startswith("CHRF") else "_".join(v.split("_")[:3]) + ("_" + v.split("_")[-1] if v[0] == "R" else "")
            tau = summary.get(metric.replace("_A_", "_"), "NA")
            rows.append(f"| {v}{' (best r)' if v == best else ''} | {tables.fixed(r['pearson'])} "
                        f"[{tables.fixed(r['pearson_lo'])}, {tables.fixed(r['pearson_hi'])}] | {tables.fixed(r['spearman'])} "
                        f"| {tables.fixed(r['kendall'])} | {tables.fixed(tau)} |")
        out.append(f"**{d}** (experts' mean; 12 systems)\n\n| metric | system r [95% CI] | system rho | system tau "
                   "| summary tau |\n|---|---|---|---|---|\n" + "\n".join(rows))
    return "\n\n".join(out)


RUNS = {
    "combinations": {"sections": {"human_scores": {"dimensions": False}}},
    "4 dimensions": {"entry": {"targets": {"dimensions": EXPERT}}},
    "every target": {},
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--tables", type=Path, help="print docs/benchmarks.md's per-dimension tables from this results folder")
    args = ap.parse_args()
    if args.tables:
        print(dimension_tables(args.tables))
        return 0
    if not RAW.exists():
        print(f"{RAW} is absent: nothing to measure")
        return 0
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp, checkout(args.before, Path(tmp) / "before") as before:
        tmp = Path(tmp)
        for code in (before, REPO):
            warm(code, tmp)
        results["before"] = run(before, tmp / "run-before", {})
        print(f"[before {args.before}] {results['before']['wall']:.1f} s", flush=True)
        for name, changes in RUNS.items():
            results[name] = run(REPO, tmp / f"run-{name.replace(' ', '_')}", changes)
            print(f"[{name}] {results[name]['wall']:.1f} s", flush=True)
    base = results["before"]["wall"]
    print()
    print("| run | targets | wall (s) | vs before | jobs | peak memory of any job (MB) |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['targets'] or '5 (combinations)'} | {r['wall']:.1f} | {r['wall'] / base:.2f}x | "
              f"{r['jobs']} | {r['peak']:.0f} |")
    print()
    for name, r in results.items():
        print(f"{name}, per stage (sum of job times s / peak MB):",
              ", ".join(f"{s} {v[0]:.1f}/{v[1]:.0f}" for s, v in sorted(r["stages"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
