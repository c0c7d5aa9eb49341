"""Compare every output of the main job before and after a change of the code, file by file.

    .venv/bin/python benchmarks/compare_outputs.py [--before 59fea5f] [--dataset default] [--dataset summeval]
        [--dataset benchmarks] [--runs OLD NEW]

Checks out ``--before`` (default: the last commit before the "one shape" redesign) in a temporary
git worktree, runs its main job and the current tree's on the same data set (each with its own
config/config.yaml; ``summeval`` = ../shared/data/summeval; ``benchmarks`` = the seven released
benchmarks SummEval, REALSumm, Newsroom, QAGS-CNN, QAGS-XSum, Rank19 and FRANK in one run, fetched from
a mirror folder of ../shared/data/raw, tests/mirror.py), and compares every file under results/ but
the logs (and the jobs' memos). ``--runs OLD NEW`` compares two results/ folders already run. A file that differs must be one of the expected changes below, and
each expected change is checked cell by cell (any other difference in such a file fails it):

* agreement p-values (defect 1): each pair's Wilcoxon p is now scipy's for that pair alone; in
  verdicts.tsv only the ``p`` column may differ; the derived agreement tables may differ only if
  a verdict changed;
* correlations.tsv (defect 2): no bootstrap interval for an undefined correlation; and corpus BLEU
  in the bootstrap now comes from sacrebleu's ``compute_bleu`` (the issue's public-API rule) instead
  of a second, numpy formula: BLEU interval ends may move by at most 1e-14;
* table1 (defect 2): the interval of an undefined r is shown as [NA, NA];
* the reference sweep (defect 3): conditions are named by the reference summarizer's id instead of
  its sort position (ref1 -> ref0, ref3 -> ref10 on SummEval; ref1 -> A on the default data set);
  every value is unchanged;
* report.html: prints the configuration (confidence levels are fractions now) and the methods;
* the speed work: the bootstrap is vectorised (the same random draws; means as products with the
  topic-count matrix), so correlations.tsv's interval ends may move by at most 1e-12; the
  summary-level table is vectorised (the same definitions as scipy), so its values may move by at
  most 1e-12; and the scoring jobs' intermediate files (scores/parts/, scores/tokens/) are laid out
  per preprocessing setting (one job scores every measure), so those caches are expected to differ;
* analysis/notes.tsv: its first column, the kind of each note, is headed ``kind`` (was ``topic``);
* the simulated data set's dataset.yaml names its generator ``metaeval.data.simulate`` (the module
  moved); nothing else in it changes;
* data/summary.tsv: one added row, ``summaries_without_ascii_letters_or_digits``;
* benchmarks as released: ``annotations.tsv`` is new in ``data/`` and the importer's
  folder (the header only: these data sets have no per-annotator scores); the summary-level table gains the columns ``summaries``,
  ``pearson_lo``, ``pearson_hi`` and ``p_vs_best`` after its old ones, which keep their values; the
  report shows that table and the top-variants figure is unchanged;
* the annotators and factuality stages: the new stages' folders ``annotators/`` and ``factuality/`` (only after); the
  report gains their sections and sentences;
* the speed work after 2629272: every SVG figure is cropped to the tight box found once at the
  PNG's resolution (matplotlib measured it again per format), so an SVG's size and coordinates may
  move by a fraction of a point; the same drawing (numbers masked) and its PNG byte-identical;
* Table 6's caption (``table6_file_metrics.md``) says what its optimal star means; the rows are unchanged.
* every dimension a target (``--before 6864522``): the tables with a row per human target
  (correlations, the summary level, agreement, verdicts, system_human.tsv, the sweeps' correlations)
  keep every row of the old targets unchanged, in order, and add rows for the new ones only (the
  dimensions and composites of human/targets.tsv); summary_human.tsv keeps every column's values and
  loses the second copy of the coverage and linguistic_quality columns (it had two columns of each
  name); skipped.tsv may add a row for a dimension that is a combination; the factuality protocols no
  longer run on a data set without a factual dimension (a note and header-only tables); new files:
  human/targets.tsv, analysis/answers.{tsv,md}, analysis/williams_targets.tsv, rerank/by_target.tsv.
* common ground, Pairwise Difference Pearson and the random floor (``--before 317fb8c``): columns added
  after the old ones, which keep their values where every metric scores every item (correlations.tsv
  ``n_covered, pearson_covered, pdp``; the summary level ``pdp``; leaderboard.tsv ``n, value_covered,
  n_covered, pdp, column_note``; rerank/by_target.tsv ``left_out``; rerank/table3.tsv ``note``);
  rerank/summary.tsv one added row, ``left_out``; new files analysis/floor.tsv, factuality/floor.tsv
  and all/leaderboard_floor.tsv; the captions of Table 1 and Table 3 and the pages that show them
  (report.html, leaderboard.md/html: the floor row, the n and the column notes). Where metrics cover
  different items (FRANK's released metrics), the values move to the common ground: reported per file.
* the single target and the fuller values (``--before 44c9a24``): columns added after the old ones,
  every old value unchanged where no metric is declared for one dimension and every metric scores
  every summary (summary_level_correlations.tsv ``summaries_covered, pearson_covered``; factuality's
  binary.tsv ``n_covered, auc_covered``, partial_correlations.tsv ``n_covered, pearson_covered``,
  ranking_accuracy.tsv ``pairs_covered, accuracy_covered``); leaderboard.tsv's ``n`` and
  ``n_covered`` written as integers (the same numbers).

Prints one line per differing file with its verdict, and exits 1 on any unexplained difference.
"""
from __future__ import annotations

