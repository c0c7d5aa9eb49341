"""Fetching the catalog's release files (metaeval.data.fetch) over a real HTTP path: a loopback server
(tests/mirror.py) serving a small release written here, well or badly. Digests are checked against
git's own (``git hash-object``) and hashlib; what the server received is counted, so that "no
request" and "no second download" are seen, not assumed."""
from __future__ import annotations

import hashlib
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO
from metaeval.data import catalog, fetch
from metaeval.data.catalog import Release, ReleaseFile
from mirror import Behaviour, serve

REPOSITORY, COMMIT = "owner/repo", "0123456789abcdef0123456789abcdef01234567"
FAST = (0.05, 0.05, 0.05)      # the retries' pauses here (the jobs' are metaeval.data.fetch.RETRY_PAUSES)


def git_blob(path: Path) -> str:
    return subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def release(tmp_path: Path) -> tuple[Path, Release]:
    """A mirror folder with a release of three files (one nested, one of 200 KiB), and its record, the
    digests taken with git and hashlib."""
    root = tmp_path / "mirror"
    contents = {"data/a.json": b'{"a": 1}\n', "data/deep/b.txt": os.urandom(200 * 1024), "c.tsv": b"x\ty\n1\t2\n"}
    files = []
    for path, data in contents.items():
        out = root / REPOSITORY / COMMIT / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        files.append(ReleaseFile(path, git_blob(out), len(data), hashlib.sha256(data).hexdigest(), len(data), False))
    return root, Release("toy", REPOSITORY, COMMIT, tuple(files))


def url_path(file: ReleaseFile) -> str:
    return f"{REPOSITORY}/{COMMIT}/{file.path}"


def source(tmp_path: Path, mirror: str) -> fetch.Source:
    return fetch.Source(mirror, str(tmp_path / "cache"), FAST)


def leftovers(folder: Path) -> list[str]:
    """Every file under ``folder`` but the lock files."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and ".locks" not in p.parts)


def test_digests_are_gits_and_hashlibs(tmp_path):
    for data in (b"", b"hello\n", os.urandom(3 << 20)):
        path = tmp_path / "f"
        path.write_bytes(data)
        assert fetch.digests(path) == (len(data), hashlib.sha256(data).hexdigest(), git_blob(path))


def assert_kept_only_verified(cache: Path, root: Path, rel: Release, refused) -> None:
    """After a refused file: it is not in the cache; every file before it in the release's order is
    (they start first); whatever else was in flight and kept is byte for byte the release's."""
    kept = leftovers(cache)
    assert f"{REPOSITORY}/{COMMIT}/{refused.path}" not in kept
    before = rel.files[:rel.files.index(refused)]
    assert {f"{REPOSITORY}/{COMMIT}/{f.path}" for f in before} <= set(kept)
    for path in kept:
        assert (cache / path).read_bytes() == (root / path).read_bytes()


def test_a_release_is_fetched_verified_cached_and_copied(tmp_path, release):
    root, rel = release
    with serve(root) as (url, seen):
        src = source(tmp_path, url)
        fetched = fetch.compute(rel, src)
        fetch.write(fetched, tmp_path / "out/MANIFEST.tsv")
        manifest = (tmp_path / "out/MANIFEST.tsv").read_bytes()
        again = fetch.compute(rel, src)          # in the cache: nothing requested again
        fetch.write(again, tmp_path / "out/MANIFEST.tsv")
    assert seen.requests == {url_path(f): 1 for f in rel.files}
    assert (tmp_path / "out/MANIFEST.tsv").read_bytes() == manifest
    for f in rel.files:
        cached = tmp_path / "cache" / REPOSITORY / COMMIT / f.path
        copy = tmp_path / "out" / f.path
        assert cached.read_bytes() == copy.read_bytes() == (root / url_path(f)).read_bytes()
        assert git_blob(copy) == f.git_blob
        assert not stat.S_IMODE(cached.stat().st_mode) & 0o222       # the cache's copies are read-only
    rows = fetch.manifest_rows(tmp_path / "out/MANIFEST.tsv")
    assert [(r["path"], r["status"], r["git_blob"], r["url"]) for r in rows] == [
        (f.path, "verified", f.git_blob, f"https://raw.githubusercontent.com/{url_path(f)}") for f in rel.files]


