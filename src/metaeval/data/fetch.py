"""Fetching a catalog benchmark's release files (:mod:`metaeval.data.catalog`): from the public host at
the pinned commit, or from a mirror, into a cache, each file verified against its git blob id (and
SHA-256 where the catalog has it) before anything reads it; then copied into the fetch job's folder
``results/{name}/release/``, verified again as it is copied, with a manifest of what is there.

* **The source.** ``https://raw.githubusercontent.com/{owner}/{name}/{commit}/{path}``, or a mirror
  (``benchmarks_mirror:`` in the config, else the environment variable ``METAEVAL_MIRROR``): a
  folder or an http(s) base URL laid out as ``{owner}/{name}/{commit}/{path}``. Where the bytes come
  from changes nothing of what a job writes (every file must match the catalog's digests), so the
  :class:`Source` is not part of the job's record: a new mirror or cache re-runs nothing.
* **The cache.** ``{cache}/{owner}/{name}/{commit}/{path}``, by default ``resources/benchmarks/``
  under the repository; ``METAEVAL_CACHE`` moves it. A cached file is verified each time a job uses
  it; one whose digest no longer matches (or a link put in its place) is fetched again.
* **Nothing half-done is kept.** A file is written under a temporary name, verified, then renamed
  (:func:`metaeval.files.atomic_path`): it is complete and verified, or absent; the temporary file
  of a fetch killed outright is removed by the next fetch of that file. Runs sharing a cache take a
  lock per repository and commit (``{cache}/.locks/``; ``fcntl.flock``, released when the process
  ends, however it ends): the second run waits, then finds the file there and verified.
* **Failures.** A connection refused or dropped, a timeout, HTTP 408/429/5xx are retried after
  :data:`RETRY_PAUSES`; then the error names the URL and says how to set a mirror. HTTP 404 (or a
  file missing from a mirror folder) is an error for a required file, and leaves an optional one
  out (the run goes on, the log and the manifest say why). A digest mismatch, a response larger than
  the catalog's size, or a redirect to another host stops the fetch at once: nothing is kept.

HTTP is ``requests``' (connections, TLS, streaming, proxies from ``HTTP(S)_PROXY``; ``urllib3``
checks that a body is as long as its Content-Length). pooch, which fetches files against known
hashes, was weighed: it verifies plain hashes only (not a git blob id, the one digest every catalog
file has), retries a digest mismatch, cannot cap a response or refuse a redirect to another host,
and does not lock a shared cache; what it would add is a temporary name and a retry loop, both here
in a few lines and in the form the points above need. Snakemake's HTTP storage plugin keeps its
copies per working directory and verifies nothing.

The job's shape: :func:`compute` (fetch into the cache: :class:`Fetched` per file) ->
:func:`write` (the verified copies and ``MANIFEST.tsv``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple
from urllib.parse import urljoin, urlsplit

from ..files import atomic_path, write_text
from ..logs import CheckError, log
from .catalog import Release, ReleaseFile, release_problem

ENV_MIRROR = "METAEVAL_MIRROR"
ENV_CACHE = "METAEVAL_CACHE"
# the pauses before the second, third and fourth try of a transfer that failed on the way
RETRY_PAUSES = (1.0, 2.0, 4.0)
TIMEOUT = (15.0, 60.0)            # seconds to connect, and between two reads of a response
CHUNK = 1 << 16
MAX_REDIRECTS = 5
PROGRESS_EVERY = 5.0              # seconds between two progress lines of one file
TRANSFERS = 8                     # files in flight at once (a polite number for one host)
MANIFEST_COLUMNS = ("path", "status", "bytes", "sha256", "git_blob", "url", "note")
MIRROR_HINT = (f"offline or behind a firewall, point the workflow at a mirror of the release files: the config key "
               f"benchmarks_mirror or the environment variable {ENV_MIRROR}, a folder or an http(s) URL laid out as "
               "{owner}/{name}/{commit}/{path} (docs/benchmarks.md, \"Offline: a mirror\"); a proxy is taken from "
               "HTTPS_PROXY")


class FetchError(CheckError):
    """A release file could not be had, or was not what the catalog says: the message names the
    benchmark, the file and the URL (a check: the job ends with it, without a traceback)."""


class _Transient(Exception):
    """A failure worth another try (the connection, a timeout, the server busy)."""


class _NotThere(Exception):
    """The source does not have the file (HTTP 404, or not in the mirror folder)."""


# ----------------------------------------------------------------------------- digests

def digests(path: Path | str) -> tuple[int, str, str]:
    """(size, SHA-256, git blob id) of a file, read once. The git blob id is the SHA-1 of
    ``b"blob <size>\\0"`` and the bytes (git's object id of the file's content)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        sha256, sha1 = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % size)
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            sha256.update(chunk)
            sha1.update(chunk)
    return size, sha256.hexdigest(), sha1.hexdigest()