import re
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

from metaeval import tables

REPO = Path(__file__).resolve().parents[1]
BEFORE = "59fea5f"
SUMMEVAL = REPO.parent / "shared" / "data" / "summeval"
RAW = REPO.parent / "shared" / "data" / "raw"
SEVEN = ["summeval", "realsumm", "newsroom", "qags_cnn", "qags_xsum", "rank19", "frank"]
# common ground, Pairwise Difference Pearson and the random floor: columns added after the old ones
ADDED_COLUMNS = {"analysis/correlations.tsv": ["n_covered", "pearson_covered", "pdp"],
                 "analysis/summary_level_correlations.tsv": ["pdp"],
                 "leaderboard.tsv": ["n", "value_covered", "n_covered", "pdp", "column_note"],
                 "rerank/by_target.tsv": ["left_out"], "rerank/table3.tsv": ["note"]}
FLOOR_FILES = ("analysis/floor.tsv", "factuality/floor.tsv", "leaderboard_floor.tsv")
# the single target and the fuller values (--before 44c9a24): columns added after those of common ground
FULLER_COLUMNS = {"analysis/summary_level_correlations.tsv": ["summaries_covered", "pearson_covered"],
                  "factuality/binary.tsv": ["n_covered", "auc_covered"],
                  "factuality/partial_correlations.tsv": ["n_covered", "pearson_covered"],
                  "factuality/ranking_accuracy.tsv": ["pairs_covered", "accuracy_covered"]}
INTEGER_COUNTS = {"leaderboard.tsv": ("n", "n_covered")}


def run_main_job(code: Path, workdir: Path, dataset: str) -> float:
    """The main job of ``code`` (a checkout) on one data set in ``workdir``; returns the wall time."""
    import time

    cfg = yaml.safe_load((code / "config/config.yaml").read_text())
    if dataset == "summeval":
        cfg["datasets"] = {"summeval": {"format": "canonical", "path": str(SUMMEVAL)}}
    env = {**os.environ, "PYTHONPATH": str(code / "src")}
    if dataset == "benchmarks":       # the seven, fetched from a mirror folder of the release files
        sys.path.insert(0, str(REPO / "tests"))
        import mirror

        cfg["benchmarks"] = SEVEN
        folder = workdir.parent / "mirror"
        if not folder.exists():
            mirror.build(folder, RAW)
        env.update(METAEVAL_MIRROR=str(folder), METAEVAL_CACHE=str(workdir / "cache"))
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(code / "Snakefile"), "-d", str(workdir),
                    "--cores", "2", "all", "--quiet"], env=env, check=True, capture_output=True)
    return time.perf_counter() - t


def tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def changed_cells(a: pd.DataFrame, b: pd.DataFrame) -> list[tuple[int, str, str, str]]:
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return [(-1, "shape", str(a.shape), str(b.shape))]
    out = []
    for c in a.columns:
        for i in (a[c] != b[c]).to_numpy().nonzero()[0]:
            out.append((int(i), c, a[c].iat[i], b[c].iat[i]))
    return out


