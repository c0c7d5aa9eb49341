"""Archive stage: a reproducible archive of one data set's results.

``results/archive/{dataset}-{config hash}.tar.gz`` unpacks to one folder holding:

* ``config/config.yaml``: the resolved configuration, with the data set entry pointing at the
  archived canonical copy, so that running the workflow in the unpacked folder redoes everything;
* ``data/{dataset}/``: the canonical data set (the validated copy every stage read), the score
  files of metrics computed elsewhere as they were read (a folder's ``metric_scores.tsv`` as
  ``metric_scores.tsv``, the files the entry names under ``metric_scores/``; of a top-level file
  for every data set, its header and the rows of this data set, also under ``metric_scores/`` and
  named by the archived entry) and ``SHA256SUMS``;
* ``archived_results/{dataset}/``: every result of the data set as it was produced;
* ``provenance.yaml``: the original configuration entry, the config hash, the workflow's git commit
  and whether its tree was dirty, and the exact package versions; ``README.md``: how to reproduce.

The tarball is byte-stable: sorted members, zero timestamps and owners, gzip without a date.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from ..data.catalog import RELEASE
from ..data.contract import FILES, METRIC_SCORES
from ..data.shared_scores import own_rows
from ..files import atomic_path
from ..memo import FOLDER as MEMO
from ..provenance import package_versions


README = """# Reproducible results: data set {dataset}, configuration {hash}

Produced by the metaeval workflow at git commit {commit}{dirty}.

To reproduce:

1. Get the workflow at that commit and install it (package versions used: provenance.yaml):

       git clone <metaeval repository> metaeval && cd metaeval && git checkout {commit}
       python3 -m venv .venv && .venv/bin/pip install -e .

2. In this unpacked folder, run it; config/config.yaml already points at the archived data:

       /path/to/metaeval/.venv/bin/snakemake -s /path/to/metaeval/Snakefile --cores 2

3. Compare: `diff -r archived_results/{dataset} results/{dataset} -x logs` shows no difference.

data/{dataset}/SHA256SUMS lists the checksums of the canonical data set.
"""


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def archived_score_files(entry: Mapping[str, Any], sources: Sequence[str]) -> list[tuple[str, str]]:
    """(source, name under data/{dataset}/) of every score file: a canonical folder's own
    metric_scores.tsv keeps its name (the rerun reads it from the folder), the entry's files go to
    ``metric_scores/`` under their names (numbered when two share a name)."""
    folder = str(Path(entry["path"]) / METRIC_SCORES) if entry["format"] == "canonical" else None
    named = [s for s in sources if s != folder]
    names = [Path(s).name for s in named]
    out = [(folder, METRIC_SCORES)] if folder in sources else []
    out += [(s, f"metric_scores/{n if names.count(n) == 1 else f'{i}-{n}'}") for i, (s, n) in enumerate(zip(named, names))]
    return out


def write_archive(dataset: str, results_dir: str | Path, resolved_config: Mapping[str, Any], config_hash: str,
                  git: Mapping[str, Any], out: str | Path, score_files: Sequence[str] = ()) -> None:
    """Archive one data set's results folder; ``git`` = the workflow's commit and dirty flag
    (:func:`metaeval.provenance.git_state`); ``score_files``: the data set's score files of metrics
    computed elsewhere (:meth:`metaeval.options.Options.file_metric_sources`)."""
    results_dir = Path(results_dir)
    root = f"{dataset}-{config_hash}"
    original = dict(resolved_config["datasets"][dataset])
    scores = archived_score_files(original, score_files)
    entry: dict[str, Any] = {"format": "canonical", "path": f"data/{dataset}"}
    named = [f"data/{dataset}/{name}" for _, name in scores if name != METRIC_SCORES]
    entry.update({"metric_scores": named} if named else {})
    entry.update({k: original[k] for k in ("human", "metrics", "partial_coverage") if k in original})
    rerun_config = {k: v for k, v in resolved_config.items() if k != "datasets"}
    # a top-level score file is archived as this data set's rows, which the entry names
    shared = {Path(p) for p in rerun_config.get("metric_scores", [])}
    rerun_config = {"datasets": {dataset: entry}, **rerun_config, **({"metric_scores": []} if shared else {})}
    members: dict[str, bytes] = {}
    # hidden files are temporary names of interrupted writes (metaeval.files), the memo a cache of
    # the jobs' rows for their next run (metaeval.memo), a catalog benchmark's fetched release the
    # authors' files (under their licences; the canonical copy in data/ is what a rerun reads): never archived
    for path in sorted(p for p in results_dir.rglob("*") if p.is_file() and not p.name.startswith(".")
                       and p.relative_to(results_dir).parts[0] not in (MEMO, RELEASE)):
        members[f"{root}/archived_results/{dataset}/{path.relative_to(results_dir).as_posix()}"] = path.read_bytes()
    sums = []
    for path, name in [*((results_dir / "data" / n, n) for n in FILES.values()), *scores]:
        data = Path(path).read_bytes()
        data = own_rows(data, dataset) if Path(path) in shared else data
        members[f"{root}/data/{dataset}/{name}"] = data
        sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
    members[f"{root}/data/{dataset}/SHA256SUMS"] = "".join(sums).encode()
    members[f"{root}/config/config.yaml"] = yaml.safe_dump(rerun_config, sort_keys=False).encode()
    provenance = {"dataset": dataset, "config_hash": config_hash, "original_dataset_entry": original,
                  "workflow_git_commit": git["commit"], "workflow_tree_dirty": git["dirty"],
                  "package_versions": package_versions()}
    members[f"{root}/provenance.yaml"] = yaml.safe_dump(provenance, sort_keys=False).encode()
    members[f"{root}/README.md"] = README.format(dataset=dataset, hash=config_hash, commit=git["commit"],
                                                 dirty=" (with uncommitted changes)" if git["dirty"] else "").encode()
    with atomic_path(out) as tmp, open(tmp, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            _add(tar, name, members[name])
