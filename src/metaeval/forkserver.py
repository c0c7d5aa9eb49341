"""Jobs started warm: a fork server that has imported the heavy libraries once, and forks each job.

Every job of the workflow is its own Python process (Snakemake's ``script:``), so that a config or
code change re-runs exactly the jobs it affects. On a small data set most of a job's time is then
start-up: numpy and pandas take about 0.4 s to import, scipy.stats, matplotlib and numba another
second, for a job whose own work may take 0.05 s. A door (``workflow/scripts/*.py``) therefore
begins with :func:`run_warm`, which hands its script to a server process on the same machine; the
server has imported the third-party libraries (:data:`PRELOAD_FIRST`, :data:`PRELOAD_THEN`) once, forks, and the child runs the
script with the door's working directory, environment, ``sys.path``, ``sys.argv``, standard
streams, umask, resource limits, nice level and CPU affinity. The pattern is the "fork server" of
Python's own ``multiprocessing.forkserver`` and of Android's zygote, shared here between the
processes of one run through a Unix socket.

The server belongs to the run: Snakemake's main process starts it when it starts running jobs
(:func:`start_run`, its ``onstart``; a dry run, ``--unlock`` or ``--no-hooks`` start none) and
ends it when the run ends (:func:`end_run`: ``onsuccess``, ``onerror``, and at exit); it also ends
when that process is gone. Its socket's name holds the run's id (:data:`RUN`, in the jobs'
environment), so no other run's job ever reaches it, and a job with no server runs cold.

What stays as it was:

* each job is still one process for Snakemake (the door waits for its child and exits with its
  status), so re-runs, logs, ``--cores``, interrupts and failures behave as before;
* a child takes the door's process settings before it runs
  (:func:`metaeval.forkserver_process._take_settings`); one it cannot take (a lower nice level, a
  higher hard limit) makes the door run the job cold, and so does a finite address-space limit
  (``ulimit -v``), which a child's preloaded libraries would count against the job;
* an edited module of this project is read by the next job as it would be by a fresh process: the
  server imports the project's modules too, and a child drops them all when any file's contents
  (its SHA-256) changed since, or the door's package is another folder; the server is keyed by its
  interpreter, installed packages, the environment variables that steer imports and the text of
  this file and of the server's (a door whose key differs finds no server and runs cold);
* a job's outputs are the same bytes (tests/test_operations.py compares a run of cold jobs with a
  warm one).

Every wait is bounded and ends cold. A door connects without waiting (a full listen backlog: cold),
checks that the server is its own user's (``SO_PEERCRED``), and waits for its child to start at
most :data:`START_SECONDS`, looking every :data:`POLL_SECONDS` whether the server is stopped or gone;
then it removes the socket (the rest of the run's jobs run cold at once) and runs cold. The child
holds the door's connection itself and sends its exit status on it, so a job that completed
reaches its door even when the server was killed; a job whose status reaches its door from neither
(the child and the server both killed) is run again, cold.

When the door is killed (Ctrl-C, Snakemake killing its jobs, ``kill -9``), its child is killed
with it: the door forwards SIGINT, SIGTERM and SIGHUP, and the child ends itself when the door's end
of the connection closes. A job's peak memory (logged by every job) counts the pages of the
preloaded libraries it shares with the server.

The door runs cold, as before, when ``METAEVAL_FORKSERVER=0``, on a Slurm node (``SLURM_JOB_ID``:
each job runs on a node of its own, where a server would be started for one job), off Linux, or
when the run's server is not ready yet (no job ever waits for the preloading).
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import resource
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Mapping

from . import forkserver_process
# The server's side and the messages both sides exchange; the names the server's process alone uses
# (BACKLOG, IDLE_SECONDS, PRELOAD_FIRST, PRELOAD_THEN, serve) are importable from here as well.
from .forkserver_process import (BACKLOG, COLD, IDLE_SECONDS, LIBRARY, LIMITS, PRELOAD_FIRST, PRELOAD_THEN,  # noqa: F401
                                 SEND_SECONDS, STARTED, STATUS, SWITCH, _GO, _HEADER, _MESSAGE, _receive, serve)

START_SECONDS = 10.0                    # the longest a door waits for its child to start (the server may be importing)
POLL_SECONDS = 0.1                      # how often a waiting door looks whether the server is stopped or gone
STATUS_POLL_SECONDS = 1.0               # how often a door waiting for its job looks whether the child is gone
FOLDER = "METAEVAL_FORKSERVER_DIR"      # where the servers' sockets live (default: $XDG_RUNTIME_DIR or /tmp)
RUN = "METAEVAL_FORKSERVER_RUN"         # the id of the run whose server the jobs use (set by start_run)
# Environment variables read when the preloaded libraries (or the interpreter) are imported: a
# different value is a different server.
IMPORT_ENVIRONMENT = ("PYTHON", "OPENBLAS", "OMP_", "MKL_", "GOTO_", "VECLIB_", "NUMEXPR_", "NUMBA_", "MPL", "LD_",
                      "VIRTUAL_ENV", "HOME", "LANG", "LC_", "TZ")
# What Snakemake adds to a job's environment (snakemake.shell: the linear algebra libraries' threads).
JOB_THREADS = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


# ----------------------------------------------------------------------------- the run's side

_server: subprocess.Popen | None = None
_server_path: Path | None = None


def start_run() -> None:
    """Start this run's server (Snakemake's ``onstart``, in its main process): a new run id in the
    environment its jobs inherit, the socket folder made absolute there, and a server for jobs of
    one thread each, started in the background. Never waits and never fails: a job that finds no
    server runs cold. :func:`end_run` ends it (and is called at exit)."""
    global _server, _server_path
    if not _enabled(os.environ) or _server is not None:
        return
    if os.environ.get(FOLDER):      # the jobs' working directory may differ from this process's
        os.environ[FOLDER] = os.path.abspath(os.environ[FOLDER])
    os.environ[RUN] = f"{os.getpid()}-{os.urandom(6).hex()}"
    environment = {**os.environ, **{name: "1" for name in JOB_THREADS}}
    _server = start(environment)
    if _server is not None:
        _server_path = socket_path(environment)
        atexit.register(end_run)


def end_run() -> None:
    """End this run's server, if it started one (Snakemake's ``onsuccess`` and ``onerror``): its
    socket removed, the process ended, even if it was stopped."""
    global _server, _server_path
    server, path, _server, _server_path = _server, _server_path, None, None
    if server is None:
        return
    for leftover in (path, path.with_suffix(".log")):
        if leftover == path or (leftover.exists() and not leftover.stat().st_size):
            leftover.unlink(missing_ok=True)
    for signum in (signal.SIGTERM, signal.SIGCONT):    # a stopped server receives the TERM once continued
        try:
            server.send_signal(signum)
        except OSError:
            pass
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def start(environment: Mapping[str, str]) -> subprocess.Popen | None:
    """Start a server for jobs with ``environment`` (which names the run, :data:`RUN`) in the
    background, owned by this process (it exits when this process is gone); the process, or None
    when the fork server is off, cannot serve these jobs, or the socket path is refused."""
    if not (_enabled(environment) and _unlimited_address_space()):
        return None
    try:
        path = socket_path(environment)
        code = ("import runpy, sys; sys.argv[:] = sys.argv[1:]; "
                "runpy.run_path(sys.argv[0], run_name='metaeval_forkserver')")
        with open(path.with_suffix(".log"), "w") as log:    # the server's own errors, if any
            return subprocess.Popen([sys.executable, "-c", code, forkserver_process.__file__, str(path),
                                     str(os.getpid())], cwd="/", stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=log, start_new_session=True, env=dict(environment))
    except OSError:
        return None


# ----------------------------------------------------------------------------- the door's side

def run_warm() -> None:
    """Run this process's script (``sys.argv[0]``: Snakemake's copy of the door with its preamble)
    again in a child of the run's fork server, and exit with the child's status.

    Returns without doing anything (the door then runs here, cold) inside such a child, when the
    fork server is switched off, absent, not ready, stopped or busy, or when the child could not
    take this process's settings or ended without its status reaching this door."""
    script = sys.argv[0] if sys.argv else ""
    if not (_enabled(os.environ) and os.path.isfile(script) and _unlimited_address_space()):
        return
    try:
        path = socket_path(os.environ)
        connection, server, inode = _connect(path)
    except OSError:
        return
    with connection:
        status = _run_in_child(connection, script, server, path, inode)
    if status is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _enabled(environment: Mapping[str, str]) -> bool:
    return (environment.get(SWITCH, "1") != "0" and "SLURM_JOB_ID" not in environment
            and sys.platform.startswith("linux") and hasattr(os, "fork"))