def mismatch(file: ReleaseFile, size: int, sha256: str, git_blob: str) -> str | None:
    """How a file's digests differ from the catalog's, or None."""
    if git_blob != file.git_blob:
        return f"its git blob id is {git_blob}, expected {file.git_blob} ({size:,} bytes, sha256 {sha256})"
    if file.sha256 is not None and sha256 != file.sha256:
        return f"its sha256 is {sha256}, expected {file.sha256}"
    if file.bytes is not None and size != file.bytes:
        return f"it has {size:,} bytes, expected {file.bytes:,}"
    return None


# ----------------------------------------------------------------------------- where

@dataclass(frozen=True)
class Source:
    """Where the bytes come from (``mirror``: a folder or an http(s) base URL; None: the public host)
    and where they are kept (``cache``). A dataclass, not a record: Snakemake's params trigger
    compares plain values only, and where a verified file came from changes no output."""

    mirror: str | None
    cache: str
    retry_pauses: tuple[float, ...] = RETRY_PAUSES

    @classmethod
    def resolve(cls, mirror: str | None, default_cache: str, environ: Mapping[str, str] = os.environ) -> Source:
        """The config's mirror, else ``METAEVAL_MIRROR``'s; ``METAEVAL_CACHE``, else ``default_cache``.
        A folder is made absolute; a mirror that is neither an http(s) URL nor a folder is an error
        naming where it was given."""
        given, where = (mirror, "config key benchmarks_mirror") if mirror else (environ.get(ENV_MIRROR) or None,
                                                                                 f"environment variable {ENV_MIRROR}")
        if given and "://" in given:
            parts = urlsplit(given)
            if parts.scheme == "file":
                given = parts.path
            elif parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(f"{where}: {given!r} is not an http(s) URL; expected a folder or an http(s) URL "
                                 "laid out as {owner}/{name}/{commit}/{path}")
            else:
                given = given.rstrip("/")
        if given and "://" not in given:
            if not Path(given).is_dir():
                raise ValueError(f"{where}: {given!r} is not a folder (relative paths are relative to the working "
                                 "directory); expected a folder or an http(s) URL laid out as "
                                 "{owner}/{name}/{commit}/{path}")
            given = os.path.abspath(given)
        return cls(given, os.path.abspath(environ.get(ENV_CACHE) or default_cache))

    def location(self, release: Release, file: ReleaseFile) -> str:
        """The URL (or the mirror folder's path) of a file (from its own repository and commit)."""
        if self.mirror is None:
            return release.public_url(file)
        sep = "/" if "://" in self.mirror else os.sep
        return sep.join([self.mirror, *release.origin(file), file.path])

    def cached(self, release: Release, file: ReleaseFile) -> Path:
        return Path(self.cache, *release.origin(file), file.path)

    def lock(self, repository: str, commit: str, benchmark: str) -> Path:
        """The lock of one benchmark's files of one repository and commit in the cache: two benchmarks
        reading one repository (SummEval's and LLM_summeval's files are both LLM_summeval's) fetch at
        once; a file both read is whole and verified whichever writes it last (written under a
        temporary name, then renamed)."""
        return Path(self.cache, ".locks", repository, f"{commit}.{benchmark}.lock")


