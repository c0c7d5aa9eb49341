"""A mirror of the benchmarks' release files for tests and benchmarks, with no internet: a folder laid
out as ``{owner}/{name}/{commit}/{path}`` built from ../shared/data/raw and its SOURCES.tsv (links
to the copies there), served by a loopback HTTP server (127.0.0.1) that can also misbehave on
request: tamper with a file, drop the connection half-way, redirect elsewhere, send more than it
should, or send slowly. It counts the requests of each path."""
from __future__ import annotations

import contextlib
import csv
import http.server
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

RAW = Path(__file__).resolve().parents[2] / "shared" / "data" / "raw"


def sources(raw: Path = RAW) -> list[dict[str, str]]:
    """The rows of SOURCES.tsv (benchmark, repository, commit, path, git_blob, bytes, sha256, copy_here),
    then :func:`provenance_rows` for the catalog's files it does not list."""
    with open(raw / "SOURCES.tsv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return rows + provenance_rows(raw, {(r["repository"], r["commit"], r["path"]) for r in rows})


def provenance_rows(raw: Path, listed: set[tuple[str, str, str]]) -> list[dict[str, str]]:
    """Rows in SOURCES.tsv's form for the files of the catalog that SOURCES.tsv does not list
    (XSumFaith's, QAGS's per-worker judgments): the copy of the file's name in a folder of ``raw``
    whose PROVENANCE.md names the file's repository and commit, when the copy's git blob id is the
    catalog's (a copy that is not the release's file is no row: the mirror then lacks it)."""
    from metaeval.data import catalog
    from metaeval.data.fetch import digests

    folders = [(p, (p / "PROVENANCE.md").read_text(encoding="utf-8")) for p in sorted(raw.iterdir())
               if (p / "PROVENANCE.md").is_file()]
    rows = []
    for b in catalog.benchmarks().values():
        for f in b.release.files:
            repository, commit = b.release.origin(f)
            if (repository, commit, f.path) in listed:
                continue
            for folder, provenance in folders:
                copy = folder / f.path.rsplit("/", 1)[-1]
                if repository in provenance and commit in provenance and copy.is_file():
                    size, sha256, blob = digests(copy)
                    if blob == f.git_blob:
                        rows.append({"benchmark": b.name, "repository": repository, "commit": commit, "path": f.path,
                                     "git_blob": blob, "bytes": str(size), "sha256": sha256,
                                     "copy_here": str(copy.relative_to(raw))})
                        listed.add((repository, commit, f.path))
    return rows


def build(dest: Path, raw: Path = RAW) -> Path:
    """The mirror folder: a link per file that has a copy in ``raw``, at {repository}/{commit}/{path}."""
    for row in sources(raw):
        if row["copy_here"]:
            link = dest / row["repository"] / row["commit"] / row["path"]
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(raw / row["copy_here"])
    return dest


def local_entry(name: str, raw: Path = RAW) -> dict:
    """A benchmark of the catalog as a data set entry of a user's own, its paths those of the release
    files' copies in ``raw`` (SOURCES.tsv maps each file of a repository to its copy): the importer
    on the release without a fetch (tests of an importer; benchmarks comparing with trees before the
    catalog)."""
    from metaeval.data import catalog

    benchmark = catalog.benchmarks()[name]
    r = benchmark.release
    origins = {(*r.origin(f), f.path) for f in r.files}
    copies = {row["path"]: raw / row["copy_here"] for row in sources(raw)
              if (row["repository"], row["commit"], row["path"]) in origins and row["copy_here"]}

    def local(path: str) -> str:
        if path in copies:
            return str(copies[path])
        found = [c.parent for p, c in copies.items() if p.startswith(path + "/")]    # a folder of files
        return str(found[0] if found else raw / "absent" / path)                      # a file not copied

    entry = dict(benchmark.dataset)
    for key in catalog.release_keys(entry):
        entry[key] = [local(p) for p in entry[key]] if isinstance(entry[key], list) else local(entry[key])
    return entry


@dataclass
class Behaviour:
    """What the server does besides serving files (each by the URL path under the mirror, e.g.
    ``artidoro/frank/<commit>/data/human_annotations.json``)."""
    tamper: set[str] = field(default_factory=set)         # one byte changed
    drop: dict[str, int] = field(default_factory=dict)    # path -> how many responses to cut off half-way
    redirect: dict[str, str] = field(default_factory=dict)  # path -> the Location sent instead
    extra: dict[str, int] = field(default_factory=dict)   # path -> bytes appended (a Content-Length to match)
    slow: dict[str, float] = field(default_factory=dict)  # path -> seconds between two chunks of 4 KiB
    requests: dict[str, int] = field(default_factory=dict)  # path -> requests received
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, path: str) -> None:
        with self.lock:
            self.requests[path] = self.requests.get(path, 0) + 1


def _handler(root: Path, behaviour: Behaviour):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # headers and body go out in two writes: without TCP_NODELAY every response of a kept-alive
        # connection waits for the client's delayed ACK (about 40 ms), a delay no real host adds
        disable_nagle_algorithm = True

        def log_message(self, *args) -> None:   # quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            path = self.path.lstrip("/").split("?")[0]
            behaviour.count(path)
            if path in behaviour.redirect:
                self.send_response(302)
                self.send_header("Location", behaviour.redirect[path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            file = root / path
            if ".." in path.split("/") or not file.is_file():
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = file.read_bytes()
            if path in behaviour.tamper:
                data = bytes([data[0] ^ 1]) + data[1:]
            data += b"x" * behaviour.extra.get(path, 0)
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with behaviour.lock:
                cut = behaviour.drop.get(path, 0) > 0
                if cut:
                    behaviour.drop[path] -= 1
            if cut:
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            pause = behaviour.slow.get(path, 0.0)
            for i in range(0, len(data), 4096 if pause else len(data) or 1):
                self.wfile.write(data[i:i + (4096 if pause else len(data))])
                if pause:
                    self.wfile.flush()
                    time.sleep(pause)

    return Handler


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (the fetch stopping a response it refuses) is no error of the server's."""


@contextlib.contextmanager
def serve(root: Path, behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """Serve ``root`` on 127.0.0.1 (a free port) in a thread: yields (its base URL, its behaviour)."""
    behaviour = behaviour or Behaviour()
    server = _Server(("127.0.0.1", 0), _handler(root, behaviour))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", behaviour
    finally:
        server.shutdown()
        server.server_close()


def environment(mirror: str, cache: Path) -> dict[str, str]:
    """The environment of a workflow run that fetches from ``mirror`` into ``cache`` (no proxy for loopback)."""
    return {**os.environ, "METAEVAL_MIRROR": mirror, "METAEVAL_CACHE": str(cache), "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost"}