def check_correlations(a: pd.DataFrame, b: pd.DataFrame) -> str | None:
    for i, col, old, new in changed_cells(a, b):
        if col not in ("pearson_lo", "pearson_hi"):
            return f"row {i} column {col}: {old} -> {new}"
        if b.pearson.iat[i] == "NA" and new == "NA":
            continue                                   # defect 2
        if old != "NA" and new != "NA" and abs(float(old) - float(new)) <= 1e-12:
            continue                                   # sacrebleu's compute_bleu; the vectorised bootstrap
        return f"row {i} ({b.variant.iat[i]}) column {col}: {old} -> {new}"
    return None


def check_table1(a: pd.DataFrame, b: pd.DataFrame) -> str | None:
    for i, col, old, new in changed_cells(a, b):
        if not (col == "95% CI" and b.r.iat[i] == "NA" and new == "[NA, NA]"):
            return f"row {i} column {col}: {old} -> {new}"
    return None


def check_close(a: pd.DataFrame, b: pd.DataFrame, numeric: tuple[str, ...]) -> str | None:
    for i, col, old, new in changed_cells(a, b):
        if col not in numeric or old == "NA" or new == "NA" or abs(float(old) - float(new)) > 1e-12:
            return f"row {i} column {col}: {old} -> {new}"
    return None


def check_verdicts(a: pd.DataFrame, b: pd.DataFrame) -> str | None:
    for i, col, old, new in changed_cells(a, b):
        if col != "p":
            return f"row {i} column {col}: {old} -> {new}"
    return None


def check_relabelled(a: pd.DataFrame, b: pd.DataFrame, mapping: dict[str, str]) -> str | None:
    relabelled = a.copy()
    for c in ("condition", "condition_a", "condition_b"):
        if c in relabelled:
            relabelled[c] = relabelled[c].map(lambda x: mapping.get(x, x))
    cells = changed_cells(relabelled, b)
    return None if not cells else f"after relabelling {mapping}: {cells[:3]}"


TARGET_TABLES = ("analysis/correlations.tsv", "analysis/summary_level_correlations.tsv", "agreement/agreement.tsv",
                 "agreement/verdicts.tsv", "human/system_human.tsv", "sweeps/references_correlations.tsv",
                 "sweeps/lengths_correlations.tsv")
NEW_FILES = ("human/targets.tsv", "analysis/answers.tsv", "analysis/answers.md", "analysis/williams_targets.tsv",
             "rerank/by_target.tsv")


def new_targets(new: Path) -> set[str]:
    """The targets that "every dimension a target" added: the dimensions and composites of human/targets.tsv."""
    path = new / "human/targets.tsv"
    if not path.exists():
        return set()
    t = tsv(path)
    return set(t.loc[t["kind"] != "combination", "target"])


def check_targets(a: pd.DataFrame, b: pd.DataFrame, added: set[str]) -> str | None:
    """Every row of an old target unchanged and in order; the other rows only of added targets."""
    key = next((c for c in ("combination", "scorer", "target") if c in b.columns), None)
    if key is None or list(a.columns) != list(b.columns):
        return "columns changed"
    if a[key].isin(added).any():
        return "an added target was there before"
    cells = changed_cells(a.reset_index(drop=True), b[~b[key].isin(added)].reset_index(drop=True))
    return f"an existing row changed: {cells[:2]}" if cells else None


def check_summary_human(a: pd.DataFrame, b: pd.DataFrame, added: set[str]) -> str | None:
    """summary_human.tsv: the old columns' values (the duplicated coverage / linguistic_quality once),
    then the added targets' columns."""
    dup = [c for c in a.columns if c.endswith(".1")]
    if any((a[c] != a[c.removesuffix(".1")]).any() for c in dup):
        return "the two copies of a column differed"
    old = a.drop(columns=dup)
    if [c for c in b.columns if c not in added] != list(old.columns):
        return f"columns: {list(old.columns)} -> {list(b.columns)}"
    cells = changed_cells(old, b[list(old.columns)])
    return f"a value changed: {cells[:2]}" if cells else None