def test_the_first_failure_in_the_release_order_is_raised_and_the_files_not_started_are_not_fetched(tmp_path):
    """Many files, the fifth and the last refused: the error names the fifth whatever thread ends
    first, and of the files after the in-flight ones none is requested."""
    root = tmp_path / "mirror"
    files = []
    for k in range(40):
        data = f"file {k}\n".encode()
        path = f"f{k:02d}.txt"
        (root / REPOSITORY / COMMIT).mkdir(parents=True, exist_ok=True)
        (root / REPOSITORY / COMMIT / path).write_bytes(data)
        files.append(ReleaseFile(path, hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(), len(data),
                                 hashlib.sha256(data).hexdigest(), 1000, False))
    rel = Release("many", REPOSITORY, COMMIT, tuple(files))
    bad = {f"{REPOSITORY}/{COMMIT}/{files[4].path}", f"{REPOSITORY}/{COMMIT}/{files[39].path}"}
    # every good file takes 0.2 s, the refused ones none: the threads are busy when the fifth fails
    slow = {f"{REPOSITORY}/{COMMIT}/{f.path}": 0.2 for f in files} | {b: 0.0 for b in bad}
    with serve(root, Behaviour(tamper=bad, slow=slow)) as (url, seen), pytest.raises(fetch.FetchError) as e:
        fetch.compute(rel, source(tmp_path, url))
    assert files[4].path in str(e.value) and files[39].path not in str(e.value)
    assert sum(seen.requests.values()) < len(files)
    assert f"{REPOSITORY}/{COMMIT}/{files[39].path}" not in seen.requests


def test_a_folder_mirror_serves_the_same(tmp_path, release):
    root, rel = release
    fetch.write(fetch.compute(rel, source(tmp_path, str(root))), tmp_path / "out/MANIFEST.tsv")
    assert all((tmp_path / "out" / f.path).read_bytes() == (root / url_path(f)).read_bytes() for f in rel.files)


def test_a_tampered_file_is_refused_and_nothing_of_it_kept(tmp_path, release):
    root, rel = release
    bad = rel.files[1]
    with serve(root, Behaviour(tamper={url_path(bad)})) as (url, seen), pytest.raises(fetch.FetchError) as e:
        fetch.compute(rel, source(tmp_path, url))
    tampered = bytearray((root / url_path(bad)).read_bytes())
    tampered[0] ^= 1
    found = hashlib.sha1(b"blob %d\0" % len(tampered) + bytes(tampered)).hexdigest()
    message = str(e.value)
    assert bad.path in message and f"{url}/{url_path(bad)}" in message
    assert f"its git blob id is {found}, expected {bad.git_blob}" in message
    assert "not kept" in message
    assert seen.requests[url_path(bad)] == 1             # a mismatch is not retried
    assert_kept_only_verified(tmp_path / "cache", root, rel, bad)


def test_a_cached_file_that_no_longer_matches_is_fetched_again(tmp_path, release):
    root, rel = release
    with serve(root) as (url, seen):
        src = source(tmp_path, url)
        fetch.compute(rel, src)
        cached = tmp_path / "cache" / REPOSITORY / COMMIT / rel.files[0].path
        cached.chmod(0o644)
        cached.write_bytes(b'{"a": 2}\n')
        link = tmp_path / "cache" / REPOSITORY / COMMIT / rel.files[2].path
        link.unlink()
        link.symlink_to(root / url_path(rel.files[2]))    # a link in the cache is never followed
        fetch.compute(rel, src)
    assert seen.requests == {url_path(rel.files[0]): 2, url_path(rel.files[1]): 1, url_path(rel.files[2]): 2}
    assert cached.read_bytes() == (root / url_path(rel.files[0])).read_bytes()
    assert not link.is_symlink()