@contextlib.contextmanager
def _locked(path: Path, what: str) -> Iterator[None]:
    """An exclusive lock on ``path`` (waited for, and said so, while another run holds it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            log.info("%s: another run is fetching into the cache (lock %s); waiting for it", what, path)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# ----------------------------------------------------------------------------- one transfer

def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


class _Progress:
    """The progress lines of one file: at most one every :data:`PROGRESS_EVERY` seconds."""

    def __init__(self, what: str, size: int | None):
        self.what, self.size, self.start = what, size, time.monotonic()
        self.last = self.start

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            of = f" of {self.size:,}" if self.size else ""
            log.info("%s: %s%s bytes", self.what, f"{done:,}", of)


def _copy_capped(chunks: Iterable[bytes], out: Path, limit: int, url: str, progress: Callable[[int], None]) -> int:
    """Write ``chunks`` to ``out``, stopping (:class:`FetchError`) past ``limit`` bytes."""
    done = 0
    with open(out, "wb") as fh:
        for chunk in chunks:
            done += len(chunk)
            if done > limit:
                raise FetchError(f"{url}: the response is larger than the catalog's {limit:,} bytes for this file; "
                                 "the fetch stopped and nothing of it is kept")
            fh.write(chunk)
            progress(done)
    return done


def _from_folder(path: str, out: Path, limit: int, progress: Callable[[int], None]) -> int:
    if not os.path.isfile(path):
        raise _NotThere(f"not in the mirror folder ({path})")
    with open(path, "rb") as fh:
        return _copy_capped(iter(lambda: fh.read(CHUNK), b""), out, limit, path, progress)


def _from_http(session, url: str, out: Path, limit: int, progress: Callable[[int], None]) -> int:
    """One GET of ``url`` into ``out``: redirects followed on the same host only."""
    import requests   # deferred: requests (urllib3, TLS) is loaded by the fetch job alone

    current = url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            response = session.get(current, stream=True, allow_redirects=False, timeout=TIMEOUT)
        except (requests.ConnectionError, requests.Timeout) as e:
            raise _Transient(f"could not connect ({e})") from None
        with response:
            if response.is_redirect:
                target = urljoin(current, response.headers.get("Location", ""))
                if _origin(target) != _origin(url):
                    raise FetchError(f"{url}: redirected to another host ({target}); refused, nothing is fetched from "
                                     "there (a mirror must serve the files itself)")
                current = target
                continue
            status = response.status_code
            if status == 404:
                raise _NotThere("HTTP 404: not found")
            if status in (408, 429) or status >= 500:
                raise _Transient(f"HTTP {status}")
            if status != 200:
                raise FetchError(f"{url}: HTTP {status} {response.reason}")
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > limit and not response.headers.get("Content-Encoding"):
                raise FetchError(f"{url}: the response is larger than the catalog's {limit:,} bytes for this file (its "
                                 f"Content-Length is {int(declared):,}); the fetch stopped and nothing of it is kept")
            try:
                return _copy_capped(response.iter_content(CHUNK), out, limit, url, progress)
            except (requests.exceptions.ChunkedEncodingError, requests.ConnectionError, requests.Timeout) as e:
                raise _Transient(f"the connection broke during the transfer ({e})") from None
    raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")


# ----------------------------------------------------------------------------- the job

class Fetched(NamedTuple):
    """One file after the fetch: its cached copy (None: an optional file that could not be had)."""
    file: ReleaseFile
    cached: Path | None
    url: str                       # the public URL (the manifest's; the source may be a mirror)
    note: str                      # why an optional file is absent ("" otherwise)


class _Fetcher:
    """The fetches of one release from one source, in one job (an HTTP session per thread: a
    ``requests.Session`` is not meant to be shared between threads)."""

    def __init__(self, release: Release, source: Source):
        self.release, self.source = release, source
        self._local, self._sessions, self._lock = threading.local(), [], threading.Lock()

    def session(self):
        session = getattr(self._local, "session", None)
        if session is None:
            import requests   # deferred, as in _from_http

            session = self._local.session = requests.Session()
            with self._lock:
                self._sessions.append(session)
        return session

    def what(self, file: ReleaseFile) -> str:
        return f"{self.release.benchmark}: {file.path}"

    def close(self) -> None:
        for session in self._sessions:
            session.close()

    def transfer(self, file: ReleaseFile, out: Path) -> None:
        """Fetch one file into ``out``, verified; retried on a transient failure."""
        location = self.source.location(self.release, file)
        size = f" ({file.bytes:,} bytes)" if file.bytes is not None else ""
        log.info("%s: fetching%s from %s", self.what(file), size, location)
        failure = ""
        for pause in (0.0, *self.source.retry_pauses):
            if pause:
                log.warning("%s: %s; trying again in %.0f s", self.what(file), failure, pause)
                time.sleep(pause)
            start, progress = time.monotonic(), _Progress(self.what(file), file.bytes)
            try:
                with atomic_path(out) as tmp:
                    done = (_from_http(self.session(), location, tmp, file.max_bytes, progress)
                            if "://" in location else _from_folder(location, tmp, file.max_bytes, progress))
                    size_, sha256, blob = digests(tmp)
                    problem = mismatch(file, size_, sha256, blob)
                    if problem:
                        raise FetchError(f"the file fetched from {location} is not the release's: {problem}. It is not "
                                         "kept, and nothing of it is read.")
                    os.chmod(tmp, 0o444)
            except _Transient as e:
                failure = str(e)
                continue
            except FetchError as e:
                raise FetchError(f"{self.what(file)}: {e}") from None
            seconds = time.monotonic() - start
            log.info("%s: %s bytes in %.2f s, verified (git blob %s%s)", self.what(file), f"{done:,}", seconds,
                     blob[:12], f", sha256 {sha256[:12]}" if file.sha256 else "")
            return
        tries = 1 + len(self.source.retry_pauses)
        raise _Unreachable(f"{self.what(file)}: could not fetch {location} ({tries} tries; the last: {failure}); "
                           f"{MIRROR_HINT}")

    def ensure(self, file: ReleaseFile) -> Path:
        """The file in the cache, verified: the cached copy, or a fresh one."""
        path = self.source.cached(self.release, file)
        if path.is_symlink():         # a link is not the cache's: never followed
            path.unlink()
        if path.is_file():
            problem = mismatch(file, *digests(path))
            if problem is None:
                log.info("%s: in the cache (%s), verified", self.what(file), path)
                return path
            log.warning("%s: the cached copy (%s) no longer matches the catalog: %s; fetched again",
                        self.what(file), path, problem)
            path.unlink()
        self.transfer(file, path)
        return path


class _Unreachable(FetchError):
    """Every try of a transfer failed on the way."""


def compute(release: Release, source: Source) -> list[Fetched]:
    """Every file of ``release`` in the cache, verified (fetched where it is not), under the cache's
    lock of its repository and commit. An optional file that cannot be had is left out with the
    reason; any other failure is a :class:`FetchError`."""
    problem = release_problem(release)
    if problem:
        raise FetchError(f"{release.benchmark}: {problem}; refused before any request")
    fetcher = _Fetcher(release, source)
    found: dict[str, Fetched] = {}
    with contextlib.closing(fetcher), ThreadPoolExecutor(TRANSFERS, thread_name_prefix="fetch") as pool:
        # under the cache's lock of each repository and commit in turn (a release may read two); a
        # release of many small files (one per judge, method and system) waits on each request's round
        # trip, so several are in flight at once
        for origin in release.origins():
            with _locked(source.lock(*origin, release.benchmark), release.benchmark):
                files = [f for f in release.files if release.origin(f) == origin]
                for file, got in zip(files, _all_or_first_failure(pool, fetcher, files)):
                    found[file.path] = got
    return [found[f.path] for f in release.files]


def _all_or_first_failure(pool: ThreadPoolExecutor, fetcher: _Fetcher, files: list[ReleaseFile]) -> list[Fetched]:
    """Every file fetched, or the failure of the first failing file in the release's order: at the
    first failure the files not yet started are not started, those in flight end (each verified
    file stays in the cache). Files start in order, so the started ones are a prefix of ``files``
    and the failure raised does not depend on which thread was quicker."""
    futures = [pool.submit(_fetched, fetcher, f) for f in files]
    for done in as_completed(futures):
        if done.exception() is not None:
            for future in futures:
                future.cancel()
            break
    wait(futures)
    return [future.result() for future in futures if not future.cancelled()]


def _fetched(fetcher: _Fetcher, file: ReleaseFile) -> Fetched:
    """One file in the cache, verified; an optional file that cannot be had is left out with the
    reason; any other failure is a :class:`FetchError`."""
    release, source = fetcher.release, fetcher.source
    try:
        return Fetched(file, fetcher.ensure(file), release.public_url(file), "")
    except _NotThere as e:
        if not file.optional:
            hint = MIRROR_HINT if source.mirror is None else "the mirror lacks a file of the release"
            raise FetchError(f"{fetcher.what(file)}: {source.location(release, file)}: {e}; {hint}") from None
        note = f"could not be had: {e}"
    except FetchError as e:
        if not file.optional:
            raise
        note = ("could not be had: the source could not be reached" if isinstance(e, _Unreachable) else
                f"refused: {e}")
    # an optional file that cannot be had, or not as the catalog says it: left out, and said so
    log.warning("%s: optional, %s (%s): the run goes on without it", fetcher.what(file), note,
                source.location(release, file))
    return Fetched(file, None, release.public_url(file), note)


def copy_verified(fetched: Fetched, out: Path) -> None:
    """Copy a cached file to ``out``, hashing what is copied: the copy is what was verified."""
    file = fetched.file
    with atomic_path(out) as tmp:
        with open(fetched.cached, "rb") as src:
            _copy_capped(iter(lambda: src.read(CHUNK), b""), tmp, file.max_bytes, str(fetched.cached), lambda n: None)
        problem = mismatch(file, *digests(tmp))
        if problem:
            raise FetchError(f"{file.path}: the cached copy {fetched.cached} changed while it was copied: {problem}; "
                             "run again")


def write(fetched: Iterable[Fetched], manifest: Path | str) -> None:
    """Each file's verified copy at ``{path}`` beside the manifest (an optional file that could not be
    had: none, and no stale copy), and the manifest (:data:`MANIFEST_COLUMNS`, one row per file)."""
    rows = ["\t".join(MANIFEST_COLUMNS)]
    for f in fetched:
        out = Path(manifest).parent / f.file.path
        if f.cached is None:
            out.unlink(missing_ok=True)
            rows.append("\t".join([f.file.path, "absent", "", "", f.file.git_blob, f.url, f.note]))
            continue
        copy_verified(f, out)
        size, sha256, blob = digests(out)
        rows.append("\t".join([f.file.path, "verified", str(size), sha256, blob, f.url, ""]))
    write_text(manifest, "\n".join(rows) + "\n")


def manifest_rows(manifest: Path | str) -> list[dict[str, str]]:
    """The rows of a manifest :func:`write` wrote (:data:`MANIFEST_COLUMNS`)."""
    lines = Path(manifest).read_text(encoding="utf-8").splitlines()
    return [dict(zip(MANIFEST_COLUMNS, line.split("\t"))) for line in lines[1:] if line]


def catalog_lines(root: Path | str, paths: Iterable[str]) -> list[str]:
    """The catalog's ``files:`` lines of files in a checkout of the repository at the commit (``root``):
    ``path: {git_blob, bytes, sha256}``, as docs/datasets.md's "Adding a benchmark to the catalog" says."""
    out = []
    for path in paths:
        size, sha256, blob = digests(Path(root, path))
        out.append(f'    {path}: {{git_blob: "{blob}", bytes: {size}, sha256: "{sha256}"}}')
    return out


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m metaeval.data.fetch",
                                     description="Print the catalog lines (git blob id, size, SHA-256) of release "
                                                 "files in a checkout of their repository at the pinned commit.")
    parser.add_argument("--root", default=".", help="the checkout (default: the working directory)")
    parser.add_argument("paths", nargs="+", help="the files' paths in the repository")
    args = parser.parse_args()
    print("\n".join(catalog_lines(args.root, args.paths)))
