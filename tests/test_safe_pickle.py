"""The restricted unpickler is bounded and total: each hostile pickle, written opcode by
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


# ----------------------------------------------------------------------------- NumPy float scalars

STATE = b"(K\x03" + u("<") + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"    # a float dtype's BUILD state


def scalar_pickle(code: str = "f8", data: bytes = struct.pack("<d", 0.25), state: bytes = STATE,
                  scalar: bytes = b"cnumpy.core.multiarray\nscalar\n", dtype: bytes = b"cnumpy\ndtype\n") -> bytes:
    """A NumPy scalar written opcode by opcode as NumPy 1 writes one (protocol 3), with any part replaced:
    REDUCE(scalar, (BUILD(REDUCE(numpy.dtype, (code, 0, 1)), state), data))."""
    built = dtype + u(code) + b"K\x00K\x01\x87R" + (state + b"b" if state else b"")
    return b"\x80\x03}" + u("x") + scalar + built + b"C" + bytes([len(data)]) + data + b"\x86Rs."


def loads(tmp_path: Path, data: bytes):
    path = tmp_path / "scores.pkl"
    path.write_bytes(data)
    return path, load_data_pickle(path)


def test_numpy_float_scalars_load_as_the_floats_numpy_wrote(tmp_path):
    """What NumPy itself pickles (protocols 3-5: NumPy 2 names numpy._core, with STACK_GLOBAL from
    protocol 4 on) reads as plain floats equal to NumPy's values; and the hand-written NumPy 1 form."""
    np = pytest.importorskip("numpy")
    values = [np.float64(0.1), np.float64(-0.693147180559946), np.float32(0.2554), np.float32(1e-30),
              np.float64("nan")]
    for protocol in (3, 4, 5):
        _, got = loads(tmp_path, pickle.dumps({"v": values, "k": {np.float64(2.5): 1}}, protocol=protocol))
        assert [type(v) for v in got["v"]] == [float] * len(values)
        assert got["v"][:4] == [float(v) for v in values[:4]] and got["v"][4] != got["v"][4]
        assert got["k"] == {2.5: 1}
    assert loads(tmp_path, scalar_pickle())[1] == {"x": 0.25}
    assert loads(tmp_path, scalar_pickle("f4", struct.pack("<f", 0.1)))[1] == {"x": struct.unpack("<f", struct.pack("<f", 0.1))[0]}
    big_endian = STATE.replace(u("<"), u(">"))
    assert loads(tmp_path, scalar_pickle(data=struct.pack(">d", 0.5), state=big_endian))[1] == {"x": 0.5}
    assert loads(tmp_path, scalar_pickle(scalar=b"cnumpy._core.multiarray\nscalar\n"))[1] == {"x": 0.25}


def test_the_real_realsumm_pickles_load_and_equal_numpys_own_reading():
    """abs.pkl and ext.pkl read here equal numpy's own unpickling of them (the test's independent
    read, restricted to numpy's names): every score a plain float of the same value."""
    from conftest import shared_dataset

    np = pytest.importorskip("numpy")
    folder = shared_dataset("raw/realsumm")

    class NumpyOnly(pickle.Unpickler):
        def find_class(self, module, name):
            assert module.split(".")[0] == "numpy", (module, name)
            return super().find_class(module, name)

    for name in ("abs.pkl", "ext.pkl"):
        ours = load_data_pickle(folder / name)
        with open(folder / name, "rb") as fh:
            theirs = NumpyOnly(fh).load()
        scalars = 0
        for doc, rec in theirs.items():
            assert ours[doc]["ref_summ"] == rec["ref_summ"]
            for system, entry in rec["system_summaries"].items():
                mine = ours[doc]["system_summaries"][system]
                assert mine["system_summary"] == entry["system_summary"]
                assert mine["scores"] == {k: float(v) for k, v in entry["scores"].items()}
                assert all(type(v) is float for v in mine["scores"].values())
                scalars += sum(isinstance(v, np.generic) for v in entry["scores"].values())
        assert scalars > 0, f"{name}: numpy scalars expected"


