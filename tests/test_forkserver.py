"""The fork server (metaeval.forkserver): a door's script runs in a child of a process that has
imported the libraries, and behaves for its caller as if it had run in the door's own process."""
from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO, scenario
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
    ended after."""
    path = Path(tempfile.mkdtemp(prefix="fs", dir="/tmp"))
    yield path
    _stop_servers(path)
    shutil.rmtree(path, ignore_errors=True)


def run_environment(folder: Path, **extra: str) -> dict:
    """The environment of a run's jobs (its id as start_run makes one), with its socket folder."""
    return {**os.environ, forkserver.FOLDER: str(folder), forkserver.RUN: f"{os.getpid()}-{os.urandom(6).hex()}",
            **extra}


def wait_ready(env: dict, server: subprocess.Popen | None = None) -> Path:
    path = forkserver.socket_path(env)
    deadline = time.time() + 60
    while not path.exists() and time.time() < deadline and (server is None or server.poll() is None):
        time.sleep(0.05)
    assert path.exists(), (path.with_suffix(".log").read_text() if path.with_suffix(".log").exists() else "")
    return path


@pytest.fixture()
def served(folder):
    """A ready server of its own (owned by this process): (the jobs' environment, the server)."""
    env = run_environment(folder, DOOR_VALUE="from the door")
    server = forkserver.start(env)
    assert server is not None
    wait_ready(env, server)
    yield env, server
    _end(server)


@pytest.fixture()
def environment(served):
    return served[0]


def _end(server: subprocess.Popen) -> None:
    for signum in (signal.SIGKILL, signal.SIGCONT):
        try:
            server.send_signal(signum)
        except OSError:
            pass
    server.wait(timeout=30)


def _stop_servers(folder: Path) -> None:
    """End every server whose socket is in ``folder`` (started by a subprocess of a test)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if "metaeval_forkserver" in (cmd := (entry / "cmdline").read_text()) and str(folder) in cmd:
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def servers_of(folder: Path) -> list[int]:
    """The pids of the running servers whose socket is in ``folder`` (not their jobs' children,
    which have the same command line)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and "metaeval_forkserver" in (cmd := (entry / "cmdline").read_text()) \
                    and str(folder) in cmd and forkserver._process_state(int(entry.name)) not in "ZX":
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return [pid for pid, parent in parents.items() if parent not in parents]


def run_door(script: Path, env: dict, cwd: Path, **popen) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), "a", "b c"], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=60, **popen)


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


def test_a_door_without_its_runs_server_runs_cold_and_starts_none(folder, tmp_path):
    """Only a run starts a server (start_run); a door that finds none, or has no run, runs cold."""
    without_run = {k: v for k, v in os.environ.items() if k != forkserver.RUN}
    for env in (run_environment(folder), {**without_run, forkserver.FOLDER: str(folder)}):
        assert run_door(door(tmp_path), env, tmp_path).stdout.startswith("cold ")
    time.sleep(1.5)
    assert not servers_of(folder)
    assert not list(folder.rglob("*.sock"))


def test_a_socket_path_too_long_runs_cold(tmp_path):
    env = run_environment(tmp_path / ("x" * 80))
    with pytest.raises(OSError, match="too long"):
        forkserver.socket_path(env)
    assert forkserver.start(env) is None        # neither fails nor starts anything
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
    assert key != forkserver.server_key({**base, "LC_ALL": "C"})


def test_a_server_folder_open_to_other_users_or_a_symbolic_link_is_refused(folder, tmp_path):
    env = run_environment(folder)
    private = folder / f"metaeval-forkserver-{os.getuid()}"
    private.mkdir()
    os.chmod(private, 0o777)
    with pytest.raises(OSError, match="not a folder private"):
        forkserver.socket_path(env)
    private.rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    private.symlink_to(elsewhere)           # a private folder, but reached through a link
    with pytest.raises(OSError, match="not a folder private"):
        forkserver.socket_path(env)
    assert forkserver.start(env) is None
    assert run_door(door(tmp_path), env, tmp_path).stdout.startswith("cold ")
    assert list(elsewhere.iterdir()) == []


