"""Jobs started warm: a fork server that has imported the heavy libraries once, and forks each job.

Every job of the workflow is its own Python process (Snakemake's ``script:``), so that a config or
code change re-runs exactly the jobs it affects. On a small data set most of a job's time is then
start-up: numpy and pandas take about 0.4 s to import, scipy.stats, matplotlib and numba another
second, for a job whose own work may take 0.05 s. A door (``workflow/scripts/*.py``) therefore
begins with :func:`run_warm`, which hands its script to a server process on the same machine; the
server has imported the third-party libraries (:data:`PRELOAD_FIRST`, :data:`PRELOAD_THEN`) once, forks, and the child runs the
script with the door's working directory, environment, ``sys.path``, ``sys.argv`` and standard
streams. The pattern is the "fork server" of Python's own ``multiprocessing.forkserver`` and of
Android's zygote, shared here between independent processes through a Unix socket.

What stays as it was:

* each job is still one process for Snakemake (the door waits for its child and exits with its
  status), so re-runs, logs, ``--cores``, interrupts and failures behave as before;
* an edited module of this project is read by the next job as it would be by a fresh process: the
  server imports the project's modules too, and a child drops them all when any file's time or
  size changed since (Python's own check of a cached .pyc) or the door's package is another folder;
  the server is keyed by its interpreter, installed packages, the environment variables that steer
  imports and this file's own text (a new key starts a new server);
* a job's outputs are the same bytes (tests/test_operations.py compares a run of cold jobs with a
  warm one).

When the door is killed (Ctrl-C, Snakemake killing its jobs, ``kill -9``), its child is killed
with it: the door forwards SIGINT, SIGTERM and SIGHUP, and the child ends itself when the door's end
of the connection closes. A job's peak memory (logged by every job) counts the pages of the
preloaded libraries it shares with the server.

The door runs cold, as before, when ``METAEVAL_FORKSERVER=0``, on a Slurm node (``SLURM_JOB_ID``:
each job runs on a node of its own, where a server would be started for one job), off Linux, or
when the server is not ready yet: the first job that finds no server starts one in the background
and runs cold itself, so no job ever waits for the preloading. An idle server exits after
:data:`IDLE_SECONDS`.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import Mapping

LIBRARY = "metaeval"
# Imported before the server takes its first job (what every job imports), then one by one while no
# job is waiting (what many import: numba with its compiler set up and this project first, as the
# scoring jobs come first), so that the first jobs of a run, which start about a second after the
# server, already start warm.
PRELOAD_FIRST = ("numpy", "pandas", "yaml", "snakemake.iocontainers")
PRELOAD_THEN = ("numba", LIBRARY, "scipy.special", "matplotlib.pyplot", "scipy.stats", "scipy.linalg", "sacrebleu")
IDLE_SECONDS = 60.0
PID_SECONDS = 30.0                      # the longest a door waits for the server to fork its job
SWITCH = "METAEVAL_FORKSERVER"          # "0": every job starts cold
FOLDER = "METAEVAL_FORKSERVER_DIR"      # where the servers' sockets live (default: $XDG_RUNTIME_DIR or /tmp)
# Environment variables read when the preloaded libraries are imported: a different value is a
# different server.
IMPORT_ENVIRONMENT = ("PYTHON", "OPENBLAS", "OMP_", "MKL_", "GOTO_", "VECLIB_", "NUMEXPR_", "NUMBA_", "MPL", "LD_",
                      "VIRTUAL_ENV", "HOME")
# What Snakemake adds to a job's environment (snakemake.shell: the linear algebra libraries' threads).
JOB_THREADS = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
_HEADER = struct.Struct("!I")
_STATUS = struct.Struct("!i")
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


# ----------------------------------------------------------------------------- the door's side

def run_warm() -> None:
    """Run this process's script (``sys.argv[0]``: Snakemake's copy of the door with its preamble)
    again in a child of the fork server, and exit with the child's status.

    Returns without doing anything (the door then runs here, cold) inside such a child, when the
    fork server is switched off or unavailable, or when it is not ready yet (then it is started)."""
    script = sys.argv[0] if sys.argv else ""
    if not (_enabled(os.environ) and os.path.isfile(script)):
        return
    try:
        connection = _connect(socket_path(os.environ))
    except OSError:
        start(os.environ)
        return
    with connection:
        status = _run_in_child(connection, script)
    if status is None:          # the server went away before forking: nothing has run yet
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _enabled(environment: Mapping[str, str]) -> bool:
    return (environment.get(SWITCH, "1") != "0" and "SLURM_JOB_ID" not in environment
            and sys.platform.startswith("linux") and hasattr(os, "fork"))


def start(environment: Mapping[str, str] | None = None) -> None:
    """Start a server for jobs with ``environment`` (default: Snakemake's jobs of one thread each,
    started from this process) in the background, unless one is running or starting, or the fork
    server is switched off. Never waits and never fails: a job that finds no server runs cold."""
    if environment is None:
        environment = {**os.environ, **{name: "1" for name in JOB_THREADS}}
    if not _enabled(environment):
        return
    try:
        path = socket_path(environment)
    except OSError:
        return
    try:
        _connect(path).close()
    except OSError:
        try:
            _start_server(path, environment)
        except OSError:
            pass


def server_key(environment: Mapping[str, str]) -> str:
    """What makes two processes' preloaded libraries the same: the interpreter, the installed
    packages (their folders' modification times), the import-steering environment and this file."""
    digest = hashlib.sha256()
    parts = [sys.executable, sys.version, sys.prefix, Path(__file__).read_bytes().hex()]
    for folder in sorted({p for p in sys.path if p.endswith("-packages")}):
        try:
            parts.append(f"{folder}:{os.stat(folder).st_mtime_ns}")
        except OSError:
            continue
    parts += sorted(f"{k}={v}" for k, v in environment.items() if k.startswith(IMPORT_ENVIRONMENT))
    digest.update("\0".join(parts).encode())
    return digest.hexdigest()[:16]


def socket_path(environment: Mapping[str, str]) -> Path:
    """The server's socket, in a folder only this user can enter (the server runs what it is sent)."""
    base = Path(environment.get(FOLDER) or environment.get("XDG_RUNTIME_DIR") or "/tmp")
    folder = base / f"metaeval-forkserver-{os.getuid()}"
    path = folder / f"{server_key(environment)}.sock"
    if len(os.fsencode(path)) > 90:     # a Unix socket's path has at most 107 bytes (and the staging name more)
        raise OSError(f"{path} is too long for a Unix socket")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{folder} is not private to this user")
    return path


def _connect(path: Path) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(str(path))
    except OSError:
        connection.close()
        raise
    return connection


def _start_server(path: Path, environment: Mapping[str, str]) -> None:
    """Start a server in the background unless another process is starting one (a lock held)."""
    import fcntl

    lock = open(path.with_suffix(".lock"), "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return
    # The lock passes to the server, which holds it while preloading and releases it when ready.
    code = "import runpy, sys; sys.argv[:] = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='metaeval_forkserver')"
    with open(path.with_suffix(".log"), "w") as log:    # the server's own errors, if any
        subprocess.Popen([sys.executable, "-c", code, __file__, str(path), str(lock.fileno())], cwd="/",
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(lock.fileno(),),
                         start_new_session=True, env=dict(environment))
    lock.close()


def _run_in_child(connection: socket.socket, script: str) -> int | None:
    """The child's exit status; None if no child was started."""
    library = sys.modules.get(LIBRARY)
    request = json.dumps({"script": os.path.abspath(script), "cwd": os.getcwd(), "argv": sys.argv,
                          "path": sys.path, "environ": dict(os.environ),
                          "library": os.path.dirname(library.__file__) if library and library.__file__ else None}
                         ).encode()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        # A wedged server must not hold the job: after this long the door runs it cold (a child
        # forked later sees the connection closed and ends at once).
        connection.settimeout(PID_SECONDS)
        socket.send_fds(connection, [_HEADER.pack(len(request))], [0, 1, 2])
        connection.sendall(request)
        reply = _receive(connection, _STATUS.size)
        connection.settimeout(None)
    except OSError:
        return None
    if len(reply) < _STATUS.size:
        return None
    pid = _STATUS.unpack(reply)[0]

    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for signum in _FORWARDED:
        signal.signal(signum, forward)
    try:
        reply = _receive(connection, _STATUS.size)
    except OSError:
        reply = b""
    if len(reply) < _STATUS.size:
        print(f"metaeval: the fork server ended before job {pid} did", file=sys.stderr)
        return 1
    return _STATUS.unpack(reply)[0]


def _receive(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


# ----------------------------------------------------------------------------- the server's side

def serve(path: Path, lock_fd: int, idle_seconds: float = IDLE_SECONDS) -> None:
    """Preload, listen on ``path`` (made visible only when ready), fork a child per request, send
    each door its child's pid and then its exit status; exit after ``idle_seconds`` without jobs."""
    import select
    import time

    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in PRELOAD_FIRST:
        _preload(name)
    later = list(PRELOAD_THEN)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staging = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    listener.bind(str(staging))
    listener.listen(64)
    os.replace(staging, path)
    inode = os.stat(path).st_ino
    os.close(lock_fd)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    doors: dict[int, socket.socket] = {}
    last = time.monotonic()
    while (doors or time.monotonic() - last < idle_seconds) and _is_file(path, inode):
        ready, _, _ = select.select([listener, wake_read], [], [], 0.0 if later else 1.0)
        if not ready and later:
            _preload(later.pop(0))
            continue
        if not ready and _library and _drop_stale_library(os.path.dirname(sys.modules[LIBRARY].__file__)):
            later.append(LIBRARY)       # an edited module: the library imported again, while idle
        if wake_read in ready:
            os.read(wake_read, 512)
        _reap(doors)
        if listener in ready:
            door, _ = listener.accept()
            pid = _fork_job(door, listener, (wake_read, wake_write), doors)
            if pid:
                doors[pid] = door
        if doors:
            last = time.monotonic()
    listener.close()    # doors still in the queue see the connection close, and run cold
    if _is_file(path, inode):
        path.unlink(missing_ok=True)


def _preload(name: str) -> None:
    """Import ``name``; for numba also compile one trivial function: numba sets up its compiler on
    the first compilation or cache load (about 0.25 s), which each job that loads a cached kernel
    would otherwise pay again. A library that fails to import is left to the job (which then
    reports the error as it would without the server)."""
    import importlib

    try:
        if name == LIBRARY:
            _preload_library()
            return
        module = importlib.import_module(name)
        if name == "numba":
            module.njit(lambda x: x + 1)(1)
    except Exception:
        pass


# This project's modules as the server imported them: name -> (file, modification time, size), each
# taken before its import. A child whose door finds any of them changed, gone, or the package in
# another folder drops them all and imports the library afresh (the check Python makes of a cached
# .pyc: the source's time and size).
_library: dict[str, tuple[str, int, int]] = {}


def _preload_library() -> None:
    import importlib
    import importlib.util
    import pkgutil

    package = importlib.import_module(LIBRARY)
    folder = os.path.dirname(package.__file__)
    _library[LIBRARY] = _stat(package.__file__)
    for info in pkgutil.walk_packages([folder], prefix=f"{LIBRARY}."):
        spec = importlib.util.find_spec(info.name)
        if spec is None or not spec.origin:
            continue
        before = _stat(spec.origin)
        try:
            importlib.import_module(info.name)
        except Exception:
            continue
        _library[info.name] = before


def _stat(path: str) -> tuple[str, int, int]:
    info = os.stat(path)
    return path, info.st_mtime_ns, info.st_size


def _drop_stale_library(folder: str | None) -> bool:
    """Forget the preloaded library unless every module is the file it was, in the door's folder
    (``folder``); whether it was forgotten."""
    loaded = sys.modules.get(LIBRARY)
    if loaded is None or not _library:
        return False
    current = folder is not None and os.path.dirname(loaded.__file__) == folder
    for path, mtime, size in _library.values() if current else ():
        try:
            if _stat(path) != (path, mtime, size):
                current = False
                break
        except OSError:
            current = False
            break
    if not current:
        for name in [n for n in sys.modules if n == LIBRARY or n.startswith(f"{LIBRARY}.")]:
            del sys.modules[name]
        _library.clear()
    return not current


def _is_file(path: Path, inode: int) -> bool:
    """Whether ``path`` is still this server's socket (a newer server may have replaced it)."""
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _reap(doors: dict[int, socket.socket]) -> None:
    while doors:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        door = doors.pop(pid, None)
        if door is not None:
            code = os.waitstatus_to_exitcode(status)
            try:
                door.sendall(_STATUS.pack(128 - code if code < 0 else code))
            except OSError:
                pass
            door.close()


def _fork_job(door: socket.socket, listener: socket.socket, wake: tuple[int, int],
              doors: dict[int, socket.socket]) -> int:
    """Read a door's request and fork its child; 0 if the request was broken or came from another
    user (the door sees the connection close and runs cold)."""
    fds: list[int] = []
    try:
        door.settimeout(10.0)       # a door killed before sending must not stall the server
        uid = struct.unpack("3i", door.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
        header, fds, _, _ = socket.recv_fds(door, _HEADER.size, 3)
        if uid != os.getuid() or len(header) < _HEADER.size or len(fds) != 3:
            raise OSError("not a request of this user's doors")
        request = json.loads(_receive(door, _HEADER.unpack(header)[0]))
        door.settimeout(None)
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        door.close()
        return 0
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        try:
            door.sendall(_STATUS.pack(pid))
        except OSError:
            os.kill(pid, signal.SIGKILL)
        return pid
    # The child: nothing of the server's loop may run here again.
    try:
        listener.close()
        for other in doors.values():
            other.close()
        signal.set_wakeup_fd(-1)
        for fd in wake:
            os.close(fd)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os._exit(_run_job(door, request))
    finally:
        os._exit(1)


def _run_job(door: socket.socket, request: dict) -> int:
    import logging
    import runpy
    import tempfile
    import threading
    import traceback

    def watch_door():
        # The door closes its end when it exits or is killed: the job then ends too.
        try:
            while door.recv(1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    threading.Thread(target=watch_door, daemon=True).start()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["environ"])
    os.environ[SWITCH] = "0"          # this process is the warm one: its door runs here
    sys.argv = request["argv"]
    sys.path[:] = request["path"]
    tempfile.tempdir = None           # found again from the door's TMPDIR
    _drop_stale_library(request.get("library"))
    code = 0
    try:
        runpy.run_path(request["script"], run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, (int, type(None))):
            print(stop.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "metaeval_forkserver":
    serve(Path(sys.argv[1]), int(sys.argv[2]))
