"""The leaderboard's pages on the seven benchmarks (SummEval, REALSumm, Newsroom, QAGS-CNN, QAGS-XSum,
Rank19, FRANK) with a metric computed from the texts (``length_ratio``, as bench_leaderboard.py's loop
computes it from ``results/to_score``, the release files fetched from a loopback mirror of
../shared/data/raw): each page's size and the time headless Chromium takes to render it, and, with
``--screenshots DIR``, the pictures of docs/ (the verdict, the leaderboard's page, the dot plot, the heatmap).

    .venv/bin/python benchmarks/bench_leaderboard_page.py [--workdir DIR] [--rounds 5] [--screenshots docs]

``--workdir`` keeps the run (a second call measures it again without running the workflow; the
leaderboard's and the report's jobs re-run when their code changed). The render time is Chromium's own
clock inside the page (navigation start to the load event, then to the end of the layout it forces),
the median over ``--rounds`` cold loads, beside the wall time of the whole headless browser, start to exit,
and that of an empty page, its floor.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench_leaderboard import RAW, REPO, SEVEN, mirror, mirror_env, setup, snakemake, write_scores

# Appended to a copy of the page: Chromium's own clock (performance.now, navigation start = 0) at the
# load event (the page parsed, its scripts run) and after the layout it then forces (offsetHeight: every
# table laid out), written into the DOM that --dump-dom prints.
PROBE = """<script>
window.addEventListener('load', function () {
  var load = performance.now(), height = document.body.offsetHeight;
  document.documentElement.dataset.probe = JSON.stringify({load: load, laid_out: performance.now(), height: height});
});
</script>"""


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("chromium is not installed (Debian: chromium)")
    return exe


def flags(width: int = 1200, height: int = 1500) -> list[str]:
    return [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={width},{height}"]


def render(page: Path) -> tuple[float, float, float]:
    """(ms to the load event, ms to the layout after it, wall s of the browser) of one cold load."""
    probe = page.with_name(page.stem + ".probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    t = time.perf_counter()
    dom = subprocess.run([*flags(), "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    wall = time.perf_counter() - t
    probe.unlink()
    found = re.search(r'data-probe="([^"]*)"', dom)
    if not found:
        sys.exit(f"{page}: the probe did not report (no load event?)")
    values = json.loads(found[1].replace("&quot;", '"'))
    return values["load"], values["laid_out"], wall


def run_seven(work: Path) -> None:
    """The seven benchmarks with ``length_ratio`` computed from their texts, in ``work`` (skipped when
    its leaderboard exists: the workflow then re-runs only what changed)."""
    env = None
    with tempfile.TemporaryDirectory() as tmp, mirror.serve(mirror.build(Path(tmp) / "mirror")) as (url, _):
        env = mirror_env(url, work / "cache")
        if not (work / "config").exists():
            setup(REPO, work)
            (work / "benchmarks.yaml").write_text(yaml.safe_dump({"benchmarks": SEVEN}))
        bench = str(work / "benchmarks.yaml")
        mine = work / "my.yaml"
        if not mine.exists():
            t = snakemake(REPO, work, "to_score", "--configfile", bench, env=env)
            print(f"texts out: {t:.1f} s", flush=True)
            n = write_scores(work / "results/to_score", work / "my_scores.tsv", ["length_ratio"], SEVEN)
            print(f"score file: {n} rows of length_ratio", flush=True)
            mine.write_text(yaml.safe_dump({"metric_scores": [str(work / "my_scores.tsv")],
                                            "leaderboard": {"focus": ["length_ratio"]}}))
        t = snakemake(REPO, work, "--configfile", bench, str(mine), env=env)
        print(f"workflow: {t:.1f} s", flush=True)


def screenshots(work: Path, out: Path) -> None:
    """docs/'s pictures: the report's opening (the verdict) as Chromium draws it; the dot plot and the
    heatmap as the workflow draws them for a paper (their PNG)."""
    report = work / "results/all/report.html"
    text = report.read_text(encoding="utf-8")
    # the opening alone: the page up to the leaderboard's table (a screenshot shows the window's top)
    shot = out / "leaderboard_verdict.png"
    subprocess.run([*flags(1200, 520), f"--screenshot={shot}", report.as_uri()], capture_output=True, timeout=300,
                   check=True)
    # the leaderboard's page, its opening and the table's first rows (README's picture)
    subprocess.run([*flags(1200, 1100), f"--screenshot={out / 'leaderboard.png'}",
                    (work / "results/all/leaderboard.html").as_uri()], capture_output=True, timeout=300, check=True)
    for name in ("figure_leaderboard_dots.png", "figure_leaderboard_ranks.png"):
        shutil.copy(work / "results/all" / name, out / name.replace("figure_", ""))
    print(f"screenshots in {out}: leaderboard_verdict.png ({len(text) / 1e6:.2f} MB page), leaderboard.png, "
          "leaderboard_dots.png, leaderboard_ranks.png")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, help="keep the run here (default: a temporary folder)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--screenshots", type=Path, help="write docs/'s pictures into this folder")
    args = ap.parse_args()
    if not RAW.exists():
        print(f"skipped: {RAW} is missing")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        work = (args.workdir or Path(tmp) / "seven").resolve()
        work.mkdir(parents=True, exist_ok=True)
        run_seven(work)
        empty = Path(tmp) / "empty.html"
        empty.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body></body></html>")
        floor = statistics.median(render(empty)[2] for _ in range(args.rounds))
        print(f"empty page: browser start to exit {floor:.2f} s (median of {args.rounds})")
        for page in (work / "results/all/leaderboard.html", work / "results/all/report.html"):
            runs = [render(page) for _ in range(args.rounds)]
            load, laid_out, wall = (statistics.median(r[i] for r in runs) for i in range(3))
            print(f"{page.name}: {page.stat().st_size / 1e6:.2f} MB; load event {load:.0f} ms, laid out {laid_out:.0f} ms "
                  f"(Chromium's clock from navigation start); browser start to exit {wall:.2f} s "
                  f"(median of {args.rounds})")
        if args.screenshots:
            screenshots(work, args.screenshots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