def test_a_dropped_connection_is_retried_then_refused_with_the_url_and_a_mirror(tmp_path, release):
    root, rel = release
    big = url_path(rel.files[1])
    with serve(root, Behaviour(drop={big: 1})) as (url, seen):
        fetch.compute(rel, source(tmp_path / "once", url))
        assert seen.requests[big] == 2                     # cut off half-way once, then whole
        seen.drop[big] = 99
        with pytest.raises(fetch.FetchError) as e:
            fetch.compute(rel, source(tmp_path / "always", url))
    assert seen.requests[big] == 2 + 4                     # four tries, then the error
    message = str(e.value)
    assert f"could not fetch {url}/{big} (4 tries" in message and "broke during the transfer" in message
    assert "METAEVAL_MIRROR" in message and "benchmarks_mirror" in message
    assert not (tmp_path / "always/cache" / big).exists()
    assert_kept_only_verified(tmp_path / "always/cache", root, rel, rel.files[1])


def test_an_unreachable_host_names_the_url_and_how_to_set_a_mirror(tmp_path, release):
    import socket

    _, rel = release
    with socket.socket() as s:                              # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(fetch.FetchError) as e:
        fetch.compute(rel, source(tmp_path, f"http://127.0.0.1:{port}"))
    message = str(e.value)
    assert f"http://127.0.0.1:{port}/{url_path(rel.files[0])}" in message and "could not connect" in message
    assert "offline or behind a firewall" in message and "METAEVAL_MIRROR" in message


def test_a_response_larger_than_the_catalog_says_stops_the_fetch(tmp_path, release):
    root, rel = release
    big = rel.files[1]
    with serve(root, Behaviour(extra={url_path(big): 1})) as (url, _), pytest.raises(fetch.FetchError) as e:
        fetch.compute(rel, source(tmp_path, url))
    assert f"{url}/{url_path(big)}" in str(e.value) and f"larger than the catalog's {big.bytes:,} bytes" in str(e.value)
    assert_kept_only_verified(tmp_path / "cache", root, rel, big)
    # a file of unknown size: bounded by max_bytes while it streams (no Content-Length check to rely on)
    unknown = rel._replace(files=(big._replace(bytes=None, sha256=None, max_bytes=1000),))
    with serve(root) as (url, _), pytest.raises(fetch.FetchError) as e:
        fetch.compute(unknown, source(tmp_path / "unknown", url))
    assert "larger than the catalog's 1,000 bytes" in str(e.value)
    assert leftovers(tmp_path / "unknown/cache") == []


def test_a_redirect_to_another_host_is_refused_and_one_on_the_same_host_followed(tmp_path, release):
    root, rel = release
    first = url_path(rel.files[0])
    with serve(root) as (elsewhere, other):
        target = f"{elsewhere.replace('127.0.0.1', 'localhost')}/{first}"
        with serve(root, Behaviour(redirect={first: target})) as (url, _), pytest.raises(fetch.FetchError) as e:
            fetch.compute(rel, source(tmp_path, url))
        assert other.requests == {}                         # nothing was asked of the other host
    assert "redirected to another host" in str(e.value) and target in str(e.value)
    assert_kept_only_verified(tmp_path / "cache", root, rel, rel.files[0])
    moved = f"moved/{first}"
    (root / moved).parent.mkdir(parents=True)
    (root / moved).write_bytes((root / first).read_bytes())
    with serve(root, Behaviour(redirect={first: f"/{moved}"})) as (url, seen):
        fetch.compute(rel, source(tmp_path / "same", url))
    assert seen.requests[moved] == 1


