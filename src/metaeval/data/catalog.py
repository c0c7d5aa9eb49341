"""The catalog of benchmarks that come with the tool (``catalog.yaml`` beside this module), declared
once: each benchmark's repository and pinned commit, each release file's digests, and the
declaration its importer needs. A config names them (``benchmarks: [summeval, frank]`` or
``benchmarks: all``); :func:`entries` turns each into a data set entry whose release files are the
fetch job's copies in ``results/{name}/release/`` (:mod:`metaeval.data.fetch` fetches and verifies
them). The report cites each benchmark and names its licence; docs/benchmarks.md's table of the
catalog is :func:`markdown_table`'s.

Everything a fetch composes from the catalog (the owner, the repository's name, the commit, each
path) is checked here, when the catalog is read, before any request: a path is relative, in
forward slashes, with no empty, ``.`` or ``..`` segment, so that no URL, cache path or copy can
climb out of its folder.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from ..files import write_between_markers
from ..logs import CheckError
from .formats import FORMATS
from .safe_yaml import load as load_yaml

CATALOG = Path(__file__).with_name("catalog.yaml")
# the folder of a catalog data set's fetched release files, under results/{name}/
RELEASE = "release"
# where a repository's file is published at a commit
PUBLIC = "https://raw.githubusercontent.com"
ALL = "all"

NAME = re.compile(r"[a-z][a-z0-9_]*")
_OWNER_OR_REPO = re.compile(r"[A-Za-z0-9_.-]+")
_HEX40 = re.compile(r"[0-9a-f]{40}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SEGMENT = re.compile(r"[A-Za-z0-9_.+=@,~ -]+")
_KEYS = ("title", "description", "citation", "license", "repository", "commit", "files", "dataset", "joins", "judges")
# what a benchmark that joins another (its judges metrics of that data set) declares of them
_JUDGE_KEYS = ("layout", "judges", "methods", "pairwise_rule", "duplicates")
_FILE_KEYS = ("git_blob", "bytes", "sha256", "max_bytes", "optional", "repository", "commit")


class ReleaseFile(NamedTuple):
    """One file of a release: its path in the repository and what it must be."""
    path: str
    git_blob: str                 # the git object id: SHA-1 of b"blob <size>\\0" + the bytes
    bytes: int | None             # its size, where known
    sha256: str | None            # where known
    max_bytes: int                # the largest response accepted: ``bytes`` when known
    optional: bool                # the benchmark can do without it
    # the repository and commit of a file from another repository than the benchmark's (QAGS's
    # per-worker judgments are the authors', its summaries and scores BARTScore's); None: the benchmark's
    repository: str | None = None
    commit: str | None = None


class Release(NamedTuple):
    """What one fetch job fetches (its record: Snakemake compares it, so a new commit or digest
    re-runs the fetch and what reads its files)."""
    benchmark: str
    repository: str               # owner/name
    commit: str
    files: tuple[ReleaseFile, ...]

    def origin(self, file: ReleaseFile) -> tuple[str, str]:
        """(repository, commit) a file is read from: its own where it names them, else the benchmark's."""
        return file.repository or self.repository, file.commit or self.commit

    def origins(self) -> list[tuple[str, str]]:
        """Every (repository, commit) of the release, the benchmark's first."""
        return list(dict.fromkeys([(self.repository, self.commit), *(self.origin(f) for f in self.files)]))

    def public_url(self, file: ReleaseFile) -> str:
        repository, commit = self.origin(file)
        return f"{PUBLIC}/{repository}/{commit}/{file.path}"


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    description: str
    citation: str
    license: str
    release: Release
    dataset: Mapping[str, Any]    # the importer's declaration, paths relative to the repository ({} when it joins)
    # the benchmark whose data set this one's judges score (LLM_summeval's judges are metrics of
    # SummEval): not a data set of its own; None for a data set
    joins: str | None = None
    judges: Mapping[str, Any] | None = None   # their declaration (metaeval.data.judges.JudgeSpec's fields)

    @property
    def source(self) -> str:
        """Where the files come from, as the report and the resolved config say it."""
        r = self.release
        parts = []
        for repository, commit in r.origins():
            paths = ", ".join(f.path + (" (optional)" if f.optional else "") for f in r.files
                              if r.origin(f) == (repository, commit))
            parts.append(f"github.com/{repository} at commit {commit}: {paths}")
        return "; ".join(parts)


