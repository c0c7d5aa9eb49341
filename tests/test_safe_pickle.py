"""The restricted unpickler is bounded and total (issue 29): each hostile pickle, written opcode by
opcode, is read in a child process under resource limits (1 GB of address space, 60 s of CPU), so a
crash of the interpreter shows as a failing test, not a dead pytest. The child must end normally
with the project's DatasetError naming the file (and the record and field where there is one);
any other exception, a signal or a limit is a failure."""
from __future__ import annotations

import pickle
import re
import resource
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from metaeval.data.safe_pickle import MAX_BYTES, MAX_DEPTH, check_shape, load_data_pickle
from metaeval.data.contract import DatasetError

LIMIT_BYTES = 2**30
CHILD = """
import sys
from metaeval.data.contract import DatasetError
from metaeval.data.bartscore import import_bartscore_pkl
try:
    import_bartscore_pkl(sys.argv[1], "x")
except DatasetError as e:
    print("DatasetError:", e)
else:
    print("imported")
"""


def _limits():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def read_in_child(path: Path) -> str:
    """What the importer says about ``path``, run in a limited child; the child must exit 0."""
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120,
                          preexec_fn=_limits)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    return proc.stdout.strip()


def u(text: str) -> bytes:
    """SHORT_BINUNICODE (or BINUNICODE) of ``text``, surrogates kept as the pickler keeps them."""
    data = text.encode("utf-8", "surrogatepass")
    return (b"\x8c" + bytes([len(data)]) if len(data) < 256 else b"X" + struct.pack("<I", len(data))) + data


def summeval_file(tmp_path: Path, data: bytes, name: str = "data.pkl") -> Path:
    folder = tmp_path / "SummEval"
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data)
    return folder / name


def record(**changes) -> dict:
    rec = {"src": "a .", "ref_summ": "a .", "ref_summs": ["a ."],
           "sys_summs": {"M1": {"sys_summ": "b .", "scores": {"coherence": 1.0, "consistency": 2.0, "fluency": 3.0,
                                                              "relevance": 4.0}}}}
    rec.update(changes)
    return rec


def scores(value) -> dict:
    return record(sys_summs={"M1": {"sys_summ": "b .", "scores": {
        "coherence": value, "consistency": 2.0, "fluency": 3.0, "relevance": 4.0}}})