def check_factuality(f: str, b: Path, new: Path) -> str | None:
    """A factuality file of a data set without a factual dimension: the note, or a table without rows."""
    notes = tsv(new / "factuality/notes.tsv")
    if not notes["note"].str.startswith("not applicable").any():
        return "the protocols did not say they do not apply"
    if f.endswith(".tsv") and f != "factuality/notes.tsv" and len(tsv(b)):
        return "a table of a protocol that does not apply has rows"
    return None


def same_but_coordinates(a: Path, b: Path) -> bool:
    """Two SVG files equal once every number, every clip path's and image's id (hashes) and every
    embedded raster (an image resampled at its new position) is masked: the same drawing, moved or
    resized."""
    ids, numbers = re.compile(rb"(#?p|image)[0-9a-f]{10}\b"), re.compile(rb"-?[0-9]+(\.[0-9]+)?")
    rasters = re.compile(rb"data:image/png;base64,[A-Za-z0-9+/=\s]*")

    def masked(path: Path) -> bytes:
        return numbers.sub(b"#", ids.sub(b"@", rasters.sub(b"IMAGE", path.read_bytes())))

    return masked(a) == masked(b)


LEFT_OUT = "are not scored by every metric, so left out"
# the files whose values move when a data set's metrics cover different summaries (FRANK's released metrics)
MOVED = ("analysis/answers.tsv", "analysis/answers.md", "analysis/summary_level_correlations.tsv",
         "analysis/summary_level_tests.tsv", "leaderboard.tsv", "leaderboard_tests.tsv")


def left_out(folder: Path) -> bool:
    """Whether a data set's notes say that some judged summaries were left out for common ground."""
    return any(LEFT_OUT in p.read_text(encoding="utf-8") for p in (folder / "analysis/notes.tsv",
                                                                   folder / "factuality/notes.tsv") if p.exists())


def one_n(new: Path) -> str | None:
    """On common ground every metric of a column rests on one n: the summary level's and the partial
    correlation's (None when so)."""
    for f, by, n in (("analysis/summary_level_correlations.tsv", ["level", "combination"], "summaries"),
                     ("factuality/partial_correlations.tsv", ["dimension", "subset", "split"], "n")):
        if (new / f).exists() and len(t := tsv(new / f)) and (t.groupby(by)[n].nunique() > 1).any():
            return f"{f}: the metrics of a column rest on different n"
    return None


def fuller_verdict(stem: str, a: Path, b: Path) -> str | None:
    """The verdict on a file the single target and the fuller values changed (module docstring), or
    None when it is not one of theirs or its old columns are not the new file's first ones."""
    if stem in ("figure_leaderboard_dots.png", "figure_leaderboard_dots.svg"):
        floors = tsv(b.parent / "leaderboard_floor.tsv")
        return ("expected (the dot plot draws the balanced-accuracy column's new floor)"
                if (floors["level"] == "balanced_accuracy").any() else None)
    if stem in ("leaderboard_floor.tsv", "factuality/floor.tsv"):
        ta, tb = tsv(a), tsv(b)
        kept = tb[tb["level"] != "balanced_accuracy"]
        same = list(ta.columns) == list(tb.columns) and kept.values.tolist() == ta.values.tolist()
        return (f"expected (the balanced-accuracy column's floor: {len(tb) - len(kept)} rows added, every old row "
                "unchanged)" if same and len(kept) < len(tb) else "UNEXPECTED: more than the balanced-accuracy floor")
    if stem == "factuality/notes.tsv":
        ta, tb = tsv(a), tsv(b)
        old_ground = ta["note"].str.contains("are not scored by every metric, so left out")
        new_ground = tb["note"].str.contains("are not scored by every metric of ")
        same = (ta[~old_ground].values.tolist() == tb[~new_ground].values.tolist()
                and int(old_ground.sum()) <= int(new_ground.sum()) and (tb.loc[new_ground, "dimension"] != "").all())
        return ("expected (common ground per factual dimension: its note names the dimension)" if same else
                "UNEXPECTED: more than the common ground's note changed")
    if stem not in FULLER_COLUMNS and stem not in INTEGER_COUNTS:
        return None
    ta, tb = tsv(a), tsv(b)
    if stem in FULLER_COLUMNS and list(tb.columns) == [*ta.columns, *FULLER_COLUMNS[stem]]:
        cells = changed_cells(ta, tb[list(ta.columns)])
        return ("expected (the fuller value below the system level: columns added, every old value unchanged)"
                if not cells else f"UNEXPECTED: {len(cells)} old cells changed, e.g. {cells[0]}")
    if stem in INTEGER_COUNTS and list(ta.columns) == list(tb.columns):
        cells = changed_cells(ta, tb)
        counts = INTEGER_COUNTS[stem]
        missing = ("", "NA")

        def explained(c: str, x: str, y: str) -> bool:
            if c in counts and x not in missing and y not in missing:
                return float(x) == float(y)                 # the same count, written as an integer
            if c in counts and x in missing and y in missing:
                return True
            # a fuller value below the system level, where the column's ground left some summaries out
            return (c in ("value_covered", "n_covered") and x in missing) or c == "column_note"
        unexplained = [cell for cell in cells if not explained(*cell[1:])]
        fuller = sorted({c for _, c, x, _ in cells if c in ("value_covered", "n_covered") and x in ("", "NA")})
        return (f"expected (n and n_covered written as integers, the same numbers; "
                f"{sum(c == 'value_covered' for _, c, _, _ in cells)} fuller values added below the system level "
                f"and {sum(c == 'column_note' for _, c, _, _ in cells)} column notes with them)"
                if not unexplained else f"UNEXPECTED: {len(unexplained)} cells changed, e.g. {unexplained[0]}; "
                f"columns {sorted({c for _, c, _, _ in unexplained})} {fuller}")
    return None


