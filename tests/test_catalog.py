"""The catalog of benchmarks (metaeval.data.catalog): its entries are the releases' files (checked
against SOURCES.tsv of the project's copies, whose git blob ids were checked against the
repositories), its declarations are valid config entries, the docs show it, a bad entry is refused
naming the benchmark and the key, and a config names benchmarks by name or ``all``."""
from __future__ import annotations

import pytest

from conftest import REPO, shared_dataset
from metaeval.data import catalog
from metaeval.files import between_markers
from metaeval.options import ConfigError, Options, datasets_named_by_user


def test_every_file_of_the_catalog_is_the_releases():
    """Repository, commit, git blob id, size and SHA-256 of every catalog file equal SOURCES.tsv's, and
    every file the catalog requires has a copy there (so the loopback mirror of the tests serves it).
    SOURCES.tsv does not list XSumFaith's files nor QAGS's per-worker judgments: their copies' folders
    name the repository and the commit in PROVENANCE.md, and the copies' git blob ids (git's own,
    below) are the catalog's."""
    import csv

    from mirror import provenance_rows

    raw = shared_dataset("raw")
    with open(raw / "SOURCES.tsv", encoding="utf-8", newline="") as fh:
        listed = {(r["repository"], r["commit"], r["path"]): r for r in csv.DictReader(fh, delimiter="\t")}
    provenance = {(r["repository"], r["commit"], r["path"]): r for r in provenance_rows(raw, set(listed))}
    checked = 0
    for b in catalog.benchmarks().values():
        r = b.release
        for f in r.files:
            key = (*r.origin(f), f.path)
            row = listed.get(key) or provenance[key]
            if key in provenance:
                text = " ".join((raw / row["copy_here"]).parent.joinpath("PROVENANCE.md").read_text().split())
                assert f"repository {key[0]}" in text and f"commit {key[1]}" in text, f.path
            assert f.git_blob == row["git_blob"], f.path
            if row["bytes"]:
                assert (f.bytes, f.sha256) == (int(row["bytes"]), row["sha256"]), f.path
            assert bool(row["copy_here"]) or f.optional, f"{f.path}: required, and not in the copies"
            checked += 1
    assert checked == 556 and len(provenance) == 5


def test_the_catalogs_files_are_what_git_says(tmp_path):
    """The copies' digests (metaeval.data.fetch.digests) are git's: ``git hash-object`` on each copy."""
    import subprocess

    from metaeval.data.fetch import digests
    from mirror import sources

    raw = shared_dataset("raw")
    by_path = {(r["repository"], r["path"]): raw / r["copy_here"] for r in sources(raw) if r["copy_here"]}
    for b in catalog.benchmarks().values():
        for f in b.release.files:
            if f.optional:
                continue
            copy = by_path[(b.release.origin(f)[0], f.path)]
            gits = subprocess.run(["git", "hash-object", str(copy)], capture_output=True, text=True, check=True)
            size, sha256, blob = digests(copy)
            assert blob == gits.stdout.strip() == f.git_blob and (size, sha256) == (f.bytes, f.sha256), f.path


def test_every_declaration_is_a_valid_config_entry_of_its_format():
    options = Options.from_config({"benchmarks": "all"})
    assert list(options.benchmarks) == list(catalog.benchmarks())
    for name, entry in options.datasets.items():
        b = catalog.benchmarks()[name]
        assert entry["format"] == b.dataset["format"]
        assert entry["citation"] == b.citation and entry["license"] == b.license
        assert f"github.com/{b.release.repository} at commit {b.release.commit}" in entry["source"]
    assert options.datasets["summeval"]["paths"][0] == \
        "results/summeval/release/model_output_annotations/M8_outputs_annotations.jsonl"
    assert options.datasets["frank"]["path"] == "results/frank/release/data"
    assert options.datasets["newsroom"]["release"] == "Newsroom"


def test_the_docs_table_is_the_catalogs():
    assert between_markers(REPO / "docs/benchmarks.md", "catalog") == catalog.markdown_table()


BASE = """summeval:
  title: SummEval
  description: d
  citation: c
  license: MIT
  repository: owner/name
  commit: 0123456789abcdef0123456789abcdef01234567
  files:
    a/b.jsonl: {git_blob: "0123456789abcdef0123456789abcdef01234567", bytes: 3, sha256: "%s"}
  dataset: {format: summeval_jsonl}
""" % ("ab" * 32)