class CatalogError(CheckError):
    """The catalog file is wrong: the message names the file, the benchmark and the key."""


# ----------------------------------------------------------------------------- reading

def _fail(path: Path, where: str, problem: str) -> CatalogError:
    return CatalogError(f"{path}: {where}: {problem}")


def safe_path(path: Any) -> str | None:
    """The problem of a path relative to a repository or a release folder, or None: relative, forward
    slashes, no empty, ``.`` or ``..`` segment, printable ASCII names."""
    if not isinstance(path, str) or not path:
        return "expected a relative path (text)"
    if path.startswith("/") or "\\" in path or re.match(r"^[A-Za-z]:", path):
        return f"{path!r} is absolute or not in forward slashes; expected a path relative to the repository"
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            return f"{path!r} has an empty, '.' or '..' segment; expected a path inside the repository"
        if not _SEGMENT.fullmatch(segment):
            return f"{path!r} has a character outside letters, digits and ._+=@,~- and space"
    return None


def repository_problem(repository: Any) -> str | None:
    parts = repository.split("/") if isinstance(repository, str) else []
    if len(parts) != 2 or not all(_OWNER_OR_REPO.fullmatch(p) and p not in (".", "..") for p in parts):
        return f"{repository!r} is not owner/name of a GitHub repository"
    return None


def commit_problem(commit: Any) -> str | None:
    if not isinstance(commit, str) or not _HEX40.fullmatch(commit):
        return (f"{commit!r} is not a full commit id (40 lower-case hex digits): a file at a branch or tag can change "
                "under the same name")
    return None


def release_problem(release: Release) -> str | None:
    """What of a release record would make a URL, a cache path or a copy climb out of its folder (the
    catalog is checked when it is read; a fetch checks its record again before any request)."""
    for problem in (*(p for r, c in release.origins() for p in (repository_problem(r), commit_problem(c))),
                    *(safe_path(f.path) for f in release.files)):
        if problem:
            return problem
    return None


