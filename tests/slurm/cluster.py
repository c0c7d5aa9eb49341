"""A one-node SLURM cluster on this machine, for a test: munged, slurmctld and slurmd on 127.0.0.1,
each in the foreground of a process this module starts, with their configuration, munge key,
sockets, state, spool, pid and log files in one temporary folder (slurm.conf.in, filled in).
Nothing of the system's SLURM or munge set-up is read or changed (/etc/slurm, /etc/munge, the
system's munged socket): clients find the cluster through SLURM_CONF, which the cluster's `env`
sets. That variable does not reach every client, though: snakemake-executor-plugin-slurm-jobstep
(0.6.1), which runs each job inside its allocation with `srun`, removes every SLURM_* variable but
the job's identity from srun's environment, so srun looks for /etc/slurm/slurm.conf, then for a
configless slurmd's /run/slurm/conf, then for DNS SRV records, and fails ("Could not establish a
configuration source"). The cluster's `env` therefore also puts first on PATH a folder with an
`srun` that sets SLURM_CONF and runs the real srun (sbatch exports PATH to the job).
On exit the cluster's jobs are cancelled, the three daemons it started are stopped by their
process ids and the folder is removed.

Needs root (slurmd runs the jobs), and Debian's slurmctld, slurmd, slurm-client and munge."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

TEMPLATE = Path(__file__).with_name("slurm.conf.in")
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scancel", "srun", "scontrol")
PACKAGES = "slurmctld slurmd slurm-client munge"
PARTITION = "debug"


def unavailable() -> str | None:
    """Why a local cluster cannot be started here (None: it can)."""
    missing = [p for p in DAEMONS + CLIENTS if shutil.which(p) is None
               and not (Path("/usr/sbin") / p).exists()]
    if missing:
        return f"{', '.join(missing)} not found (Debian packages: {PACKAGES})"
    if os.geteuid() != 0:
        return "slurmd must run as root to start jobs"
    return None


def _which(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin") / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _memory_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    return 0


@dataclass
class Cluster:
    root: Path
    host: str
    env: dict[str, str]
    partition: str = PARTITION
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    def run(self, *cmd: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, env=self.env, capture_output=True, text=True, check=check, timeout=timeout)

    def logs(self, lines: int = 30) -> str:
        out = []
        for log in sorted((self.root / "log").glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {log.name}\n" + "\n".join(tail))
        return "\n".join(out)

    def node_state(self) -> str:
        proc = self.run("sinfo", "-h", "-N", "-o", "%t", check=False)
        return proc.stdout.strip() if proc.returncode == 0 else f"(sinfo failed: {proc.stderr.strip()})"

    def jobs(self) -> list[str]:
        """The cluster's queued, running and recently finished jobs (finished ones for MinJobAge):
        'id state time-limit memory name' lines."""
        return self.run("squeue", "-h", "--states=all", "-o", "%i %T %l %m %j").stdout.splitlines()


def _start(cluster: Cluster, name: str, cmd: list[str]) -> None:
    log = open(cluster.root / "log" / f"{name}.out", "wb")
    # a session of its own: a Ctrl-C in the terminal running pytest does not reach the daemon
    # before the context manager has cancelled the jobs
    cluster.procs[name] = subprocess.Popen(cmd, env=cluster.env, stdin=subprocess.DEVNULL, stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True)
    log.close()


def _wait(cluster: Cluster, what: str, ready, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, proc in cluster.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode} while waiting for {what}\n"
                                   f"{cluster.logs()}\n{_outputs(cluster)}")
        if ready():
            return
        time.sleep(0.2)
    raise RuntimeError(f"timed out after {timeout}s waiting for {what}\n{cluster.logs()}\n{_outputs(cluster)}")


def _outputs(cluster: Cluster) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
                     for p in sorted((cluster.root / "log").glob("*.out")))


def _stop(cluster: Cluster) -> None:
    """Cancel the cluster's jobs, so that no job outlives the cluster, then stop the daemons this
    module started, by process id, newest first."""
    if "slurmctld" in cluster.procs and cluster.procs["slurmctld"].poll() is None:
        subprocess.run(["scancel", "--partition", cluster.partition], env=cluster.env,
                       capture_output=True, timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            proc = subprocess.run(["squeue", "-h", "--states=PENDING,RUNNING,COMPLETING,SUSPENDED",
                                   "-o", "%i"], env=cluster.env, capture_output=True, text=True, timeout=30)
            if proc.returncode != 0 or not proc.stdout.strip():
                break
            time.sleep(0.5)
    for name in reversed(list(cluster.procs)):
        proc = cluster.procs[name]
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)


@contextmanager
def local_cluster(cpus: int | None = None, memory_mb: int | None = None) -> Iterator[Cluster]:
    """A running one-node cluster: its node has ``cpus`` CPUs (default: this machine's) and
    declares ``memory_mb`` of memory (default: this machine's, at least 8000 MB; memory is not
    a consumable resource, so jobs asking for more than the machine has still run)."""
    reason = unavailable()
    if reason:
        raise RuntimeError(reason)
    root = Path(tempfile.mkdtemp(prefix="metaeval-slurm-"))  # short: unix socket paths are at most 107 bytes
    host = socket.gethostname().split(".")[0]
    env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf")}
    for var in [v for v in env if v.startswith(("SLURM_", "SBATCH_", "SRUN_", "SQUEUE_", "SINFO_"))]:
        if var != "SLURM_CONF":  # e.g. when the tests themselves run inside a SLURM job
            del env[var]
    cluster = Cluster(root=root, host=host, env=env)
    try:
        # munged accepts a socket only in a folder every user can reach (no --force needed then)
        root.chmod(0o711)
        (root / "munge").mkdir(mode=0o755)
        for sub in ("state", "spool", "log", "bin"):
            (root / sub).mkdir(mode=0o700)
        srun = root / "bin" / "srun"
        srun.write_text(f"#!/bin/sh\nSLURM_CONF={root / 'slurm.conf'} exec {_which('srun')} \"$@\"\n")
        srun.chmod(0o700)
        env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        (root / "plugstack.conf").write_text("")
        ports = [_free_port()]
        while len(ports) < 2:
            ports += [p for p in [_free_port()] if p not in ports]
        (root / "slurm.conf").write_text(TEMPLATE.read_text().format(
            root=root, host=host, ctld_port=ports[0], slurmd_port=ports[1],
            cpus=cpus or os.cpu_count() or 1, memory_mb=memory_mb or max(_memory_mb(), 8000)))
        key = root / "munge" / "munge.key"
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)  # readable by root only
        os.write(fd, os.urandom(1024))
        os.close(fd)
        sock = root / "munge" / "munge.socket"
        _start(cluster, "munged", [_which("munged"), "--foreground", f"--key-file={key}",
                                   f"--socket={sock}", f"--pid-file={root / 'munge' / 'munged.pid'}",
                                   f"--seed-file={root / 'munge' / 'munged.seed'}"])
        _wait(cluster, "munged's socket", sock.exists, timeout=30)
        conf = str(root / "slurm.conf")
        _start(cluster, "slurmctld", [_which("slurmctld"), "-D", "-c", "-f", conf])
        _wait(cluster, "slurmctld", lambda: cluster.run("scontrol", "ping", check=False).returncode == 0)
        _start(cluster, "slurmd", [_which("slurmd"), "-D", "-f", conf, "-N", host])
        _wait(cluster, "the node to be idle", lambda: cluster.node_state() == "idle")
        yield cluster
    finally:
        try:
            _stop(cluster)
        finally:
            shutil.rmtree(root, ignore_errors=True)
