"""The fork server (metaeval.forkserver): a door's script runs in a child of a process that has
imported the libraries, and behaves for its caller as if it had run in the door's own process."""
from __future__ import annotations

import os
import signal
import subprocess
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO
from metaeval import forkserver

# slow: each test starts a server that imports the libraries
pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server is Linux-only"),
              pytest.mark.slow]

DOOR = textwrap.dedent("""\
    import os, sys
    sys.path.insert(0, {src!r})
    from metaeval.forkserver import run_warm

    run_warm()
    warm = "numpy" in sys.modules        # imported by the server, never by this script before here
    print("warm" if warm else "cold", os.getcwd(), os.environ.get("DOOR_VALUE"), sys.argv[1:], flush=True)
    print("to stderr", file=sys.stderr)
    {body}
    """)


def door(tmp_path: Path, body: str = "sys.exit(3)") -> Path:
    script = tmp_path / "door.py"
    script.write_text(DOOR.format(src=str(REPO / "src"), body=body))
    return script


@pytest.fixture()
def folder():
    """A socket folder of its own (short: a socket's path has at most 107 bytes); its servers are
    stopped after."""
    path = Path(tempfile.mkdtemp(prefix="fs", dir="/tmp"))
    yield path
    _stop_servers(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture()
def environment(folder):
    """The environment of a server of its own, started and ready."""
    env = {**os.environ, forkserver.FOLDER: str(folder), "DOOR_VALUE": "from the door"}
    forkserver.start(env)
    path = forkserver.socket_path(env)
    deadline = time.time() + 60
    while not path.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert path.exists(), (path.with_suffix(".log").read_text() if path.with_suffix(".log").exists() else "")
    return env


def _stop_servers(folder: Path) -> None:
    out = subprocess.run(["pgrep", "-f", "metaeval_forkserver"], capture_output=True, text=True).stdout.split()
    for pid in map(int, out):
        try:
            if str(folder) in Path(f"/proc/{pid}/cmdline").read_text():
                os.kill(pid, signal.SIGTERM)
        except (OSError, ProcessLookupError):
            pass


def run_door(script: Path, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), "a", "b c"], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def test_a_door_runs_warm_with_its_own_cwd_environment_arguments_streams_and_exit_status(environment, tmp_path):
    script = door(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    warm = run_door(script, environment, work)
    cold = run_door(script, {**environment, forkserver.SWITCH: "0"}, work)
    assert warm.stdout == f"warm {work} from the door ['a', 'b c']\n"
    assert cold.stdout == f"cold {work} from the door ['a', 'b c']\n"
    assert warm.stderr == cold.stderr == "to stderr\n"
    assert warm.returncode == cold.returncode == 3


def test_a_failing_door_reports_its_traceback_and_fails(environment, tmp_path):
    script = door(tmp_path, body="raise ValueError('the reason')")
    warm = run_door(script, environment, tmp_path)
    assert warm.stdout.startswith("warm ")
    assert warm.returncode == 1
    assert "Traceback" in warm.stderr and "ValueError: the reason" in warm.stderr


def test_the_job_ends_with_its_door(environment, tmp_path):
    """Killing the door (as Snakemake or Ctrl-C does, or kill -9) ends its job before it writes."""
    written = tmp_path / "written"
    script = door(tmp_path, body=f"import time; time.sleep(3); open({str(written)!r}, 'w').write('late')")
    for how in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):
        proc = subprocess.Popen([sys.executable, str(script)], env=environment, cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline().startswith("warm ")
        proc.send_signal(how)
        proc.wait(timeout=30)
        assert proc.returncode != 0
        time.sleep(3.5)
        assert not written.exists(), how


def test_a_door_without_a_server_runs_cold_and_starts_one(folder, tmp_path):
    env = {**os.environ, forkserver.FOLDER: str(folder)}
    first = run_door(door(tmp_path), env, tmp_path)
    assert first.stdout.startswith("cold ") and first.returncode == 3
    path = forkserver.socket_path(env)
    deadline = time.time() + 60
    while not path.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert run_door(door(tmp_path), env, tmp_path).stdout.startswith("warm ")


def test_a_socket_path_too_long_runs_cold(tmp_path):
    env = {**os.environ, forkserver.FOLDER: str(tmp_path / ("x" * 80))}
    with pytest.raises(OSError, match="too long"):
        forkserver.socket_path(env)
    forkserver.start(env)                       # neither fails nor starts anything
    assert run_door(door(tmp_path), env, tmp_path).stdout.startswith("cold ")


def test_jobs_with_other_library_threads_or_another_package_path_get_another_server():
    """The libraries read these when imported (BLAS threads decide the last bit of a sum), so a
    server imported under other values must not run the job."""
    base = {"PATH": "/usr/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    key = forkserver.server_key(base)
    assert key == forkserver.server_key({**base, "TMPDIR": "/elsewhere", "SNAKEMAKE_X": "1"})
    assert key != forkserver.server_key({**base, "OPENBLAS_NUM_THREADS": "2"})
    assert key != forkserver.server_key({**base, "PYTHONPATH": "/another/copy/src"})
    assert key != forkserver.server_key({**base, "NUMBA_NUM_THREADS": "1"})


def test_a_server_folder_open_to_other_users_is_refused(folder):
    (folder / f"metaeval-forkserver-{os.getuid()}").mkdir()
    os.chmod(folder / f"metaeval-forkserver-{os.getuid()}", 0o777)
    with pytest.raises(OSError, match="not private"):
        forkserver.socket_path({forkserver.FOLDER: str(folder)})


def test_an_edited_library_module_is_what_the_next_job_runs(folder, tmp_path):
    """The server imports the project's modules too; a job must still see an edit made after that."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "src" / "metaeval", src / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    script = tmp_path / "door.py"
    script.write_text(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(src)!r})
        from metaeval.forkserver import run_warm

        run_warm()
        preloaded = "metaeval.stats.core" in sys.modules
        import metaeval.records
        print("warm" if "numpy" in sys.modules else "cold", preloaded, getattr(metaeval.records, "MARKER", None))
        """))
    env = {**os.environ, forkserver.FOLDER: str(folder), "PYTHONPATH": str(src)}
    run = lambda: subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True,  # noqa: E731
                                 text=True, timeout=60).stdout.strip()
    assert run() == "cold False None"           # no server yet: this one starts it
    path = forkserver.socket_path(env)
    deadline = time.time() + 60
    while time.time() < deadline and run() != "warm True None":    # ready, with the library imported
        time.sleep(0.2)
    assert run() == "warm True None"
    records = src / "metaeval" / "records.py"
    records.write_text(records.read_text() + "\nMARKER = 2\n")
    assert run() == "warm False 2"               # the preloaded modules dropped: the edit is read
    assert path.exists()