def _file(path: Path, where: str, name: str, spec: Any) -> ReleaseFile:
    problem = safe_path(name)
    if problem:
        raise _fail(path, f"{where}.files", problem)
    at = f"{where}.files[{name!r}]"
    if not isinstance(spec, dict):
        raise _fail(path, at, "expected {git_blob, bytes, sha256} (and max_bytes, optional)")
    unknown = sorted(set(spec) - set(_FILE_KEYS))
    if unknown:
        raise _fail(path, f"{at}.{unknown[0]}", f"unknown key; expected only {', '.join(_FILE_KEYS)}")
    if not isinstance(spec.get("git_blob"), str) or not _HEX40.fullmatch(spec["git_blob"]):
        raise _fail(path, f"{at}.git_blob", "expected the file's git object id (40 lower-case hex digits)")
    sha256 = spec.get("sha256")
    if sha256 is not None and (not isinstance(sha256, str) or not _HEX64.fullmatch(sha256)):
        raise _fail(path, f"{at}.sha256", "expected 64 lower-case hex digits")
    size, limit = spec.get("bytes"), spec.get("max_bytes")
    for key, value in (("bytes", size), ("max_bytes", limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise _fail(path, f"{at}.{key}", "expected a whole number of bytes")
    if size is None and not limit:
        raise _fail(path, at, "expected bytes, or max_bytes where the size is not known (the largest response "
                              "accepted)")
    optional = spec.get("optional", False)
    if not isinstance(optional, bool):
        raise _fail(path, f"{at}.optional", "expected true or false")
    repository, commit = spec.get("repository"), spec.get("commit")
    if (repository is None) != (commit is None):
        raise _fail(path, at, "expected both repository and commit (a file from another repository), or neither")
    for key, problem in (("repository", repository_problem(repository) if repository is not None else None),
                         ("commit", commit_problem(commit) if commit is not None else None)):
        if problem:
            raise _fail(path, f"{at}.{key}", problem)
    return ReleaseFile(name, spec["git_blob"], size, sha256, size if size is not None else limit, optional, repository,
                       commit)


def _text(path: Path, where: str, spec: Mapping[str, Any], key: str) -> str:
    value = spec.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, f"{where}.{key}", "expected text")
    return " ".join(value.split())


def _dataset(path: Path, where: str, spec: Any, files: tuple[ReleaseFile, ...]) -> dict[str, Any]:
    """The importer's declaration, its files key filled in from the required files when left out; it
    and the format's other keys naming release files (:attr:`ReleaseFormat.release_keys`) must name
    files (or folders of files) of the benchmark."""
    if not isinstance(spec, dict) or spec.get("format") not in FORMATS:
        raise _fail(path, f"{where}.dataset.format", f"expected one of {', '.join(FORMATS)}")
    fmt = FORMATS[spec["format"]]
    out = dict(spec)
    required = [f.path for f in files if not f.optional]
    if fmt.files_key not in out:
        if fmt.files_key == "path" and len(required) != 1:
            raise _fail(path, f"{where}.dataset.path", f"expected the path of the release (the {spec['format']} "
                                                       f"format reads one), since the benchmark has {len(required)} files")
        out[fmt.files_key] = required if fmt.files_key == "paths" else required[0]
    for files_key in (fmt.files_key, *(k for k in fmt.release_keys if k in out)):
        given = out[files_key]
        for i, p in enumerate(given if isinstance(given, list) else [given]):
            problem = safe_path(p)
            key = f"{files_key}[{i}]" if isinstance(given, list) else files_key
            if problem:
                raise _fail(path, f"{where}.dataset.{key}", problem)
            if not any(f.path == p or f.path.startswith(p + "/") for f in files):
                raise _fail(path, f"{where}.dataset.{key}", f"{p!r} is neither a file of the benchmark nor a folder "
                                                            "of its files")
    return out


def _benchmark(path: Path, name: Any, spec: Any) -> Benchmark:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise _fail(path, repr(name), "a benchmark's name is lower-case letters, digits and '_', starting with a "
                                      "letter (it names the data set and results/<name>/)")
    if not isinstance(spec, dict):
        raise _fail(path, name, f"expected a mapping with {', '.join(_KEYS)}")
    unknown = sorted(set(spec) - set(_KEYS))
    if unknown:
        raise _fail(path, f"{name}.{unknown[0]}", f"unknown key; expected only {', '.join(_KEYS)}")
    repository, commit = spec.get("repository"), spec.get("commit")
    for key, problem in (("repository", repository_problem(repository)), ("commit", commit_problem(commit))):
        if problem:
            raise _fail(path, f"{name}.{key}", problem)
    if not isinstance(spec.get("files"), dict) or not spec["files"]:
        raise _fail(path, f"{name}.files", "expected one or more files: path -> {git_blob, bytes, sha256}")
    files = tuple(_file(path, name, p, f) for p, f in spec["files"].items())
    texts = tuple(_text(path, name, spec, k) for k in ("title", "description", "citation", "license"))
    release = Release(name, repository, commit, files)
    if "joins" in spec:
        return Benchmark(name, *texts, release, {}, _joined(path, name, spec), dict(spec["judges"]))
    dataset = _dataset(path, name, spec.get("dataset"), files)
    return Benchmark(name, *texts, release, dataset)


def _joined(path: Path, name: str, spec: Mapping[str, Any]) -> str:
    """The benchmark a judges' release joins, its declaration checked: ``joins`` names the data set,
    ``judges`` the release's layout, its judges, methods (method -> parse rule), the pairwise rule
    and the duplicates policy; no ``dataset`` (it is not a data set)."""
    joins = spec["joins"]
    if not isinstance(joins, str) or not NAME.fullmatch(joins):
        raise _fail(path, f"{name}.joins", "expected the name of the benchmark whose data set its judges score")
    if "dataset" in spec:
        raise _fail(path, f"{name}.dataset", "a benchmark that joins another is not a data set; expected no dataset")
    judges = spec.get("judges")
    if not isinstance(judges, dict):
        raise _fail(path, f"{name}.judges", f"expected a mapping with {', '.join(_JUDGE_KEYS)}")
    unknown = sorted(set(judges) - set(_JUDGE_KEYS))
    if unknown:
        raise _fail(path, f"{name}.judges.{unknown[0]}", f"unknown key; expected only {', '.join(_JUDGE_KEYS)}")
    if judges.get("layout") != "llm_summeval":
        raise _fail(path, f"{name}.judges.layout", "expected llm_summeval (the release layouts the judges' reader knows)")
    if not isinstance(judges.get("judges"), list) or not all(isinstance(j, str) and j for j in judges["judges"]):
        raise _fail(path, f"{name}.judges.judges", "expected a list of the judges (the release's folder names)")
    methods = judges.get("methods")
    if not isinstance(methods, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in methods.items()):
        raise _fail(path, f"{name}.judges.methods", "expected method -> parse rule (e.g. {rts: rts})")
    if judges.get("duplicates", "last") not in ("last", "mean"):
        raise _fail(path, f"{name}.judges.duplicates", "expected last or mean")
    return joins


def read(path: Path | str = CATALOG) -> dict[str, Benchmark]:
    """A catalog file, checked (:class:`CatalogError` names the benchmark and the key)."""
    path = Path(path)

    def error(where: str, line: int | None, problem: str) -> CatalogError:
        return CatalogError(f"{where}{f', line {line}' if line else ''}: {problem}")

    document, _ = load_yaml(path.read_text(encoding="utf-8"), path, error)
    if not isinstance(document, dict) or not document:
        raise _fail(path, "(top level)", "expected benchmarks by name")
    return {name: _benchmark(path, name, spec) for name, spec in document.items()}


@lru_cache(maxsize=1)
def benchmarks() -> dict[str, Benchmark]:
    """The catalog of the tool, read once."""
    return read(CATALOG)


# ----------------------------------------------------------------------------- a config's benchmarks

def chosen(value: Any, catalog: Mapping[str, Benchmark]) -> list[str]:
    """The names a config's ``benchmarks:`` gives (``all``, or a list of the catalog's names), in
    the catalog's order for ``all`` and as given otherwise; an error names the key and lists the
    catalog's names."""
    names = ", ".join(catalog)
    if value is None:
        return []
    if value == ALL:
        return list(catalog)
    if not isinstance(value, list):
        raise ValueError(f"config key benchmarks: {value!r} is not a list of benchmarks; expected {ALL!r} or a list "
                         f"of the catalog's names ({names})")
    for i, name in enumerate(value):
        if name not in catalog:
            close = difflib.get_close_matches(str(name), list(catalog), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"config key benchmarks[{i}]: {name!r} is not a benchmark of the catalog; {hint}"
                             f"expected one of {names} (or benchmarks: {ALL})")
        if name in value[:i]:
            raise ValueError(f"config key benchmarks[{i}]: {name!r} is named twice")
    return list(value)


def named(value: Any) -> set[str]:
    """The names a ``benchmarks:`` value gives, unchecked (a name the catalog lacks is refused when the
    config is checked, :func:`chosen`)."""
    names = benchmarks() if value == ALL else value if isinstance(value, list) else []
    return {n for n in names if isinstance(n, str)}


def with_benchmarks(datasets: Any, value: Any, results: str) -> tuple[Any, list[str]]:
    """(a config's ``datasets`` with the benchmarks ``value`` names, each under its name with its
    :func:`entry`; their names). A name the catalog lacks, or a data set of the config's own under a
    benchmark's name, is a ValueError naming the key."""
    if not value:                        # none named: the catalog is not even read
        return datasets, []
    known = benchmarks()
    names = chosen(value, known)
    if names and not isinstance(datasets, Mapping):
        datasets = {}
    if not isinstance(datasets, Mapping):
        return datasets, names           # no data sets at all: the schema says so
    out = dict(datasets)
    for i, name in enumerate(names):
        joins = known[name].joins
        if joins is not None:
            if joins not in names:
                raise ValueError(f"config key benchmarks[{i}]: {name!r} joins the benchmark {joins!r} (its judges are "
                                 f"metrics of that data set); expected {joins!r} named too (or benchmarks: {ALL})")
            continue
        if name in out:
            raise ValueError(f"config keys benchmarks[{i}] and datasets.{name}: both name the data set {name!r}; "
                             "expected one of them (the catalog's benchmark, or your entry under another name)")
        out[name] = entry(known[name], results)
    return out, names


def judges_of(names: list[str], results: str) -> dict[str, list[dict[str, Any]]]:
    """By data set, the judges the chosen benchmarks that join it declare: their declaration with the
    release folder (``root``) of the fetch job's copies."""
    known = benchmarks()
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        b = known[name]
        if b.joins is not None and b.judges is not None:
            # the judge x method pairs the release has (its files eval_model_generations/<judge>/.../<dim>_<method>.txt)
            present = sorted({(parts[1], parts[3].rsplit(".", 1)[0].rpartition("_")[2]) for parts in
                              (f.path.split("/") for f in b.release.files) if len(parts) == 4
                              and parts[0] == "eval_model_generations"})
            out.setdefault(b.joins, []).append({**b.judges, "root": release_folder(name, results), "benchmark": name,
                                                "present": present})
    return out


def release_folder(name: str, results: str) -> str:
    """Where a catalog data set's fetched files are: ``results/{name}/release``."""
    return f"{results}/{name}/{RELEASE}"


def entry(benchmark: Benchmark, results: str) -> dict[str, Any]:
    """The data set entry of a catalog benchmark: its importer's declaration with the release paths
    under the fetch job's folder, and the benchmark's source, licence and citation (the report's
    data-set section; the importer's description of the data, more precise than the catalog's line,
    is kept)."""
    root = release_folder(benchmark.name, results)
    out = dict(benchmark.dataset)
    for key in release_keys(out):
        given = out[key]
        out[key] = [f"{root}/{p}" for p in given] if isinstance(given, list) else f"{root}/{given}"
    out.update(source=benchmark.source, license=benchmark.license, citation=benchmark.citation)
    return out


def release_keys(declaration: Mapping[str, Any]) -> list[str]:
    """The keys of a declaration (an importer's, paths relative to the repository) that name release
    files: its format's files key and the other keys its format reads files from, where given."""
    fmt = FORMATS[declaration["format"]]
    return [fmt.files_key, *(k for k in fmt.release_keys if k in declaration)]


def fetched_files(benchmark: Benchmark, results: str) -> dict[str, str]:
    """The fetch job's copies of the required files (its outputs besides the manifest), by path in the
    repository. An optional file is copied beside them when it can be had (the manifest says)."""
    root = release_folder(benchmark.name, results)
    return {f.path: f"{root}/{f.path}" for f in benchmark.release.files if not f.optional}


def markdown_table(catalog: Mapping[str, Benchmark] | None = None) -> str:
    """The catalog as docs/benchmarks.md shows it (written there by ``python -m metaeval.data.catalog``)."""
    catalog = benchmarks() if catalog is None else catalog
    rows = ["| name | benchmark | repository at commit | files | bytes | licence |", "|---|---|---|---|---|---|"]
    for b in catalog.values():
        r = b.release
        size = sum(f.bytes or 0 for f in r.files)
        optional = [f for f in r.files if f.optional]
        note = f" (+ {len(optional)} optional{', size unknown' if any(f.bytes is None for f in optional) else ''})" \
            if optional else ""
        where = " + ".join(f"[{repository}](https://github.com/{repository}/tree/{commit}) `{commit[:7]}`"
                           for repository, commit in r.origins())
        rows.append(f"| `{b.name}` | {b.title} | {where} | {len(r.files) - len(optional)}{note} | {size:,} | "
                    f"{b.license} |")
    return "\n".join(rows)


def write_table(path: str) -> None:
    """Put :func:`markdown_table` between the ``catalog`` markers of a Markdown file
    (docs/benchmarks.md: ``python -m metaeval.data.catalog --write docs/benchmarks.md``)."""
    write_between_markers(path, "catalog", markdown_table())


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--write"]:
        write_table(sys.argv[2])
    else:
        print(markdown_table())
