"""Bad inputs and configs, one scenario folder each under .test/bad/: the case's files overlay a
scenario of .test/ (its config merged in), snakemake runs as the case says, and the run must fail
with the exact message, where the case says, leave none of the listed outputs, and change none of
the user's files."""
from __future__ import annotations

import hashlib
import shutil
import string
from pathlib import Path

import pytest
import yaml

from conftest import SCENARIOS, scenario, snakemake
from metaeval import tables

pytestmark = pytest.mark.workflow
CASES = sorted(p for p in (SCENARIOS / "bad").iterdir() if (p / "case.yaml").is_file())


def checksums(root: Path, folders=("input",)) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in folders for p in sorted((root / folder).rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_fails_early_with_its_message(case, tmp_path):
    spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
    scenario(tmp_path, spec.get("scenario", "config.yaml"), spec.get("config"))
    for f in case.rglob("*"):
        if f.is_file() and f.name != "case.yaml":
            target = tmp_path / f.relative_to(case)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
    for source, target in spec.get("copy", {}).items():
        shutil.copytree(tmp_path / source, tmp_path / target)
    expect = spec["expect"]
    users = ["input", *expect.get("unchanged", [])]
    before = checksums(tmp_path, users)
    assert before
    proc = snakemake(tmp_path, *spec.get("run", ["--cores", "1"]), check=False)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    where = expect.get("in")
    text = (tmp_path / where).read_text(encoding="utf-8") if where else proc.stdout + proc.stderr
    assert expect["message"] in text, text[-3000:]
    if "Error in rule" in proc.stdout + proc.stderr:  # a job's own check: its message, without a traceback
        assert "Traceback" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]
    for path in expect.get("absent", []):
        assert not (tmp_path / path).exists(), path
    assert checksums(tmp_path, users) == before       # the user's files are only ever read
    leftovers = [p for p in tmp_path.rglob(".*.tmp*")]
    assert not leftovers, leftovers                   # no temporary file survives a failed job


def _variant_of_tiny(folder: Path, summaries=None, judgments=None) -> None:
    """A copy of .test/input/tiny with its summaries (records -> record or None) and judgment
    rows (cells -> cells or None) changed."""
    import json

    shutil.copytree(SCENARIOS / "input/tiny", folder)
    if summaries:
        records = [summaries(json.loads(l)) for l in (folder / "summaries.jsonl").read_text().splitlines()]
        (folder / "summaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records if r))
    if judgments:
        header, *rows = (folder / "judgments.tsv").read_text().splitlines()
        rows = [judgments(r.split("\t")) for r in rows]
        (folder / "judgments.tsv").write_text("\n".join([header, *("\t".join(r) for r in rows if r)]) + "\n")


def test_degenerate_but_legal_data_gives_results_with_one_note_naming_the_cause(tmp_path):
    """One system, constant human scores, text ROUGE cannot see (no ASCII letters: every score 0),
    and a '|' in a summarizer name: the run succeeds, and the notes name each cause once instead
    of blaming every one of the metric variants."""
    greek = str.maketrans({c: chr(0x3B1 + ord(c.lower()) - ord("a")) for c in string.ascii_letters})
    _variant_of_tiny(tmp_path / "input/one", summaries=lambda r: None if r["summarizer"] == "2" else r,
                     judgments=lambda c: None if c[1] == "2" else c)
    _variant_of_tiny(tmp_path / "input/flat", judgments=lambda c: c[:2] + ["3", "3"])
    _variant_of_tiny(tmp_path / "input/greek", summaries=lambda r: r if r["kind"] == "human" else
                     {**r, "sentences": [s.translate(greek) for s in r["sentences"]]})
    _variant_of_tiny(tmp_path / "input/pipe", summaries=lambda r: {**r, "summarizer": r["summarizer"].replace("1", "x|y")},
                     judgments=lambda c: [c[0], c[1].replace("1", "x|y"), *c[2:]])
    (tmp_path / "config").mkdir()
    names = ("one", "flat", "greek", "pipe")
    (tmp_path / "config/config.yaml").write_text(yaml.safe_dump(
        {"datasets": {n: {"format": "canonical", "path": f"input/{n}"} for n in names},
         "sera": {"enabled": False}, "correlation": {"bootstrap_samples": 10}}))
    snakemake(tmp_path, "--cores", "2", *(f"results/{n}/analysis/notes.tsv" for n in names),
              "results/pipe/rerank/table3.md", "results/pipe/report.html",
              *(f"results/{n}/statistics/notes.tsv" for n in ("one", "flat")))

    def notes(name):
        lines = (tmp_path / f"results/{name}/analysis/notes.tsv").read_text(encoding="utf-8").splitlines()[1:]
        return [tuple(l.split("\t")) for l in lines]

    one = notes("one")
    assert ("one_summarizer", "only 1 summarizer: a correlation across summarizers needs at least 3, so every "
                              "system-level correlation is NA and there are no system-level tests; the summary level "
                              "pools all judged summaries (summary_level_correlations.tsv)") in one
    assert not [n for n in one if n[0] in ("constant_metric", "williams_undefined")]
    flat = [n for n in notes("flat") if n[0] == "constant_human"]
    assert flat == [("constant_human", f"{c}: the same human score for every summarizer, so every correlation with it "
                                       "is undefined (NA)") for c in ("arithmetic", "geometric", "harmonic",
                                                                       "coverage", "linguistic_quality",
                                                                       "relevance", "fluency")]   # the dimensions too
    greek_notes = [n for n in notes("greek") if n[0].startswith("constant")]
    # chrF reads the Greek characters themselves: it may vary where all 192 ROUGE + 4 BLEU variants cannot
    assert greek_notes[0][1].startswith("all 196 ROUGE and BLEU variants give every summarizer the same score")
    assert all(n[1].startswith("CHRF") for n in greek_notes[1:])
    log = (tmp_path / "results/greek/logs/validate_dataset.log").read_text(encoding="utf-8")
    assert "3 of 7 summaries have no ASCII letter or digit (first: line 3, ('T1', '1'))" in log
    summary = (tmp_path / "results/greek/data/summary.tsv").read_text(encoding="utf-8")
    assert "summaries_without_ascii_letters_or_digits\t3\n" in summary
    table3 = (tmp_path / "results/pipe/rerank/table3.md").read_text(encoding="utf-8")
    rows = [l for l in table3.splitlines() if l.startswith("|")]
    assert sum("x\\|y" in l for l in rows) == 1                       # the escaped name, once
    assert len({l.replace("\\|", "").count("|") for l in rows}) == 1   # every row has the header's columns
    report = (tmp_path / "results/pipe/report.html").read_text(encoding="utf-8")
    assert "<td>x|y</td>" in report
    # the statistics stage: the same causes named, every value NA, no crash
    stat_notes = lambda n: tables.read_tsv(tmp_path / f"results/{n}/statistics/notes.tsv")  # noqa: E731
    assert "too_few_systems" in set(stat_notes("one").kind)
    assert "constant_human" in set(stat_notes("flat").kind)
    for n in ("one", "flat"):
        levels = tables.read_tsv(tmp_path / f"results/{n}/statistics/correlation_levels.tsv", numeric=("value",))
        assert len(levels) and levels[levels.level == "system"].value.isna().all()