def test_a_relative_server_folder_is_refused_and_a_run_makes_it_absolute(folder, tmp_path):
    with pytest.raises(OSError, match="not an absolute path"):
        forkserver.socket_path(run_environment(Path("relative/fs")))
    # start_run in a process of its own (it sets the environment its jobs inherit)
    code = ("import os; from metaeval import forkserver; forkserver.start_run(); "
            "print(os.environ[forkserver.FOLDER]); forkserver.end_run()")
    out = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=60,
                         env={**os.environ, forkserver.FOLDER: "relative/fs"})
    assert out.stdout.strip() == str(folder / "relative/fs"), out.stderr
    assert (folder / "relative/fs" / f"metaeval-forkserver-{os.getuid()}").is_dir()


def test_an_edited_library_module_is_what_the_next_job_runs(folder, tmp_path):
    """The server imports the project's modules too; a job must still see an edit made after that,
    even one that keeps the file's size and modification time (as cp -p, rsync -t and tar x do)."""
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
    env = run_environment(folder, PYTHONPATH=str(src))
    run = lambda: subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True,  # noqa: E731
                                 text=True, timeout=60).stdout.strip()
    assert run() == "cold False None"           # no server yet
    server = forkserver.start(env)
    try:
        path = wait_ready(env, server)
        deadline = time.time() + 60
        while time.time() < deadline and run() != "warm True None":    # ready, with the library imported
            time.sleep(0.2)
        assert run() == "warm True None"
        records = src / "metaeval" / "records.py"
        text = records.read_text()
        records.write_text(text + "\nMARKER = 2\n")
        assert run() == "warm False 2"               # the preloaded modules dropped: the edit is read
        deadline = time.time() + 60                  # the server imports the edited library again, idle
        while time.time() < deadline and run() != "warm True 2":
            time.sleep(1.5)
        assert run() == "warm True 2"
        info = records.stat()
        edited = text + "\nMARKER = 3\n"             # the same size as the last edit, and its time
        assert len(edited) == len(text + "\nMARKER = 2\n")
        records.write_text(edited)
        os.utime(records, ns=(info.st_atime_ns, info.st_mtime_ns))
        assert (records.stat().st_size, records.stat().st_mtime_ns) == (info.st_size, info.st_mtime_ns)
        assert run() == "warm False 3"
        assert path.exists()
    finally:
        _end(server)


SETTINGS_DOOR = textwrap.dedent("""\
    import json, os, resource, sys
    sys.path.insert(0, {src!r})
    from metaeval.forkserver import run_warm

    run_warm()
    mask = os.umask(0)
    os.umask(mask)
    with open("written", "w") as f:
        f.write("x")
    print(json.dumps({{"warm": os.environ.get("METAEVAL_FORKSERVER") == "0", "umask": mask,
                      "nice": os.getpriority(os.PRIO_PROCESS, 0), "affinity": sorted(os.sched_getaffinity(0)),
                      "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
                      "core": resource.getrlimit(resource.RLIMIT_CORE),
                      "address_space": resource.getrlimit(resource.RLIMIT_AS),
                      "mode": os.stat("written").st_mode & 0o777}}))
    """)


def settings(umask: int, nice: int, cpus: set[int], nofile: int, address_space: int | None = None):
    """A preexec function that gives a process these settings (as umask, nice, taskset, ulimit do)."""
    def apply():
        os.umask(umask)
        os.setpriority(os.PRIO_PROCESS, 0, nice)
        os.sched_setaffinity(0, cpus)
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return apply


def test_a_warm_job_takes_its_doors_umask_nice_affinity_and_limits(environment, tmp_path):
    """The server runs under this process's settings; each door under others: its job sees the
    door's, as a cold job would (the umask decides the mode of what it writes)."""
    script = tmp_path / "door.py"
    script.write_text(SETTINGS_DOOR.format(src=str(REPO / "src")))
    cpus = sorted(os.sched_getaffinity(0))
    base = os.getpriority(os.PRIO_PROCESS, 0)
    for umask, nice, use, nofile in ((0o077, base + 3, cpus[:1], 256), (0o027, base + 1, cpus[-1:], 300)):
        work = tmp_path / oct(umask)
        work.mkdir()
        out = run_door(script, environment, work, preexec_fn=settings(umask, nice, set(use), nofile))
        seen = json.loads(out.stdout)
        assert seen["warm"], out.stderr
        assert seen["umask"] == umask and seen["mode"] == 0o666 & ~umask
        assert seen["nice"] == nice and seen["affinity"] == use
        assert seen["nofile"][0] == nofile and seen["core"] == [0, 0]


