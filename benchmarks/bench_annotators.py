"""Benchmark of the annotators stage on SummEval from the release (12 systems x 100 documents,
3 experts and 5 crowd workers per summary and dimension).

    .venv/bin/python benchmarks/bench_annotators.py [--workdir /tmp/bench_annotators] [--samples 1000]

Runs the workflow on the SummEval release (../shared/data/raw/summeval-official, the ``summeval``
benchmark of the catalog, read from the copies of its files; the light analysis settings of tests/test_benchmarks.py) up
to the annotators job's inputs with ``--cores 2`` (skipped when the work folder already has them),
then times the stage itself - load, compute, write to a temporary folder - with the config's
defaults and --samples bootstrap samples, and prints the seconds of each part (one process, as the
job runs: ``threads: 1``; the machine's 2 cores are free for numpy's BLAS).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def prepare(workdir: Path) -> dict:
    from mirror import RAW, local_entry
    from test_benchmarks import LIGHT

    full = {"datasets": {"summeval": local_entry("summeval", RAW)}, **LIGHT}
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(full), encoding="utf-8")
    return full


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "bench_annotators"))
    ap.add_argument("--samples", type=int, default=1000)
    args = ap.parse_args()
    workdir = Path(args.workdir)
    config = prepare(workdir)

    from metaeval import outputs
    from metaeval.options import Options
    from metaeval.stages import annotators

    options = Options.from_config(config)
    o = options.annotators._replace(bootstrap_samples=args.samples)
    # the annotators job's inputs (as its registry entry names them: metaeval.registry)
    d = "summeval"
    res = workdir / "results" / d
    inputs = {"system_scores": outputs.file("scores", "systems", d), "summary_scores": outputs.file("scores", "summaries", d),
              "summary_human": outputs.file("human", "summaries", d), "system_human": outputs.file("human", "systems", d),
              "dataset": outputs.file("data", "dataset", d), "annotations": outputs.file("data", "annotations", d),
              "bleu_stats_ST1_RS0": outputs.file("scores", "bleu_stats_{setting}", d, setting="ST1_RS0"),
              "chrf": outputs.file("chrf", "scores", d), "chrf_stats_CHRF": outputs.file("chrf", "stats_{metric}", d,
                                                                                        metric="CHRF")}
    if not all((workdir / p).exists() for p in inputs.values()):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
                        "--cores", "2", *[str(p) for p in inputs.values()]], check=True, capture_output=True)
        print(f"{'workflow up to the annotators inputs (--cores 2)':52s} {time.perf_counter() - start:8.2f} s")
    inputs = {k: str(workdir / v) for k, v in inputs.items()}
    start = time.perf_counter()
    inp = annotators.load(inputs, o)
    t_load = time.perf_counter() - start
    start = time.perf_counter()
    result = annotators.compute(inp, o)
    t_compute = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        out = {k: str(Path(tmp) / Path(v).name) for k, v in outputs.files("annotators", d).items()}
        start = time.perf_counter()
        annotators.write(result, o, out)
        t_write = time.perf_counter() - start
    print(f"annotators stage on SummEval ({len(inp.analysis.summarizers)} systems x "
          f"{len(inp.analysis.per_summary.topics)} topics; {', '.join(f'{g}:{len(a)}' for g, a in sorted(inp.groups.items()))}"
          f"; {len(result.variants)} metrics; {args.samples} bootstrap samples)")
    for label, t in (("load", t_load), ("compute", t_compute), ("write", t_write),
                     ("total", t_load + t_compute + t_write)):
        print(f"  {label:50s} {t:8.2f} s")
    print(f"  (rows: alpha {len(result.alpha)}, ceiling {len(result.ceiling)}, parity {len(result.parity)}; "
          f"results folder {res})")

    # the correlation stage's bootstrap without and with annotators resampled (correlation.resample_annotators)
    from metaeval.stages import correlation

    data = {k: str(workdir / v) for k, v in outputs.files("data", d).items()}
    corr_inputs = {**inputs, **data, "skipped": str(workdir / outputs.file("human", "skipped", d))}
    co = options.correlate._replace(bootstrap_samples=args.samples)
    inp_c, skipped = correlation.load(corr_inputs, co)
    start = time.perf_counter()
    correlation.compute(inp_c, co, skipped)
    t_off = time.perf_counter() - start
    start = time.perf_counter()
    model = annotators.resampling_model(corr_inputs, inp_c)
    t_model = time.perf_counter() - start
    start = time.perf_counter()
    correlation.compute(inp_c, co._replace(resample_annotators=True), skipped, None, model)
    t_on = time.perf_counter() - start
    print(f"correlation stage compute, {args.samples} bootstrap samples ({co.resample}; "
          f"{len(inp_c.variants)} variants x {len(inp_c.combinations)} combinations)")
    print(f"  {'annotators not resampled (default)':50s} {t_off:8.2f} s")
    print(f"  {'annotators resampled: reading the data set':50s} {t_model:8.2f} s")
    print(f"  {'annotators resampled: compute':50s} {t_on:8.2f} s   x{t_on / t_off:.2f}")


if __name__ == "__main__":
    main()