def common_ground_verdict(f: str, a: Path, b: Path, moved: bool = False) -> str | None:
    """The verdict on a file that common ground, Pairwise Difference Pearson or the random floor
    changed (module docstring), or None for a file they do not touch (or one byte-identical).
    ``moved``: the data set's metrics cover different summaries (or, across data sets, some data
    set's do), so its values move to the summaries every metric scores."""
    stem = f
    if moved and a.exists() and b.exists() and a.read_bytes() != b.read_bytes() and (
            stem in MOVED or stem.startswith("factuality/")):
        new = b.parents[len(Path(f).parts) - 1]
        problem = one_n(new)
        return (f"UNEXPECTED: {problem}" if problem else
                "changed on common ground (the metrics cover different summaries: every value on those all score)")
    if a.exists() and b.exists() and a.read_bytes() != b.read_bytes():
        fuller = fuller_verdict(stem, a, b)
        if fuller is not None:
            return fuller
    if stem in FLOOR_FILES:
        return "expected (the random floor: a new file)" if not a.exists() and b.exists() else None
    if not (a.exists() and b.exists()) or a.read_bytes() == b.read_bytes():
        return None
    if stem in ADDED_COLUMNS:
        ta, tb = tsv(a), tsv(b)
        if list(tb.columns) != [*ta.columns, *ADDED_COLUMNS[stem]] or len(ta) != len(tb):
            return f"UNEXPECTED: columns {list(ta.columns)} -> {list(tb.columns)}, rows {len(ta)} -> {len(tb)}"
        cells = changed_cells(ta, tb[list(ta.columns)])
        if not cells:
            return "expected (common ground and PDP: columns added, every old value unchanged)"
        columns = sorted({c for _, c, _, _ in cells})
        return (f"changed on common ground ({len(cells)} cells of {columns}; e.g. row {cells[0][0]} {cells[0][1]}: "
                f"{cells[0][2]} -> {cells[0][3]}): columns added")
    if stem == "rerank/summary.tsv":
        ta, tb = tsv(a), tsv(b)
        added = tb[tb.iloc[:, 0] == "left_out"]
        same = tb[tb.iloc[:, 0] != "left_out"].values.tolist() == ta.values.tolist()
        return ("expected (the re-ranking says which systems are out: one added row)" if len(added) == 1 and same
                else "UNEXPECTED: more than the left_out row changed")
    if stem in ("analysis/table1.md", "rerank/table3.md", "report.html", "leaderboard.md", "leaderboard.html"):
        return "expected (captions and pages: n on common ground, the re-ranking's notes, PDP, the floor row)"
    return None