def test_a_door_under_an_address_space_limit_runs_cold(environment, tmp_path):
    """A warm child starts with every preloaded library mapped, which `ulimit -v` would count."""
    script = tmp_path / "door.py"
    script.write_text(SETTINGS_DOOR.format(src=str(REPO / "src")))
    limit = 4_000_000_000
    out = run_door(script, environment, tmp_path, preexec_fn=settings(0o022, os.getpriority(os.PRIO_PROCESS, 0),
                                                                       os.sched_getaffinity(0), 512, limit))
    seen = json.loads(out.stdout)
    assert not seen["warm"] and seen["address_space"] == [limit, limit]


def without_privileges() -> None:
    """Run the next program without the privileges to lower a nice level or raise a hard limit
    (root's CAP_SYS_NICE and CAP_SYS_RESOURCE dropped from the bounding set: gone after exec)."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (23, 24):         # CAP_SYS_NICE, CAP_SYS_RESOURCE (linux/capability.h)
            if libc.prctl(24, capability, 0, 0, 0) != 0:    # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_a_setting_the_child_cannot_take_makes_the_door_run_cold(folder):
    """An unprivileged child cannot raise a hard limit nor lower its nice level below the server's:
    the door then runs the job itself, with its own settings."""
    script = folder / "door.py"
    script.write_text(SETTINGS_DOOR.format(src=str(REPO / "src")))
    code = textwrap.dedent(f"""\
        import json, os, resource, subprocess, sys, time
        from metaeval import forkserver
        env = {{**os.environ, forkserver.FOLDER: {str(folder)!r}, forkserver.RUN: "1-cafe"}}
        server = forkserver.start(env)
        path = forkserver.socket_path(env)
        while not path.exists() and server.poll() is None:
            time.sleep(0.05)
        run = lambda: json.loads(subprocess.run([sys.executable, {str(script)!r}], env=env, cwd={str(folder)!r},
                                                capture_output=True, text=True, timeout=60).stdout)
        first = run()
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.prlimit(server.pid, resource.RLIMIT_NOFILE, (64, 64))
        second = run()
        resource.prlimit(server.pid, resource.RLIMIT_NOFILE, (64, 64))
        os.setpriority(os.PRIO_PROCESS, server.pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5))
        third = run()
        server.kill()
        print(json.dumps([first["warm"], second["warm"], second["nofile"][1] == hard, third["warm"],
                          third["nice"] == os.getpriority(os.PRIO_PROCESS, 0)]))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=folder,
                         preexec_fn=without_privileges)
    assert out.stdout.strip() == "[true, false, true, false, true]", out.stderr