@pytest.mark.parametrize("change,where", [
    (("a/b.jsonl:", "../b.jsonl:"), "summeval.files: '../b.jsonl' has an empty, '.' or '..' segment"),
    (("a/b.jsonl:", "/etc/b.jsonl:"), "summeval.files: '/etc/b.jsonl' is absolute"),
    (("a/b.jsonl:", "a//b.jsonl:"), "summeval.files: 'a//b.jsonl' has an empty"),
    (("owner/name", "owner/.."), "summeval.repository: 'owner/..' is not owner/name"),
    (("owner/name", "../name"), "summeval.repository: '../name' is not owner/name"),
    (("commit: 0123", "commit: main0123"), "summeval.commit: 'main0123"),
    (('git_blob: "0123', 'git_blob: "x123'), "summeval.files['a/b.jsonl'].git_blob: expected the file's git object id"),
    (("bytes: 3, ", ""), "summeval.files['a/b.jsonl']: expected bytes, or max_bytes"),
    (("format: summeval_jsonl", "format: summeval_jsonl, paths: [c.jsonl]"),
     "summeval.dataset.paths[0]: 'c.jsonl' is neither a file of the benchmark nor a folder of its files"),
    (("format: summeval_jsonl", "format: nope"), "summeval.dataset.format: expected one of"),
    (("summeval:", "SummEval:"), "'SummEval': a benchmark's name is lower-case"),
    (("  license: MIT\n", "  license: MIT\n  licence: MIT\n"), "summeval.licence: unknown key"),
])
def test_a_bad_catalog_entry_is_refused_naming_the_benchmark_and_the_key(tmp_path, change, where):
    path = tmp_path / "catalog.yaml"
    path.write_text(BASE.replace(*change))
    with pytest.raises(catalog.CatalogError) as e:
        catalog.read(path)
    assert str(e.value).startswith(f"{path}: {where}"), str(e.value)
    path.write_text(BASE)
    assert catalog.read(path)["summeval"].dataset["paths"] == ["a/b.jsonl"]   # the files key from the files


def test_a_config_names_benchmarks_by_name_or_all():
    names = list(catalog.benchmarks())
    assert sorted(Options.from_config({"benchmarks": ["frank", "summeval"]}).datasets) == ["frank", "summeval"]
    both = Options.from_config({"benchmarks": ["rank19"], "datasets": {"mine": {"format": "simulated"}}})
    assert sorted(both.datasets) == ["mine", "rank19"] and list(both.benchmarks) == ["rank19"]
    with pytest.raises(ConfigError) as e:
        Options.from_config({"benchmarks": ["sumeval"]})
    assert str(e.value) == (f"config key benchmarks[0]: 'sumeval' is not a benchmark of the catalog; did you mean "
                            f"'summeval'? expected one of {', '.join(names)} (or benchmarks: all)")
    with pytest.raises(ConfigError, match=r"config keys benchmarks\[0\] and datasets.frank: both name the data set"):
        Options.from_config({"benchmarks": ["frank"], "datasets": {"frank": {"format": "simulated"}}})
    with pytest.raises(ConfigError, match=r"config key benchmarks\[1\]: 'frank' is named twice"):
        Options.from_config({"benchmarks": ["frank", "frank"]})
    with pytest.raises(ConfigError, match="config key benchmarks: 'every' is not a list of benchmarks"):
        Options.from_config({"benchmarks": "every"})
    # a config naming benchmarks names data sets: the embedded simulated one is left out of its run
    assert datasets_named_by_user([{"benchmarks": ["frank"]}], {}) == {"frank"}
    assert datasets_named_by_user([{"benchmarks": "all"}, {"datasets": {"mine": {}}}], {}) == {*names, "mine"}
    assert datasets_named_by_user([{"rouge": {}}], {}) is None


def test_a_catalog_benchmarks_release_paths_are_not_looked_for_when_the_config_is_checked(tmp_path, monkeypatch):
    """Its files are its fetch job's outputs: a config naming it is valid before anything is fetched,
    in a folder with nothing in it."""
    monkeypatch.chdir(tmp_path)
    options = Options.from_config({"benchmarks": "all"})
    # a benchmark that joins another (LLM_summeval's judges join SummEval) is that data set's metrics, not a data set
    data_sets = [n for n, b in catalog.benchmarks().items() if b.joins is None]
    assert not (tmp_path / "results").exists() and sorted(options.datasets) == sorted(data_sets)