def _unlimited_address_space() -> bool:
    """Whether this process may grow without an address-space limit (``ulimit -v``): a child of the
    server starts with every preloaded library mapped, which a limit meant for the job would count."""
    return resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY


def server_key(environment: Mapping[str, str]) -> str:
    """What makes two processes' preloaded libraries the same: the interpreter, the installed
    packages (their folders' modification times), the import-steering environment, this file and
    the server's (:mod:`metaeval.forkserver_process`)."""
    digest = hashlib.sha256()
    parts = [sys.executable, sys.version, sys.prefix, Path(__file__).read_bytes().hex(),
             Path(forkserver_process.__file__).read_bytes().hex()]
    for folder in sorted({p for p in sys.path if p.endswith("-packages")}):
        try:
            parts.append(f"{folder}:{os.stat(folder).st_mtime_ns}")
        except OSError:
            continue
    parts += sorted(f"{k}={v}" for k, v in environment.items() if k.startswith(IMPORT_ENVIRONMENT))
    digest.update("\0".join(parts).encode())
    return digest.hexdigest()[:16]


def socket_path(environment: Mapping[str, str]) -> Path:
    """The run's server's socket, in a folder only this user can enter (the server runs what it is
    sent). OSError when the environment names no run, the folder is not absolute, or the folder is
    not a directory of this user's closed to others (not followed if it is a symbolic link)."""
    run = environment.get(RUN, "")
    if not re.fullmatch(r"[0-9a-f-]{1,40}", run):
        raise OSError(f"no run's fork server ({RUN} is not set)")
    base = environment.get(FOLDER) or environment.get("XDG_RUNTIME_DIR") or "/tmp"
    if not os.path.isabs(base):
        raise OSError(f"{FOLDER}={base!r} is not an absolute path")
    folder = Path(base) / f"metaeval-forkserver-{os.getuid()}"
    path = folder / f"{run}-{server_key(environment)}.sock"
    if len(os.fsencode(path)) > 100:     # a Unix socket's path has at most 107 bytes (and the staging name more)
        raise OSError(f"{path} is too long for a Unix socket")
    Path(base).mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{folder} is not a folder private to this user")
    return path


