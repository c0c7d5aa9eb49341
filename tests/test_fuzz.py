"""The fuzz suite: every reader of user input, fed structured mutations of a valid file
(tests/fuzz_cases.py says which), either gives the same numbers as a direct computation or stops
with the project's own error naming the user's file; never another exception, a crash, more than
1.5 GB of address space or 10 s for one input.

Each reader is fuzzed in a process of its own with those limits, the examples read by a forked
worker of it (a crash is one finding, and the fuzzing goes on in a new worker). Seeded and bounded: 200 examples per reader
(about 40 s for the whole suite on 2 cores); more with METAEVAL_FUZZ_EXAMPLES=5000, another seed
with METAEVAL_FUZZ_SEED=<n>, the inputs of the findings kept in METAEVAL_FUZZ_OUT=<folder> (else in
pytest's temporary folder; the failure message names it).

Below the fuzzing: each class of problem it found, pinned by a test of its own.
"""
from __future__ import annotations

import os
import pickle
import sys
import textwrap
from pathlib import Path

import pytest

import fuzz_cases
from metaeval.data.contract import DatasetError

EXAMPLES = int(os.environ.get("METAEVAL_FUZZ_EXAMPLES", "200"))
def _out(tmp_path: Path, reader: str) -> Path:
    root = os.environ.get("METAEVAL_FUZZ_OUT")
    return Path(root) / reader if root else tmp_path / reader


def _described(report: dict) -> str:
    lines = [f"{report['reader']}: {report['examples']} examples ({report.get('outcomes')}), {report.get('seconds')} s "
             f"fuzzing, {report['wall_seconds']} s in all, peak RSS {report.get('peak_rss_mb')} MB"]
    for f in report["findings"]:
        lines.append(f"- {f['count']} x {f['finding'][:500]}\n  input: {f['input']}")
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("reader", fuzz_cases.READERS)
def test_a_reader_gives_the_right_numbers_or_its_own_error_naming_the_file(reader, tmp_path, record_property):
    report = fuzz_cases.run(reader, EXAMPLES, _out(tmp_path, reader))
    record_property("fuzz", _described(report))
    print(_described(report))
    assert report["examples"] == EXAMPLES, _described(report)
    assert not report["findings"], _described(report)


@pytest.mark.slow
def test_a_crash_is_a_finding_and_the_fuzzing_goes_on(tmp_path, monkeypatch):
    """The harness itself: a reader that kills its process, raises another exception, names no
    file of the user's or outlives its time is one finding each; the examples after it still run
    (in a new child)."""
    folder = tmp_path / "work"
    fuzz_cases.write_files(folder, {"a.txt": b"x"})
    monkeypatch.setattr(fuzz_cases, "EXAMPLE_SECONDS", 0.5)

    def call(f):
        what = (f / "a.txt").read_text()
        if what == "crash":
            os.kill(os.getpid(), 11)
        if what == "divide":
            return 1 / 0
        if what in ("unnamed", "named"):
            raise DatasetError(f"{f / 'a.txt' if what == 'named' else 'x'}: bad")
        if what == "slow":
            __import__("time").sleep(60)

    worker = fuzz_cases.Worker(fuzz_cases.Reader("r", dict, None, call, fuzz_cases.no_check), folder)
    expected = [("ok", ("read", None)), ("crash", ("finding", "the reader's process was killed by SIGSEGV")),
                ("ok", ("read", None)), ("named", ("refused", None)),
                ("unnamed", ("finding", "DatasetError naming no file of the user's: x: bad")),
                ("slow", ("finding", "took more than 0.5 s")), ("ok", ("read", None))]
    try:
        for what, outcome in expected:
            (folder / "a.txt").write_text(what)
            assert worker.run() == outcome, what
        (folder / "a.txt").write_text("divide")
        assert worker.run()[1].startswith("ZeroDivisionError (not the project's error) at test_fuzz.py")
    finally:
        worker.close()


# =========================================================================== what the fuzzer found

# --------------------------------------------------------------------------- the pickle reader (hostile pickles)

def _pickle_error(tmp_path: Path, data: bytes) -> str:
    """Import a BARTScore pickle in a child process (a crash must not take pytest down): the
    project's error message, or what else happened."""
    import subprocess

    path = tmp_path / "REALSumm" / "data.pkl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    code = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))
        from metaeval.data.bartscore import import_bartscore_pkl
        from metaeval.data.contract import DatasetError
        try:
            import_bartscore_pkl(sys.argv[1], "b")
            print("read")
        except DatasetError as e:
            print("DatasetError", e)
        except Exception as e:
            print("other", type(e).__name__, e)
    """)
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    return proc.stdout.strip() if proc.returncode == 0 else f"exit status {proc.returncode}: {proc.stderr[-300:]}"


def _realsumm(score=0.5) -> dict:
    return {"d1": {"src": "a .", "ref_summ": "a .", "sys_summs": {"M1": {"sys_summ": "a .",
                                                                          "scores": {"litepyramid_recall": score}}}}}


PICKLE_FINDINGS = {
    # a million nested tuples as a dict key: hashing the key recurses in C (the interpreter's stack)
    "deep_key": (lambda: (lambda d, i: d[:i] + b"(" * 1_000_000 + d[i:i + 7] + b"t" * 1_000_000 + d[i + 7:])(
        pickle.dumps({"d1": 1}, protocol=2), pickle.dumps({"d1": 1}, protocol=2).index(b"X\x02"))),
    # APPENDS on a dict (the C unpickler calls its .append / .extend): AttributeError
    "appends_on_a_dict": (lambda: b"\x80\x02}(K\x01e."),
    # BUILD on a list (the case): AttributeError
    "build_on_a_list": (lambda: b"\x80\x02]}b."),
    # BYTEARRAY8 with a length beyond any size: OverflowError
    "bytearray8_length": (lambda: b"\x80\x05\x96" + b"\xff" * 8 + b"."),
    # a 400-digit integer as a score: float() overflows in the importer
    "huge_integer_score": (lambda: pickle.dumps(_realsumm(10**400))),
    # a score nested in 100,000 lists: the importer's message (its repr) exceeds the recursion limit
    "deep_score": (lambda: (lambda d, i: d[:i] + b"(" * 100_000 + d[i:i + 9] + b"l" * 100_000 + d[i + 9:])(
        pickle.dumps(_realsumm(0.5), protocol=2), pickle.dumps(_realsumm(0.5), protocol=2).index(b"G"))),
}


@pytest.mark.parametrize("case", sorted(PICKLE_FINDINGS))
def test_the_pickle_reader_refuses_what_the_fuzzer_found_naming_the_file(tmp_path, case):
    """Found by the fuzzer before the restricted unpickler was bounded (each crashed, or raised another
    exception, there)."""
    got = _pickle_error(tmp_path, PICKLE_FINDINGS[case]())
    assert got.startswith(f"DatasetError {tmp_path / 'REALSumm' / 'data.pkl'}"), got