@pytest.mark.parametrize("data, message", [
    # other NumPy globals: an array (_reconstruct, ndarray), a loader
    (b"\x80\x03cnumpy.core.multiarray\n_reconstruct\n.", r"asks for numpy.core.multiarray._reconstruct"),
    (b"\x80\x03cnumpy._core.multiarray\n_reconstruct\n.", r"asks for numpy._core.multiarray._reconstruct"),
    (b"\x80\x03cnumpy\nndarray\n.", r"asks for numpy.ndarray"),
    (b"\x80\x03cnumpy\nload\n.", r"asks for numpy.load"),
    (b"\x80\x04" + u("numpy") + u("load") + b"\x93.", r"asks for numpy.load"),
    (b"\x80\x03cbuiltins\neval\n" + u("1") + b"\x85R.", r"asks for builtins.eval"),
    (b"\x80\x04" + u("os") + u("system") + b"\x93.", r"asks for os.system"),
    # the scalar with a global of another module in its place
    (scalar_pickle(scalar=b"cnumpy.core.multiarray\nscalarx\n"), r"asks for numpy.core.multiarray.scalarx"),
    # dtypes that are not a float's: object (would unpickle objects), integer, string; a bad state; no BUILD
    (scalar_pickle("O"), r"asks for a numpy.dtype\('O', 0, 1\); expected the dtype of a float scalar: 'f8' or 'f4'"),
    (scalar_pickle("i8", struct.pack("<q", 7)), r"numpy.dtype\('i8', 0, 1\)"),
    (scalar_pickle("U1"), r"numpy.dtype\('U1', 0, 1\)"),
    (scalar_pickle(state=STATE.replace(b"NNN", b"N" + u("f") + b"N")), r"numpy.dtype\('f8'\) with the state a tuple"),
    (scalar_pickle(state=b""), r"numpy scalar of a FloatDtype; expected one of a float dtype \('f8' or 'f4'\) set by BUILD"),
    # the bytes of another size than the dtype's
    (scalar_pickle(data=b"\x00" * 4), r"numpy f8 scalar of b'\\x00\\x00\\x00\\x00'; expected 8 bytes"),
    (scalar_pickle("f4", data=b"\x00" * 8), r"numpy f4 scalar of .*; expected 4 bytes"),
    # REDUCE whose callable is not an allowed global: a string, a dtype made by REDUCE
    (b"\x80\x03" + u("x") + b")R.", r"byte 6: opcode REDUCE, which imports, calls or changes an object"),
    (b"\x80\x03cnumpy\ndtype\n" + u("f8") + b"K\x00K\x01\x87R)R.", r"opcode REDUCE, which imports, calls"),
    # BUILD on anything but a dtype made here: a scalar, a global
    (scalar_pickle()[:-2] + b"}b" + b"s.", r"opcode BUILD, which imports, calls or changes"),
    (b"\x80\x03cnumpy\ndtype\n}b.", r"opcode BUILD"),
    # a dtype or an allowed function left in the data itself
    (b"\x80\x03}" + u("x") + b"cnumpy\ndtype\ns.", r"the pickle's data holds a function"),
    (b"\x80\x03}" + u("x") + b"cnumpy\ndtype\n" + u("f8") + b"K\x00K\x01\x87R" + STATE + b"bs.",
     r"the pickle's data holds a FloatDtype"),
])
def test_anything_but_a_float_scalar_is_refused_naming_the_file(tmp_path, data, message):
    path = tmp_path / "hostile.pkl"
    path.write_bytes(data)
    with pytest.raises(DatasetError) as error:
        load_data_pickle(path)
    assert str(error.value).startswith(f"{path}: "), error.value
    assert re.search(message, str(error.value)), error.value


def test_protocol_2_numpy_scalars_are_refused():
    """NumPy pickles a scalar's bytes under protocol 2 through _codecs.encode (a call of a global):
    refused, as every global but the scalar's two."""
    np = pytest.importorskip("numpy")
    with pytest.raises(DatasetError, match=r"asks for _codecs.encode"):
        from metaeval.data.safe_pickle import scan_pickle
        scan_pickle(pickle.dumps(np.float64(1.0), protocol=2), "p2.pkl")