def test_paths_that_climb_out_are_refused_before_any_request(tmp_path, release):
    root, rel = release
    with serve(root) as (url, seen):
        for bad in ("../../etc/passwd", "/etc/passwd", "data/../../x", "data//a.json", "./data/a.json", "data\\a.json"):
            hostile = rel._replace(files=(rel.files[0]._replace(path=bad),))
            with pytest.raises(fetch.FetchError) as e:
                fetch.compute(hostile, source(tmp_path, url))
            assert repr(bad) in str(e.value), bad
        for field, value in (("repository", "../repo"), ("repository", "owner/.."), ("commit", "../../" + COMMIT[6:])):
            with pytest.raises(fetch.FetchError, match="refused before any request"):
                fetch.compute(rel._replace(**{field: value}), source(tmp_path, url))
    assert seen.requests == {}
    assert not (tmp_path / "cache").exists()               # not even the lock was taken


def test_an_optional_file_that_cannot_be_had_is_left_out_with_the_reason(tmp_path, release):
    root, rel = release
    ghost = ReleaseFile("data/texts.json", "f" * 40, None, None, 10_000, True)
    with_ghost = rel._replace(files=(*rel.files, ghost))
    (tmp_path / "out" / "data").mkdir(parents=True)
    (tmp_path / "out/data/texts.json").write_text("stale")  # an earlier run's copy is not left behind
    with serve(root) as (url, _):
        fetched = fetch.compute(with_ghost, source(tmp_path, url))
    fetch.write(fetched, tmp_path / "out/MANIFEST.tsv")
    row = fetch.manifest_rows(tmp_path / "out/MANIFEST.tsv")[-1]
    assert (row["path"], row["status"], row["note"]) == ("data/texts.json", "absent", "could not be had: HTTP 404: not found")
    assert not (tmp_path / "out/data/texts.json").exists()
    # an optional file that is not the catalog's: refused and left out too, and the run goes on
    bad_optional = rel._replace(files=(rel.files[0]._replace(optional=True),))
    with serve(root, Behaviour(tamper={url_path(rel.files[0])})) as (url, _):
        (fetched,) = fetch.compute(bad_optional, source(tmp_path / "refused", url))
    assert fetched.cached is None and fetched.note.startswith(f"refused: toy: {rel.files[0].path}: the file fetched")
    assert leftovers(tmp_path / "refused/cache") == []
    # a required file missing from the source is an error naming it
    with serve(root) as (url, _), pytest.raises(fetch.FetchError) as e:
        fetch.compute(rel._replace(files=(ghost._replace(optional=False),)), source(tmp_path, url))
    assert "data/texts.json" in str(e.value) and "404" in str(e.value)


def test_the_source_is_the_configs_mirror_else_the_environments(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    env = {fetch.ENV_MIRROR: "http://mirror.example/base/", fetch.ENV_CACHE: str(tmp_path / "c")}
    assert fetch.Source.resolve(None, "default", env) == fetch.Source("http://mirror.example/base", str(tmp_path / "c"))
    assert fetch.Source.resolve(str(folder), "d", env).mirror == str(folder)
    assert fetch.Source.resolve(None, str(tmp_path / "d"), {}) == fetch.Source(None, str(tmp_path / "d"))
    assert fetch.Source.resolve(f"file://{folder}", "d", {}).mirror == str(folder)
    with pytest.raises(ValueError, match="config key benchmarks_mirror: 'ftp://x' is not an http"):
        fetch.Source.resolve("ftp://x", "d", {})
    with pytest.raises(ValueError, match=f"environment variable {fetch.ENV_MIRROR}: '.*nowhere' is not a folder"):
        fetch.Source.resolve(None, "d", {fetch.ENV_MIRROR: str(tmp_path / "nowhere")})


SLOW_FETCH = """
import sys
from metaeval.data import fetch
from metaeval.data.catalog import Release, ReleaseFile
files = tuple(ReleaseFile(*f) for f in {files!r})
fetch.compute(Release("toy", {repository!r}, {commit!r}, files), fetch.Source({url!r}, {cache!r}, ()))
print("done")
"""


def fetch_process(rel: Release, url: str, cache: Path) -> subprocess.Popen:
    code = SLOW_FETCH.format(files=[tuple(f) for f in rel.files], repository=rel.repository, commit=rel.commit,
                             url=url, cache=str(cache))
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO, start_new_session=True)