def compare(old: Path, new: Path, moved: bool = False) -> list[tuple[str, str]]:
    """(file, verdict) for every file that differs; verdict starts with 'UNEXPECTED' when unexplained
    (``moved``: :func:`common_ground_verdict`)."""
    files = sorted({p.relative_to(old).as_posix() for p in old.rglob("*") if p.is_file()} |
                   {p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()} if old.exists() else
                   {p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()})
    files = [f for f in files if not f.startswith(("logs/", "memo/"))]   # the jobs' memos: a cache, not an output
    refs = sorted(set(tsv(new / "sweeps/references_scores.tsv").condition) - {"all"}) \
        if (new / "sweeps/references_scores.tsv").exists() else []
    mapping = {f"ref{k + 1}": name for k, name in enumerate(refs)}
    verdicts_changed = None
    added = new_targets(new)
    out = []
    for f in files:
        a, b = old / f, new / f
        verdict = common_ground_verdict(f, a, b, moved)
        if verdict:
            out.append((f, verdict))
            continue
        if f in NEW_FILES and not a.exists():
            out.append((f, "expected (every dimension a target: a new file)"))
            continue
        if f.endswith(".svg") and a.exists() and b.exists() and a.read_bytes() != b.read_bytes() and \
                same_but_coordinates(a, b) and (old / f).with_suffix(".png").read_bytes() == b.with_suffix(".png").read_bytes():
            out.append((f, "expected (speed: the SVG cropped to the PNG's tight box; its PNG byte-identical)"))
            continue
        if added and a.exists() and b.exists() and a.read_bytes() != b.read_bytes() and (
                f in TARGET_TABLES or f.startswith("factuality/") or f in ("human/summary_human.tsv", "human/skipped.tsv")):
            if f in TARGET_TABLES:
                problem = check_targets(tsv(a), tsv(b), added)
            elif f == "human/summary_human.tsv":
                problem = check_summary_human(tsv(a), tsv(b), added)
            elif f == "human/skipped.tsv":
                ta, tb = tsv(a), tsv(b)
                extra = tb.iloc[len(ta):]
                problem = None if tb.iloc[:len(ta)].values.tolist() == ta.values.tolist() and \
                    extra["reason"].str.startswith("dimension ").all() else "more than a dimension's row changed"
            else:
                problem = check_factuality(f, b, new)
            out.append((f, f"UNEXPECTED: {problem}" if problem else "expected (every dimension a target: targets)"))
            continue
        if f.startswith(("scores/parts/", "scores/tokens/")):
            if not a.exists() or not b.exists() or a.read_bytes() != b.read_bytes():
                out.append((f, "expected (speed work: scoring caches laid out per setting)"))
            continue
        if f.endswith("/annotations.tsv") and not a.exists():       # data/ and the importer's folder
            header = b.read_text(encoding="utf-8") == "topic\tsummarizer\tdimension\tannotator\tgroup\tscore\n"
            out.append((f, "expected (benchmarks as released: annotations.tsv, the header only)" if header else
                        "UNEXPECTED: annotations.tsv has rows"))
            continue
        if f.startswith(("annotators/", "factuality/")) and not a.exists():
            out.append((f, "expected (the annotators and factuality stages: a new stage's output)"))
            continue
        if not a.exists() or not b.exists():
            out.append((f, f"UNEXPECTED: only {'after' if b.exists() else 'before'}"))
            continue
        if a.read_bytes() == b.read_bytes():
            continue
        problem, why = None, None
        if f == "analysis/correlations.tsv":
            problem, why = check_correlations(tsv(a), tsv(b)), "defect 2; interval ends within 1e-12"
        elif f == "analysis/summary_level_correlations.tsv":
            ta, tb = tsv(a), tsv(b)
            added = [c for c in tb.columns if c not in ta.columns]
            problem = (check_close(ta, tb[list(ta.columns)], ("pearson", "spearman", "kendall"))
                       if added in ([], ["summaries", "pearson_lo", "pearson_hi", "p_vs_best"]) else
                       f"columns added: {added}")
            why = "speed work: vectorised summary level, within 1e-12; benchmarks as released: interval and paired test columns"
        elif f in ("analysis/table1.tsv", "analysis/table1.md"):
            if f.endswith(".tsv"):
                problem = check_table1(tsv(a), tsv(b))
            why = "defect 2: [NA, NA] for an undefined r"
        elif f == "agreement/verdicts.tsv":
            problem, why = check_verdicts(tsv(a), tsv(b)), "defect 1: per-pair Wilcoxon p"
            verdicts_changed = (tsv(a).verdict != tsv(b).verdict).any()
        elif f.startswith("agreement/"):
            why = "defect 1: a verdict changed"
            problem = None if verdicts_changed is None or verdicts_changed else "no verdict changed"
        elif f.startswith("sweeps/references"):
            if f.endswith(".tsv"):
                problem = check_relabelled(tsv(a), tsv(b), mapping)
            why = "defect 3: conditions named by the reference summarizer"
        elif f == "sweeps/figure_references.png" or f == "sweeps/figure_references.svg":
            why = "defect 3: condition labels on the axis"
        elif f == "analysis/notes.tsv":
            ta, tb = tsv(a), tsv(b)
            problem = None if list(ta.columns) == ["topic", "note"] and ta.values.tolist() == tb.values.tolist() \
                and list(tb.columns) == ["kind", "note"] else "more than the header changed"
            why = "the first column is headed kind"
        elif f in ("data/dataset.yaml", "simulate/dataset.yaml"):
            text = a.read_text().replace("metaeval.simulate", "metaeval.data.simulate")
            problem = None if text == b.read_text() else "more than the generator's module name changed"
            why = "the generator's module name"
        elif f == "data/summary.tsv":
            tb = tsv(b)
            added = tb.statistic == "summaries_without_ascii_letters_or_digits"
            problem = None if added.sum() == 1 and tb[~added].values.tolist() == tsv(a).values.tolist() \
                else "more than the added row changed"
            why = "text checks: a row counting summaries without ASCII letters or digits"
        elif f == "analysis/table6_file_metrics.md":
            _, header_a, rows_a = tables.read_markdown(a)
            _, header_b, rows_b = tables.read_markdown(b)
            problem = None if (header_a, rows_a) == (header_b, rows_b) else "more than the caption changed"
            why = "the caption says what the optimal star means"
        elif f == "report.html":
            why = "report: configuration (confidence as a fraction) and methods text; benchmarks as released: the summary-level table"
        else:
            problem = "not an expected change"
        out.append((f, f"UNEXPECTED: {problem}" if problem else f"expected ({why})"))
    return out