PROTO2 = b"\x80\x02"
HOSTILE = {
    # BUILD sets the state of what it built: on a list, AttributeError in plain pickle.load
    "build_on_a_list": (PROTO2 + b"]}(" + u("a") + b"K\x01ub.", r"opcode BUILD, which imports, calls or changes"),
    # lengths beyond the file: BINBYTES (4 bytes), BINBYTES8 beyond sys.maxsize, a FRAME of 2**64-1
    "binbytes_length": (b"\x80\x03B" + struct.pack("<I", 0xFFFFFFF0) + b"abc.", r"not a complete pickle"),
    "binbytes8_length": (b"\x80\x04\x8e" + struct.pack("<Q", 2**63 + 5) + b".", r"not a complete pickle"),
    "frame_length": (b"\x80\x04\x95" + struct.pack("<Q", 2**64 - 1) + b"N.", r"not a complete pickle \(byte 2: a "
                                                                                 r"FRAME of 18,446,744,073,709,551,615"),
    # a key nested a million deep, with TUPLE1 (no MARK): hashing it recursed in C, a segmentation fault
    "deep_tuple_key": (PROTO2 + b"})" + b"\x85" * 1_000_000 + b"Ns.", rf"byte \d+: containers nested more than "
                                                                        rf"{MAX_DEPTH} deep"),
    # the same with MARKs, two bytes a level: 2 MB
    "deep_marks": (PROTO2 + b"}" + b"(" * 1_000_000 + b")" + b"t" * 1_000_000 + b"Ns.", r"more than 100 MARKs open"),
    # lists made empty and filled after they are nested (through the memo): only the built structure shows the depth
    "deep_list_by_memo": (PROTO2 + b"".join(b"]r" + struct.pack("<I", i) for i in range(200_000))
                          + b"".join(b"j" + struct.pack("<I", i) + b"j" + struct.pack("<I", i + 1) + b"a0"
                                     for i in range(199_999)) + b"j\x00\x00\x00\x00.",
                          r"containers nested more than 100 deep"),
    "list_inside_itself": (PROTO2 + b"]q\x00h\x00a.", r"contains itself"),
    # keys whose hashes can be forced equal (building the dict takes quadratic time) or nested
    "tuple_key": (PROTO2 + b"}K\x01K\x02\x86Ns.", r"byte 9: a dict key or set member is a container"),
    "big_integer_key": (PROTO2 + b"}\x8a\x09" + b"\x01" * 9 + b"Ns.", r"is an integer over 64 bits"),
    "frozenset_member": (PROTO2 + b"\x8f(\x8f(\x91\x90\x91.", r"is a container"),
    # LONG_BINPUT 0x0fffffff: the C unpickler's memo is an array as long as the largest index (4 GB)
    "memo_index_bomb": (PROTO2 + b"Nr\xff\xff\xff\x0f.", r"memo index 268,435,455 out of sequence"),
    "a_million_containers": (PROTO2 + b"](" + b"]" * 1_000_001 + b"e.", r"more than 1,000,000 containers"),
    "unknown_opcode": (PROTO2 + b"\xff.", r"not a complete pickle"),
    "stack_underflow": (PROTO2 + b"a.", r"not a complete pickle"),
    "memo_miss": (PROTO2 + b"h\x07.", r"not a complete pickle"),
    "long_text_digits": (b"L" + b"7" * 5000 + b"L\n.", r"not a complete pickle"),
    "invalid_utf8": (PROTO2 + b"\x8c\x02\xc3(.", r"not a complete pickle"),
    "ext_code": (PROTO2 + b"\x82\x01.", r"opcode EXT1"),
    "global": (b"cos\nsystem\n.", r"asks for os.system"),
    "persistent_id": (PROTO2 + u("x") + b"Q.", r"opcode BINPERSID"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_pickle_is_refused_naming_the_file(tmp_path, case):
    data, message = HOSTILE[case]
    path = summeval_file(tmp_path, data, f"{case}.pkl")
    said = read_in_child(path)
    assert said.startswith(f"DatasetError: {path}: "), said
    assert re.search(message, said), said


def test_plain_pickle_load_really_fails_on_them(tmp_path):
    """The cases are live: plain pickle.load crashes or raises something else than a clear error."""
    path = summeval_file(tmp_path, HOSTILE["deep_tuple_key"][0])
    proc = subprocess.run([sys.executable, "-c", "import pickle,sys; pickle.load(open(sys.argv[1], 'rb'))", str(path)],
                          capture_output=True, timeout=120, preexec_fn=_limits)
    assert proc.returncode < 0                                   # killed by a signal (SIGSEGV)
    for case, error in (("build_on_a_list", AttributeError), ("binbytes8_length", OverflowError),
                        ("frame_length", OverflowError)):
        with pytest.raises(error):
            pickle.loads(HOSTILE[case][0])


@pytest.mark.parametrize("value, message", [
    (10**399, r"'scores.coherence': an integer of 1326 bits is not a finite number \(too large for a float\)"),
    (float("inf"), r"'scores.coherence': inf is not a finite number"),
    (float("nan"), r"'scores.coherence': nan is not a finite number"),
    ("3", r"'scores.coherence': '3' is not a number"),
    ([[[]]], r"'scores.coherence': a list is not a number"),
])
def test_a_score_must_be_a_finite_number(tmp_path, value, message):
    path = summeval_file(tmp_path, pickle.dumps({"d1": scores(value)}))
    said = read_in_child(path)
    assert said.startswith(f"DatasetError: {path}: record 'd1', system 'M1', field "), said
    assert re.search(message, said), said


@pytest.mark.parametrize("data, where", [
    ({"d1": record(src="a \ud83d .")}, r"record 'd1', field 'src': 'a \ud83d .' contains a lone surrogate U+D83D"),
    ({"d1": record(ref_summs=["a .", "b \udc00"])}, r"record 'd1', field 'ref_summs[1]': 'b \udc00' contains a lone"),
    ({"d1": record(sys_summs={"M1": {**record()["sys_summs"]["M1"], "sys_summ": "\ud83d"}})},
     r"record 'd1', system 'M1', field 'sys_summ': '\ud83d' contains a lone surrogate"),
    ({"d\ud83d": record()}, r"record 'd\ud83d', field 'doc_id': 'd\ud83d' contains a lone surrogate"),
    ({"d1": record(sys_summs={"M\ud83d": record()["sys_summs"]["M1"]})},
     r"record 'd1', system 'M\ud83d', field 'sys_summs': 'M\ud83d' contains a lone surrogate"),
    ({1.5: record()}, "record 1.5, field 'doc_id': 1.5; expected a string or an integer name"),
    ({None: record()}, "record None, field 'doc_id': None; expected a string or an integer name"),
    ({"d1": record(sys_summs={b"M1": record()["sys_summs"]["M1"]})},
     "record 'd1', system b'M1', field 'sys_summs': b'M1'; expected a string or an integer name"),
    ({"d" * 5000: record(src=5)}, "record 'ddddd"),    # a long name, cut in the message
])
def test_text_and_names_are_proper_unicode(tmp_path, data, where):
    path = summeval_file(tmp_path, pickle.dumps(data))
    said = read_in_child(path)
    assert said.startswith(f"DatasetError: {path}: {where}"), said
    assert len(said) < 400 + len(str(path))


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = summeval_file(tmp_path, b"")
    with open(path, "wb") as fh:
        fh.truncate(MAX_BYTES + 1)                               # sparse: no disk used
    with pytest.raises(DatasetError, match=rf"{path}: 8,388,609 bytes; a data pickle may have at most 8,388,608"):
        load_data_pickle(path)


def test_the_real_nesting_passes_and_one_level_more_than_the_limit_does_not(tmp_path):
    nested: list = []
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    (tmp_path / "ok.pkl").write_bytes(pickle.dumps(nested))
    assert load_data_pickle(tmp_path / "ok.pkl") == nested
    (tmp_path / "deep.pkl").write_bytes(pickle.dumps([nested]))
    with pytest.raises(DatasetError, match=r"deep.pkl: byte \d+: containers nested more than 100 deep"):
        load_data_pickle(tmp_path / "deep.pkl")


def test_check_shape_measures_shared_containers_once_and_finds_the_longest_path():
    shared = [[[]]]
    check_shape({"a": shared, "b": [shared], "c": (1, frozenset({(2,)}))}, "f", max_depth=5)
    with pytest.raises(DatasetError, match="nested more than 4 deep"):
        check_shape({"a": shared, "b": [shared]}, "f", max_depth=4)     # b -> [shared] is 5 deep
    loop: dict = {}
    loop["x"] = [loop]
    with pytest.raises(DatasetError, match="contains itself"):
        check_shape(loop, "f")


def test_a_good_record_still_imports(tmp_path):
    path = summeval_file(tmp_path, pickle.dumps({"d1": record(), 7: record()}, protocol=pickle.HIGHEST_PROTOCOL))
    assert read_in_child(path) == "imported"