@pytest.mark.slow
def test_two_runs_fetching_into_one_cache_download_each_file_once(tmp_path, release):
    root, rel = release
    with serve(root, Behaviour(slow={url_path(rel.files[1]): 0.005})) as (url, seen):
        runs = [fetch_process(rel, url, tmp_path / "cache") for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in runs]
    assert [p.returncode for p in runs] == [0, 0], outs
    assert seen.requests == {url_path(f): 1 for f in rel.files}
    for f in rel.files:
        assert git_blob(tmp_path / "cache" / REPOSITORY / COMMIT / f.path) == f.git_blob


@pytest.mark.slow
def test_a_fetch_killed_mid_file_leaves_no_partial_file_and_the_next_completes(tmp_path, release):
    root, rel = release
    big = rel.files[1]
    cached = tmp_path / "cache" / REPOSITORY / COMMIT / big.path
    with serve(root, Behaviour(slow={url_path(big): 0.02})) as (url, _):
        proc = fetch_process(rel, url, tmp_path / "cache")
        deadline = time.time() + 60
        while time.time() < deadline and not any(p.stat().st_size for p in cached.parent.glob(f".{cached.name}.tmp*")):
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = list(cached.parent.glob(f".{cached.name}.tmp*"))
        assert partial and 0 < partial[0].stat().st_size < big.bytes      # killed mid-file
        assert not cached.exists()                                           # no file under its name
        fetch.compute(rel, fetch.Source(url, str(tmp_path / "cache"), FAST))
    assert git_blob(cached) == big.git_blob
    assert not list(cached.parent.glob(f".{cached.name}.tmp*"))            # the leftover is gone


def test_a_file_of_another_repository_comes_from_there_and_is_cached_there(tmp_path, release):
    """A release may read a file of another repository (QAGS's per-worker judgments beside BARTScore's
    pickle): it is requested at that repository and commit, cached under them (their own lock), and
    copied beside the others; its public URL names its repository. A catalog entry gives both keys
    or neither."""
    root, rel = release
    other, commit = "someone/else", "f" * 40
    data = b"a line\n"
    out = root / other / commit / "data/judgments.jsonl"
    out.parent.mkdir(parents=True)
    out.write_bytes(data)
    extra = ReleaseFile("data/judgments.jsonl", git_blob(out), len(data), hashlib.sha256(data).hexdigest(), len(data),
                        False, other, commit)
    rel = rel._replace(files=(*rel.files, extra))
    assert rel.origins() == [(REPOSITORY, COMMIT), (other, commit)]
    with serve(root) as (url, seen):
        fetch.write(fetch.compute(rel, source(tmp_path, url)), tmp_path / "out/MANIFEST.tsv")
    assert seen.requests[f"{other}/{commit}/data/judgments.jsonl"] == 1
    assert (tmp_path / "cache" / other / commit / "data/judgments.jsonl").read_bytes() == data
    assert (tmp_path / "cache/.locks" / other / f"{commit}.{rel.benchmark}.lock").exists()
    assert (tmp_path / "out/data/judgments.jsonl").read_bytes() == data
    rows = {r["path"]: r for r in fetch.manifest_rows(tmp_path / "out/MANIFEST.tsv")}
    assert rows["data/judgments.jsonl"]["url"] == f"https://raw.githubusercontent.com/{other}/{commit}/data/judgments.jsonl"
    assert rows["c.tsv"]["url"] == f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/c.tsv"
    entry = (tmp_path / "catalog.yaml")
    entry.write_text(f"""x:
  title: X
  description: d
  citation: c
  license: MIT
  repository: {REPOSITORY}
  commit: {COMMIT}
  files:
    a.json: {{git_blob: "{"0" * 40}", bytes: 3, repository: {other}}}
  dataset: {{format: summeval_jsonl}}
""")
    with pytest.raises(catalog.CatalogError, match=r"x.files\['a.json'\]: expected both repository and commit"):
        catalog.read(entry)
