"""Fetching the catalog's benchmarks, timed in one sitting against a loopback mirror of their
repositories (tests/mirror.py: ../shared/data/raw served from 127.0.0.1):

* the fetch jobs of the seven benchmarks through Snakemake (``--cores 2``), from an empty cache: their
  bytes, and the wall time of the run (Snakemake's start included);
* the same jobs again with the files in the cache (a new working directory: the copies verified again);
* the fetch library alone (metaeval.data.fetch, no Snakemake), from an empty cache, against a plain
  download of the same files with requests (no verification, no cache, no copy): the ratio is the
  price of verifying, caching and copying;
* ``--in-flight``: the library alone on LLM_summeval's 376 small files from a mirror that pauses
  ``--pause`` seconds after each 4 KiB it sends (a slow, far host), one file at a time
  (``fetch.TRANSFERS = 1``) against the files in flight at once as shipped: the ratio is what
  fetching several at a time buys where each response takes its time.

    .venv/bin/python benchmarks/bench_fetch.py [--benchmarks summeval,frank] [--repeat 3]
    .venv/bin/python benchmarks/bench_fetch.py --in-flight [--pause 0.05]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
import mirror  # noqa: E402 (tests/mirror.py)

from metaeval.data import catalog, fetch  # noqa: E402
from metaeval.outputs import file as output_file  # noqa: E402

SEVEN = ("summeval", "realsumm", "newsroom", "qags_cnn", "qags_xsum", "rank19", "frank")


def workflow(names: list[str], url: str, cache: Path, workdir: Path) -> float:
    """The fetch jobs of ``names`` in a new working directory: wall seconds."""
    (workdir / "config").mkdir(parents=True)
    (workdir / "config/config.yaml").write_text(f"benchmarks: [{', '.join(names)}]\n")
    env = {**os.environ, "METAEVAL_MIRROR": url, "METAEVAL_CACHE": str(cache), "NO_PROXY": "127.0.0.1"}
    targets = [output_file("fetch", "manifest", n) for n in names]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--cores",
                    "2", *targets, "--quiet"], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def library(names: list[str], url: str, cache: Path, out: Path) -> float:
    start = time.perf_counter()
    for n in names:
        release = catalog.benchmarks()[n].release
        fetched = fetch.compute(release, fetch.Source(url, str(cache)))
        fetch.write(fetched, out / n / "MANIFEST.tsv")
    return time.perf_counter() - start


def plain(names: list[str], url: str, out: Path) -> float:
    """The same files with requests alone, written as they come."""
    import requests

    start = time.perf_counter()
    with requests.Session() as session:
        for n in names:
            r = catalog.benchmarks()[n].release
            for f in r.files:
                response = session.get(f"{url}/{r.repository}/{r.commit}/{f.path}")
                if response.status_code == 200:
                    (out / f"{n}-{f.path.replace('/', '_')}").write_bytes(response.content)
    return time.perf_counter() - start


def in_flight(pause: float) -> None:
    """LLM_summeval's files from a mirror pausing ``pause`` s per 4 KiB: one at a time, then as shipped."""
    release = catalog.benchmarks()["llm_summeval"].release
    slow = {f"{release.repository}/{release.commit}/{f.path}": pause for f in release.files}
    shipped = fetch.TRANSFERS
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = mirror.build(Path(tmp) / "mirror")
        with mirror.serve(root, mirror.Behaviour(slow=slow)) as (url, _):
            for transfers in (1, shipped):
                fetch.TRANSFERS = transfers
                src = fetch.Source.resolve(url, str(Path(tmp) / f"cache{transfers}"), {})
                start = time.perf_counter()
                fetch.compute(release, src)
                times[transfers] = time.perf_counter() - start
    fetch.TRANSFERS = shipped
    print(f"LLM_summeval, {len(release.files)} files, a pause of {pause:g} s per 4 KiB sent: one at a time "
          f"{times[1]:.1f} s, {shipped} in flight {times[shipped]:.1f} s: {times[1] / times[shipped]:.1f}x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", default=",".join(SEVEN))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--in-flight", action="store_true", help="one file at a time against several, from a slow mirror")
    ap.add_argument("--pause", type=float, default=0.05)
    args = ap.parse_args()
    if not mirror.RAW.exists():
        print(f"skipped: {mirror.RAW} is missing")
        return 0
    if args.in_flight:
        in_flight(args.pause)
        return 0
    names = args.benchmarks.split(",")
    files = [f for n in names for f in catalog.benchmarks()[n].release.files]
    size = sum(f.bytes or 0 for f in files)
    optional = [f.path for f in files if f.optional]
    print(f"{len(names)} benchmarks, {len(files) - len(optional)} required files, {size:,} bytes"
          + (f" (+ optional, not in the mirror: {', '.join(optional)})" if optional else ""))
    cold, warm, lib, ref = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp, mirror.serve(mirror.build(Path(tmp) / "mirror")) as (url, _):
        tmp = Path(tmp)
        for i in range(args.repeat):
            cold.append(workflow(names, url, tmp / f"cache{i}", tmp / f"cold{i}"))
            warm.append(workflow(names, url, tmp / f"cache{i}", tmp / f"warm{i}"))
            (tmp / f"plain{i}").mkdir()
            ref.append(plain(names, url, tmp / f"plain{i}"))
            lib.append(library(names, url, tmp / f"libcache{i}", tmp / f"lib{i}"))
    med = statistics.median
    print(f"workflow, empty cache:   {med(cold):6.2f} s (min {min(cold):.2f}, max {max(cold):.2f}); "
          f"{size / med(cold) / 1e6:.1f} MB/s with Snakemake's start")
    print(f"workflow, files cached:  {med(warm):6.2f} s (min {min(warm):.2f}, max {max(warm):.2f}); "
          f"empty / cached: {med(cold) / med(warm):.2f}")
    print(f"library, empty cache:    {med(lib):6.3f} s; plain requests download: {med(ref):6.3f} s; "
          f"ratio {med(lib) / med(ref):.2f} (verify, cache, copy)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
