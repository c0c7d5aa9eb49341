"""Judging a new metric on the benchmarks, timed step by step in one sitting: texts out, the full run
with one score file on every benchmark of the catalog (``benchmarks: all``, as README task 1) and on
the seven of before (SummEval, REALSumm, Newsroom, QAGS-CNN, QAGS-XSum, Rank19, FRANK), the re-run
after a second metric joins the file, and the full run of the commit before the leaderboard without
a score file (the budgets: all / seven <= 1.4; re-run <= 0.35 x full run; full run of the seven with a
score file <= the old run without one).

    .venv/bin/python benchmarks/bench_leaderboard.py [--before-commit 1264e24] [--before skip]
    .venv/bin/python benchmarks/bench_leaderboard.py --against main [--rounds 3]

Every run is cold (a fresh working directory, a fork server of its own), ``--cores 2``, as a user
runs it: the tree's own config/config.yaml, with .test/config/benchmarks.yaml (the catalog's
benchmarks, fetched from a loopback mirror of ../shared/data/raw into an empty cache; in a tree
before the catalog its paths made absolute), or a file naming the seven, and the score file's config
as ``--configfile`` (so the old tree runs its embedded simulated data set too, as it did for every
user; the new one leaves it out). The metrics are computed from ``results/to_score/{dataset}.jsonl``
as a user's code would: the summary's length in words over the mean length of its references (of its
source where a release has none: SummEdits; ``length_ratio``) and the share of the summary's word
types found in its source (``source_overlap``; NA where a data set has no source). The seven's score
file holds their rows alone (a row naming a data set that is not configured stops a run).

``--against REV`` compares the loop of this tree with the loop of another revision instead, in one
sitting: ``--rounds`` rounds, each running both trees' loops (texts out, full run, re-run) one
after the other, alternating which goes first; it prints each step's median for each tree and
their ratio, and what the jobs' memos hold after this tree's re-run (entries, bytes, and the time
to read and digest them all, as the memo does when it verifies them).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench_pipeline import checkout

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import mirror  # noqa: E402 (tests/mirror.py: the release files served from 127.0.0.1)

REPO = Path(__file__).resolve().parents[1]
BEFORE = "1264e24"            # the last commit before the leaderboard
SEVEN = ["summeval", "realsumm", "newsroom", "qags_cnn", "qags_xsum", "rank19", "frank"]
RAW = REPO.parent / "shared" / "data" / "raw"


def setup(code: Path, workdir: Path) -> Path:
    """``workdir`` with ``code``'s config/config.yaml, and ``code``'s benchmarks' config file beside it."""
    (workdir / "config").mkdir(parents=True)
    shutil.copy(code / "config/config.yaml", workdir / "config/config.yaml")
    bench = workdir / "benchmarks.yaml"
    bench.write_text(yaml.safe_dump(benchmarks_config(code)))
    return bench


def benchmarks_config(code: Path) -> dict:
    """``code``'s .test/config/benchmarks.yaml: the catalog's names (fetched), or, in a tree before the
    catalog, its entries with their paths made absolute (the runs are in other folders)."""
    cfg = yaml.safe_load((code / ".test/config/benchmarks.yaml").read_text())
    for entry in cfg.get("datasets", {}).values():
        if "path" in entry:
            entry["path"] = str((REPO / entry["path"]).resolve())
        if "paths" in entry:
            entry["paths"] = [str((REPO / p).resolve()) for p in entry["paths"]]
    return cfg


CPU: dict[Path, list[float]] = {}   # each working directory's runs: CPU seconds of Snakemake and every job