def test_a_job_that_completed_reaches_its_door_when_the_server_is_killed(served, tmp_path):
    env, server = served
    written = tmp_path / "written"
    script = door(tmp_path, body=f"import time; time.sleep(2); open({str(written)!r}, 'w').write('done'); sys.exit(3)")
    proc = subprocess.Popen([sys.executable, str(script)], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("warm ")
    server.kill()
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 3, err
    assert out == "" and err == "to stderr\n"        # the job ran once: warm, not again cold
    assert written.read_text() == "done"


def test_a_job_killed_with_its_server_runs_again_cold(served, tmp_path):
    """No status can reach the door (the child and the server both killed): the door runs the job."""
    env, server = served
    script = door(tmp_path, body="print(os.getpid(), flush=True); import time; time.sleep(0 if 'numpy' not in sys.modules else 30); sys.exit(3)")
    start = time.time()
    proc = subprocess.Popen([sys.executable, str(script)], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("warm ")
    child = int(proc.stdout.readline())
    server.kill()
    server.wait()
    os.kill(child, signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert out.startswith("cold ") and proc.returncode == 3
    assert "running it again, cold" in err
    assert time.time() - start < 20


def test_a_stopped_server_makes_doors_run_cold_at_once(served, folder, tmp_path):
    """Doors wait for a stopped server no longer than they take to see it stopped; beyond the
    listen backlog they do not wait at all; and the server exits when it runs again."""
    env, server = served
    path = forkserver.socket_path(env)
    script = door(tmp_path)
    server.send_signal(signal.SIGSTOP)
    try:
        start = time.time()
        first = run_door(script, env, tmp_path)
        assert first.stdout.startswith("cold ") and first.returncode == 3
        assert time.time() - start < 5
        assert not path.exists()              # the run's other jobs need not try
        # A socket left in place (as if the first door had not removed it): more doors than the
        # backlog holds, at once.
        server.send_signal(signal.SIGCONT)
        server.wait(timeout=30)                 # it runs again, finds its socket gone, and exits
        server2 = forkserver.start(env)
        wait_ready(env, server2)
        server2.send_signal(signal.SIGSTOP)
        start = time.time()
        doors = [subprocess.Popen([sys.executable, str(script)], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True) for _ in range(forkserver.BACKLOG + 6)]
        outs = [d.communicate(timeout=120)[0] for d in doors]
        assert all(o.startswith("cold ") for o in outs) and all(d.returncode == 3 for d in doors)
        assert time.time() - start < 60
        _end(server2)
    finally:
        server.send_signal(signal.SIGCONT)


def test_a_server_ends_with_the_process_that_started_it(folder):
    env = run_environment(folder)
    code = ("import os, sys, time; from metaeval import forkserver; server = forkserver.start(dict(os.environ)); "
            "print(server.pid, flush=True); time.sleep(600)")
    owner = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    pid = int(owner.stdout.readline())
    wait_ready(env)
    owner.kill()
    owner.wait()
    deadline = time.time() + 30
    while time.time() < deadline and forkserver._process_state(pid) not in "ZX":
        time.sleep(0.1)
    assert forkserver._process_state(pid) in "ZX"
    assert not forkserver.socket_path(env).exists()


def test_the_end_of_a_run_ends_its_server_even_stopped(folder):
    code = textwrap.dedent("""\
        import os, signal, time
        from metaeval import forkserver
        os.environ.update({name: "1" for name in forkserver.JOB_THREADS})
        forkserver.start_run()
        path = forkserver.socket_path(os.environ)
        deadline = time.time() + 60
        while not path.exists() and time.time() < deadline:
            time.sleep(0.05)
        server = forkserver._server
        server.send_signal(signal.SIGSTOP)
        forkserver.end_run()
        print(path.exists(), server.returncode == -signal.SIGTERM)
        """)
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, forkserver.FOLDER: str(folder)},
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "True"], out.stderr
    assert not servers_of(folder)


# ----------------------------------------------------------------------------- in Snakemake runs

RUN_SNAKEFILE = textwrap.dedent("""\
    # A run of the fork server's hooks as the workflow's Snakefile has them, with jobs that record
    # what they saw.
    from metaeval import forkserver

    onstart:
        forkserver.start_run()


    onsuccess:
        forkserver.end_run()


    onerror:
        forkserver.end_run()


    rule all:
        input:
            expand("out/{i}.json", i=range(config["jobs"])),


    rule ready:
        output:
            "ready",
        script:
            "ready.py"


    rule job:
        input:
            "ready",
        output:
            "out/{i}.json",
        params:
            sleep=config["sleep"],
        script:
            "job.py"
    """)
READY_DOOR = textwrap.dedent("""\
    # Runs before the other jobs: it waits for the run's server, so that they start warm.
    from metaeval.forkserver import run_warm

    run_warm()
    import os, time
    from metaeval import forkserver

    deadline = time.time() + 60
    while time.time() < deadline and not forkserver.socket_path(os.environ).exists():
        time.sleep(0.05)
    open(snakemake.output[0], "w").close()
    """)
JOB_DOOR = textwrap.dedent("""\
    from metaeval.forkserver import run_warm

    run_warm()
    import json, os, resource, time

    time.sleep(snakemake.params.sleep)
    mask = os.umask(0)
    os.umask(mask)
    with open(snakemake.output[0], "w") as f:
        json.dump({"warm": os.environ.get("METAEVAL_FORKSERVER") == "0", "umask": mask,
                   "nice": os.getpriority(os.PRIO_PROCESS, 0), "affinity": sorted(os.sched_getaffinity(0)),
                   "address_space": resource.getrlimit(resource.RLIMIT_AS)[0],
                   "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0]}, f)
    """)


def a_run(tmp_path: Path, folder: Path):
    """A working directory with the run's Snakefile and doors, and a function that runs it
    (``preexec``: the run's settings) and returns the finished process and its jobs' records."""
    work = tmp_path / "run"
    work.mkdir()
    (work / "Snakefile").write_text(RUN_SNAKEFILE)
    (work / "ready.py").write_text(READY_DOOR)
    (work / "job.py").write_text(JOB_DOOR)
    env = {**{k: v for k, v in os.environ.items() if k not in (forkserver.RUN, forkserver.SWITCH)},
           forkserver.FOLDER: str(folder), "PYTHONPATH": str(REPO / "src")}

    def run(jobs: int = 3, sleep: float = 0.0, preexec=None, during=None, **popen):
        shutil.rmtree(work / "out", ignore_errors=True)
        (work / "ready").unlink(missing_ok=True)
        proc = subprocess.Popen([sys.executable, "-m", "snakemake", "--cores", "2", "--config", f"jobs={jobs}",
                                 f"sleep={sleep}", "--quiet"], cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, preexec_fn=preexec, **popen)
        if during:
            during(work)
        out, err = proc.communicate(timeout=300)
        records = [json.loads(p.read_text()) for p in sorted((work / "out").glob("*.json"))]
        modes = [p.stat().st_mode & 0o777 for p in sorted((work / "out").glob("*.json"))]
        return proc, records, modes, err
    return run


@pytest.mark.workflow
def test_each_run_of_snakemake_has_a_server_of_its_own_with_the_runs_settings(folder, tmp_path):
    """Two runs in a row under other settings (umask, nice, affinity, open files; then `ulimit -v`):
    the second run's jobs see its own settings, warm, and none of the first run's."""
    run = a_run(tmp_path, folder)
    cpus = sorted(os.sched_getaffinity(0))
    base = os.getpriority(os.PRIO_PROCESS, 0)
    first, records, modes, err = run(preexec=settings(0o022, base, set(cpus), 1000))
    assert first.returncode == 0, err
    assert [r["warm"] for r in records] == [True] * 3 and modes == [0o644] * 3
    assert not servers_of(folder)               # the run ended its server
    second, records, modes, err = run(preexec=settings(0o077, min(19, base + 4), set(cpus[:1]), 300))
    assert second.returncode == 0, err
    assert modes == [0o600] * 3
    assert records == [{"warm": True, "umask": 0o077, "nice": min(19, base + 4), "affinity": cpus[:1],
                        "address_space": resource.RLIM_INFINITY, "nofile": 300}] * 3
    limit = 4_000_000_000
    third, records, modes, err = run(preexec=settings(0o027, base, set(cpus), 1000, limit))
    assert third.returncode == 0, err
    assert modes == [0o640] * 3
    assert [(r["warm"], r["address_space"]) for r in records] == [(False, limit)] * 3   # cold under `ulimit -v`
    assert not servers_of(folder)
    assert list(folder.rglob("*")) == [folder / f"metaeval-forkserver-{os.getuid()}"]  # no socket, no log left


@pytest.mark.workflow
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP])
def test_a_run_whose_server_is_killed_or_stopped_completes(folder, tmp_path, how):
    """`kill -9` or SIGSTOP of the server mid-run: the jobs it ran complete, the others run cold,
    and the run succeeds within a bound (and ends a stopped server)."""
    run = a_run(tmp_path, folder)
    hit = []

    def during(work: Path):
        deadline = time.time() + 120
        while time.time() < deadline and len(list((work / "out").glob("*.json"))) < 2:
            time.sleep(0.05)
        for pid in servers_of(folder):
            os.kill(pid, how)
            hit.append(pid)

    start = time.time()
    proc, records, _, err = run(jobs=10, sleep=0.5, during=during)
    elapsed = time.time() - start
    assert proc.returncode == 0, err
    assert len(hit) == 1 and len(records) == 10
    warm = sum(r["warm"] for r in records)
    assert 2 <= warm < 10               # warm until the server was hit, then cold
    assert elapsed < 60
    assert forkserver._process_state(hit[0]) in "ZX" and not servers_of(folder)


@pytest.mark.workflow
def test_a_dry_run_or_unlock_of_the_workflow_starts_no_server(folder, tmp_path):
    scenario(tmp_path)
    env = {**{k: v for k, v in os.environ.items() if k not in (forkserver.RUN, forkserver.SWITCH)},
           forkserver.FOLDER: str(folder)}
    for args in (("-n",), ("--unlock",)):
        proc = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
                                 "--cores", "2", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        seen = set()
        while proc.poll() is None:
            seen.update(servers_of(folder))
            time.sleep(0.05)
        assert proc.returncode == 0, proc.stderr.read()
        assert not seen and not list(folder.rglob("*.sock")) and not list(folder.rglob("*.log"))