def report(old: Path, new: Path, name: str) -> int:
    """Print the comparison of two results/ folders (every data set's and results/all/); the number
    of unexplained differences."""
    skip = {"logs", "memo", "release", "cache"}       # logs, caches and the fetched release files' copies
    n = sum(1 for p in new.rglob("*") if p.is_file() and not skip & set(p.relative_to(new).parts))
    folders = sorted({p.name for p in (*old.iterdir(), *new.iterdir()) if p.is_dir() and p.name not in skip})
    moved = {d: left_out(new / d) for d in folders}
    moved["all"] = any(moved.values())
    diffs = [(f"{d}/{f}", v) for d in folders for f, v in compare(old / d, new / d, moved[d])
             if not skip & set(f.split("/"))]
    print(f"{name}: {n} files; {n - len(diffs)} byte-identical; {len(diffs)} differ")
    for f, verdict in diffs:
        print(f"  {f}: {verdict}")
    return sum(v.startswith("UNEXPECTED") for _, v in diffs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", default=BEFORE, help="git revision to compare with (default: %(default)s)")
    ap.add_argument("--dataset", action="append", choices=["default", "summeval", "benchmarks"],
                    help="default: default and summeval")
    ap.add_argument("--runs", nargs=2, type=Path, metavar=("OLD", "NEW"),
                    help="compare these two results/ folders (already run) instead")
    args = ap.parse_args()
    if args.runs:
        return report(*args.runs, "runs")
    datasets = args.dataset or ["default", "summeval"]
    for name, needs in (("summeval", SUMMEVAL), ("benchmarks", RAW)):
        if name in datasets and not needs.exists():
            print(f"{needs} is not available: {name} skipped")
            datasets.remove(name)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        before = tmp / "before"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(before), args.before],
                       check=True, capture_output=True)
        try:
            for d in datasets:
                t_old = run_main_job(before, tmp / f"old-{d}", d)
                t_new = run_main_job(REPO, tmp / f"new-{d}", d)
                print(f"{d}: main job {t_old:.0f} s before, {t_new:.0f} s after")
                bad += report(tmp / f"old-{d}/results", tmp / f"new-{d}/results", d)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(before)], capture_output=True)
    print("all differences explained" if not bad else f"{bad} unexplained difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