def snakemake(code: Path, workdir: Path, *args: str, env: dict | None = None) -> float:
    """One cold run of ``code``'s workflow in ``workdir``: its wall time. Its CPU time (user + system
    of the run and every process it waited for, the fork server's jobs included) goes to ``CPU``:
    on a machine shared with other work the wall time grows with the load, the CPU time hardly."""
    import resource

    servers = tempfile.mkdtemp(prefix="fs")
    env = {**(env or os.environ), "PYTHONPATH": str(code / "src"), "METAEVAL_FORKSERVER_DIR": servers}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(code / "Snakefile"), "-d", str(workdir), "--cores",
                    "2", *args, "--quiet"], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(workdir, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    shutil.rmtree(servers, ignore_errors=True)
    return wall


def words(text: str) -> list[str]:
    return text.lower().split()


def score(record: dict, metric: str) -> float | None:
    """The two example metrics of one to_score record (None: not defined for it)."""
    if record["summary"] is None:               # a data set without texts (FRANK)
        return None
    summary = words(record["summary"])
    if metric == "length_ratio":
        texts = record["references"] or ([record["source"]] if isinstance(record["source"], str) else
                                          record["source"] or [])
        refs = [len(words(r)) for r in texts if r]
        return len(summary) / (sum(refs) / len(refs)) if refs and sum(refs) else None
    source = record["source"]
    source = " ".join(source) if isinstance(source, list) else source
    if not source or not summary:
        return None
    vocabulary = set(words(source))
    return sum(w in vocabulary for w in set(summary)) / len(set(summary))


def write_scores(texts: Path, path: Path, metrics: list[str], datasets: list[str] | None = None) -> int:
    """The score file (dataset, topic, summarizer, metric, score) of ``metrics`` for every record of
    every ``texts/*.jsonl`` (of ``datasets``' alone when given); its number of rows."""
    rows = ["dataset\ttopic\tsummarizer\tmetric\tscore"]
    for f in sorted(texts.glob("*.jsonl")):
        if datasets is not None and f.stem not in datasets:
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for m in metrics:
                value = score(record, m)
                if value is not None:
                    rows.append(f"{record['dataset']}\t{record['topic']}\t{record['summarizer']}\t{m}\t{value!r}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return len(rows) - 1


def loop(code: Path, work: Path, env: dict) -> dict[str, float]:
    """The loop of ``code``'s workflow in a fresh ``work`` folder (``env``: the mirror and an empty cache
    of its own): texts out (the fetch included), the full run with a score file of one metric, the
    re-run after a second joins; each step's wall time."""
    bench = setup(code, work)
    times = {"texts out (to_score)": snakemake(code, work, "to_score", "--configfile", str(bench), env=env)}
    scores = work / "my_scores.tsv"
    n = write_scores(work / "results/to_score", scores, ["length_ratio"])
    print(f"score file: {n} rows of length_ratio", flush=True)
    mine = work / "my.yaml"
    mine.write_text(yaml.safe_dump({"metric_scores": [str(scores)],
                                    "leaderboard": {"focus": ["length_ratio", "source_overlap"]}}))
    times["full run with the score file"] = snakemake(code, work, "--configfile", str(bench), str(mine), env=env)
    print(f"full run: {times['full run with the score file']:.1f} s", flush=True)
    n = write_scores(work / "results/to_score", scores, ["length_ratio", "source_overlap"])
    print(f"score file: {n} rows with source_overlap added", flush=True)
    times["re-run after adding a metric"] = snakemake(code, work, "--configfile", str(bench), str(mine), env=env)
    return times


def memo_contents(results: Path) -> tuple[int, int, float]:
    """(entries, bytes, seconds to read every file of every entry and take its SHA-256) of the jobs'
    memos under ``results``."""
    import hashlib

    entries = [e for e in results.glob("*/memo/*/*") if e.is_dir()]
    size, t = 0, time.perf_counter()
    for entry in entries:
        h = hashlib.sha256()
        for f in sorted(entry.iterdir()):
            data = f.read_bytes()
            size += len(data)
            h.update(data)
    return len(entries), size, time.perf_counter() - t


def mirror_env(url: str, cache: Path) -> dict:
    """The environment of runs fetching the catalog's files from the loopback mirror into ``cache``."""
    return {**os.environ, "METAEVAL_MIRROR": url, "METAEVAL_CACHE": str(cache), "NO_PROXY": "127.0.0.1"}


def compare(against: str, rounds: int) -> int:
    """This tree's loop against ``against``'s, ``rounds`` times each, alternating (module docstring)."""
    import statistics

    runs: dict[str, list[dict[str, float]]] = {"this tree": [], against: []}
    memo = None
    with tempfile.TemporaryDirectory() as tmp, mirror.serve(mirror.build(Path(tmp) / "mirror")) as (url, _):
        tmp = Path(tmp)
        with checkout(against, tmp / "other") as other:
            trees = {"this tree": REPO, against: other}
            for r in range(rounds):
                order = list(trees) if r % 2 == 0 else list(trees)[::-1]
                for name in order:
                    work = tmp / f"run-{r}-{'this' if trees[name] == REPO else 'other'}"
                    runs[name].append(loop(trees[name], work, mirror_env(url, work / "cache")))
                    print(f"round {r + 1}, {name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in runs[name][-1].items()),
                          flush=True)
                    if trees[name] == REPO:
                        memo = memo_contents(work / "results")
                    shutil.rmtree(work, ignore_errors=True)
    for step in runs["this tree"][0]:
        mine = statistics.median(x[step] for x in runs["this tree"])
        theirs = statistics.median(x[step] for x in runs[against])
        print(f"{step}: median {mine:.1f} s (this tree) vs {theirs:.1f} s ({against}): {mine / theirs:.3f}")
    if memo:
        print(f"memos after this tree's re-run: {memo[0]} entries, {memo[1] / 1e6:.1f} MB, read and digested in "
              f"{memo[2]:.3f} s")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before-commit", default=BEFORE)
    ap.add_argument("--before", default="run", choices=["run", "skip"])
    ap.add_argument("--against", help="compare this tree's loop with this revision's, in one sitting")
    ap.add_argument("--rounds", type=int, default=3, help="with --against: the loops run of each tree")
    args = ap.parse_args()
    if not RAW.exists():
        print(f"skipped: {RAW} is missing")
        return 0
    if args.against:
        return compare(args.against, args.rounds)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as tmp, mirror.serve(mirror.build(Path(tmp) / "mirror")) as (url, _):
        tmp = Path(tmp)
        env = mirror_env(url, tmp / "cache")
        figures = loop(REPO, tmp / "after", env)
        # the seven alone, in a working directory of their own (the cache shared: nothing fetched again)
        seven = tmp / "seven"
        setup(REPO, seven)
        (seven / "benchmarks.yaml").write_text(yaml.safe_dump({"benchmarks": SEVEN}))
        n = write_scores(tmp / "after/results/to_score", seven / "my_scores.tsv", ["length_ratio"], SEVEN)
        print(f"score file of the seven: {n} rows of length_ratio", flush=True)
        (seven / "my.yaml").write_text(yaml.safe_dump({"metric_scores": [str(seven / "my_scores.tsv")],
                                                       "leaderboard": {"focus": ["length_ratio", "source_overlap"]}}))
        figures["full run of the seven with the score file"] = snakemake(
            REPO, seven, "--configfile", str(seven / "benchmarks.yaml"), str(seven / "my.yaml"), env=env)
        if args.before == "run":
            with checkout(args.before_commit, tmp / "before") as code:
                old = tmp / "before-run"
                figures[f"full run at {args.before_commit}, no score file"] = snakemake(
                    code, old, "--configfile", str(setup(code, old)))
    for what, seconds in figures.items():
        print(f"{what}: {seconds:.1f} s")
    full, seven_time = figures["full run with the score file"], figures["full run of the seven with the score file"]
    rerun = figures["re-run after adding a metric"]
    print(f"every benchmark / the seven, one score file: {full / seven_time:.2f} (budget 1.40)")
    cpu = {w.name: runs for w, runs in CPU.items()}
    if "after" in cpu and "seven" in cpu:      # texts out, full run, re-run; the seven's full run
        print(f"CPU time: every benchmark {cpu['after'][1]:.1f} s, the seven {cpu['seven'][0]:.1f} s: "
              f"{cpu['after'][1] / cpu['seven'][0]:.2f}; re-run / full run {cpu['after'][2] / cpu['after'][1]:.2f}")
    print(f"re-run / full run: {rerun / full:.2f} (budget 0.35)")
    before = figures.get(f"full run at {args.before_commit}, no score file")
    if before:
        print(f"full run of the seven with a score file / old run without one: {seven_time / before:.2f} "
              "(budget 1.00)")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