def _connect(path: Path) -> tuple[socket.socket, int, int]:
    """A connection to the server at ``path`` made without waiting, after checking that the socket
    and the process listening on it are this user's; with the server's pid and the socket's inode."""
    info = os.lstat(path)
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
        raise OSError(f"{path} is not this user's socket")
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.setblocking(False)       # a full backlog (a server stopped or swamped): EAGAIN at once
        connection.connect(str(path))
        pid, uid, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        if uid != os.getuid():
            raise OSError(f"the process serving {path} is another user's")
    except OSError:
        connection.close()
        raise
    return connection, pid, info.st_ino


def _settings() -> dict:
    """This process's settings that a child takes before it runs the job (besides its environment,
    working directory, arguments and streams)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return {"umask": mask, "nice": os.getpriority(os.PRIO_PROCESS, 0),
            "affinity": sorted(os.sched_getaffinity(0)),
            "limits": {name: resource.getrlimit(getattr(resource, name)) for name in LIMITS}}


def _run_in_child(connection: socket.socket, script: str, server: int, path: Path, inode: int) -> int | None:
    """The child's exit status; None if the job is to run here, cold (no child started, or none
    whose status could reach this door)."""
    library = sys.modules.get(LIBRARY)
    request = json.dumps({"script": os.path.abspath(script), "cwd": os.getcwd(), "argv": sys.argv,
                          "path": sys.path, "environ": dict(os.environ), **_settings(),
                          "library": os.path.dirname(library.__file__) if library and library.__file__ else None}
                         ).encode()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        connection.settimeout(SEND_SECONDS)
        connection.sendall(_HEADER.pack(len(request)) + request)
        kind, pid = _first_message(connection, server)
        if kind != STARTED:
            if kind is None:    # a stopped, gone or wedged server: the run's other jobs run cold at once
                _retire(path, inode)
            return None
        # The standard streams go to the child only: a stopped server holds no pipe of the door's open.
        socket.send_fds(connection, [_GO], [0, 1, 2])
    except OSError:
        return None
    forwarded: list[int] = []

    def forward(signum, _frame):
        forwarded.append(signum)
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for signum in _FORWARDED:
        signal.signal(signum, forward)
    status = _wait_status(connection, pid)
    if status is not None:
        return status
    if forwarded:
        return 128 + forwarded[0]
    print(f"metaeval: the status of warm job {pid} was lost with its fork server; running it again, cold",
          file=sys.stderr)
    return None


def _first_message(connection: socket.socket, server: int) -> tuple[int | None, int]:
    """The first message of the connection, waiting at most START_SECONDS and no longer than the
    server is running (not stopped, not gone); (None, 0) if none came."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        ready, _, _ = select.select([connection], [], [], POLL_SECONDS)
        if ready:
            message = _receive(connection, _MESSAGE.size)
            return _MESSAGE.unpack(message) if len(message) == _MESSAGE.size else (None, 0)
        if _process_state(server) in "TtZX" or time.monotonic() > deadline:
            return None, 0


def _wait_status(connection: socket.socket, pid: int) -> int | None:
    """The job's exit status, from the child or the server; None if the child ended and no status
    came (the server killed or stopped too)."""
    connection.settimeout(None)
    while True:
        ready, _, _ = select.select([connection], [], [], STATUS_POLL_SECONDS)
        if not ready and _process_state(pid) in "ZX":
            # The child is gone: a status it sent before it ended is here by now; the server's, if
            # it is running, comes within a moment.
            ready, _, _ = select.select([connection], [], [], STATUS_POLL_SECONDS)
            if not ready:
                return None
        if ready:
            message = _receive(connection, _MESSAGE.size)
            if len(message) < _MESSAGE.size:
                return None
            kind, value = _MESSAGE.unpack(message)
            if kind == STATUS:
                return value
            if kind == COLD:
                return None


def _process_state(pid: int) -> str:
    """The state letter of process ``pid`` (``/proc/<pid>/stat``: R, S, D, T stopped, t traced, Z
    ended but not reaped, ...); "X" if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return "X"


def _retire(path: Path, inode: int) -> None:
    """Remove the socket of a server that did not answer (if it is still that server's): the run's
    next jobs run cold without waiting, and the server exits when it runs again."""
    try:
        if os.lstat(path).st_ino == inode:
            path.unlink()
    except OSError:
        pass
