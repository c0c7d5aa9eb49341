"""Read a data pickle without running code from it, within stated bounds of size and nesting.

``pickle.load`` runs whatever the file names (any importable callable, with any arguments), so a
pickle from the web is a program, not data. The release files this project reads (BARTScore's
unified ``data.pkl``) hold only dicts, lists, strings and numbers, which the pickle protocol builds
with its own opcodes; only a *global* (an import of ``module.name``), a persistent id or an
extension code can make it call code, and only ``BUILD`` can set attributes on what it built.

:func:`load_data_pickle` reads a file in three steps, and each problem is a
:class:`~metaeval.data.contract.DatasetError` naming the file:

1. **Size.** A file over :data:`MAX_BYTES` is refused before it is read. Each opcode makes at most
   one object, so with the scan's bounds this bounds the memory and time of a load: the worst
   files measured (8 MiB of ``None``, of one-letter strings, of memo entries; a million containers)
   peak at 215 MB and take 7 s; the real releases take 10-50 ms.
2. **Scan.** The opcode stream is read with :func:`pickletools.genops`, which decodes it without
   executing anything, and the stack is simulated with one number per item (its nesting depth):
   every opcode must be one of :data:`DATA_OPCODES`; every declared length must fit in the file;
   no container may nest deeper than :data:`MAX_DEPTH`, nor the MARKs; at most
   :data:`MAX_CONTAINERS` containers; memo indices in sequence (the C unpickler's memo is an array
   as long as the largest index: one opcode of 6 bytes could make it allocate 32 GB); dict keys and set members
   must be strings or numbers (integers of at most 64 bits: the hashes of tuples and of large
   integers can be forced equal, and a dict of colliding keys takes quadratic time to build,
   hours for a few megabytes). The depth matters because
   CPython hashes, compares and prints nested tuples by recursing in C: a 2 MB pickle with a tuple
   nested a million deep as a dict key crashes the interpreter (a segmentation fault) in
   ``pickle.load`` itself, and no ``except`` can catch that. Immutable containers are built from
   the stack, so the scan knows their depth exactly.
3. **Load and shape.** :class:`DataUnpickler` (``pickle.Unpickler`` with ``find_class`` and
   ``persistent_load`` refusing: the documented hook, "Restricting Globals" in the Python
   documentation) builds the data; any exception it raises becomes the error. A list or dict can be
   filled after it is nested (through the memo), so the nesting of the result is measured again,
   without recursion (:func:`check_shape`), and a structure that contains itself is refused.

**NumPy float scalars.** REALSumm's own release pickles (``abs.pkl``, ``ext.pkl``) hold some
scores as NumPy scalars (MoverScore's as float64, BERTScore's as float32, from torch). NumPy pickles
one as ``REDUCE(numpy.core.multiarray.scalar, (dtype, raw bytes))``, the dtype itself as
``REDUCE(numpy.dtype, ('f8', 0, 1))`` followed by ``BUILD`` with the dtype's state
``(3, '<', None, None, None, -1, -1, 0)`` (NumPy 2 names the first global
``numpy._core.multiarray.scalar``). :data:`ALLOWED_GLOBALS` maps exactly these three names to
functions of this module — never to NumPy's own objects, so nothing of NumPy runs:

* :func:`numpy_dtype` builds a :class:`FloatDtype` for ``f8`` or ``f4`` only (:data:`FLOAT_CODES`:
  the two the releases use; an object dtype ``'O'``, an integer, a string or a structured dtype is
  refused), and its ``__setstate__`` (what BUILD calls) accepts only the state of a plain float
  dtype: little- or big-endian, no fields, no sub-array, no metadata;
* :func:`numpy_scalar` checks that its dtype is such a built :class:`FloatDtype` and that the bytes
  are exactly its item size, and decodes them with :mod:`struct` (IEEE 754 binary64 / binary32, as
  NumPy stores them). It returns a **plain Python float**: the readers check scores with
  ``isinstance(value, float)`` and write ``repr(float)``; a float32 widened to a float is exact
  (``float(numpy.float32(x))`` gives the same number). Every value the bits encode is returned,
  ``nan`` and ``inf`` included, as a ``BINFLOAT`` would be: the importer then refuses a non-finite
  score naming the record, the system and the field, which this layer could not name.

The scan lets ``GLOBAL`` / ``STACK_GLOBAL`` through only for these names, ``REDUCE`` only when the
callable below its arguments is one of them, and ``BUILD`` only on what ``REDUCE(numpy.dtype, ...)``
made; :func:`check_shape` refuses a result that holds anything but plain data (a dtype, or one of
these functions, left in the data by a hostile file). Any other global (``numpy.ndarray``,
``numpy.core.multiarray._reconstruct``, ``numpy.load``, ``os.system``, ``builtins.eval``) is
refused before anything is built.
"""

from __future__ import annotations

import io
import os
import pickle
import pickletools
import struct
from pathlib import Path
from typing import Any, Iterator, Mapping

from .contract import DatasetError

ALLOWED = ("dicts, lists, tuples, sets, strings, bytes, numbers (NumPy float64 and float32 scalars read as floats), "
           "booleans and None")
MAX_BYTES = 8 * 2**20          # 8 MiB: 5 times the largest real release (REALSumm, 1.5 MB)
MAX_DEPTH = 100                # the releases nest 4 deep; CPython's C recursion is safe far beyond 100
MAX_CONTAINERS = 1_000_000     # the releases build at most 5,001 (REALSumm's dicts)


class Refused(ValueError):
    """A NumPy scalar or dtype this reader does not build; :func:`load_data_pickle` names the file."""


# The dtype codes a NumPy scalar may have, with their struct format and item size: float64
# (MoverScore's scores in REALSumm) and float32 (BERTScore's, computed in torch). Nothing else: an
# object dtype would unpickle arbitrary objects, and the releases hold no integer or string scalars.
FLOAT_CODES: Mapping[str, tuple[str, int]] = {"f8": ("d", 8), "f4": ("f", 4)}
_BYTE_ORDERS = ("<", ">")    # numpy writes a float dtype's byte order explicitly (struct reads the same marks)


class FloatDtype:
    """What ``numpy.dtype('f8' | 'f4')`` and its BUILD make here: the code and, once built, the byte order."""

    __slots__ = ("code", "byteorder")

    def __init__(self, code: str):
        self.code, self.byteorder = code, None

    def __setstate__(self, state: Any) -> None:
        # numpy's dtype state: (version, byte order, subarray, names, fields, elsize, alignment, flags);
        # a plain float is (3, '<', None, None, None, -1, -1, 0). Anything else (fields, a sub-array,
        # metadata: version 4) is not a float scalar's dtype.
        if (self.byteorder is not None or not isinstance(state, tuple) or len(state) != 8 or state[0] != 3
                or state[1] not in _BYTE_ORDERS or state[2:] != (None, None, None, -1, -1, 0)):
            raise Refused(f"numpy.dtype({self.code!r}) with the state {brief(state)}; expected a plain float dtype's "
                          "(3, '<' or '>', None, None, None, -1, -1, 0), set once")
        self.byteorder = state[1]


def numpy_dtype(code: Any, align: Any = False, copy: Any = True) -> FloatDtype:
    """What a pickle's ``numpy.dtype(code, align, copy)`` makes here: a :class:`FloatDtype` of a
    code in :data:`FLOAT_CODES`, unaligned (numpy pickles ``align`` 0 and ``copy`` 1)."""
    if not isinstance(code, str) or code not in FLOAT_CODES or align not in (0, False) or copy not in (0, 1):
        raise Refused(f"numpy.dtype({brief(code)}, {brief(align)}, {brief(copy)}); expected the dtype of a float "
                      f"scalar: {' or '.join(map(repr, FLOAT_CODES))}, unaligned")
    return FloatDtype(code)


def numpy_scalar(dtype: Any, data: Any = None) -> float:
    """What a pickle's ``numpy.core.multiarray.scalar(dtype, data)`` makes here: the float that
    ``data`` (exactly the dtype's item size) encodes, as a plain Python float (see the module)."""
    if not isinstance(dtype, FloatDtype) or dtype.byteorder is None:
        raise Refused(f"numpy scalar of {brief(dtype)}; expected one of a float dtype "
                      f"({' or '.join(map(repr, FLOAT_CODES))}) set by BUILD")
    fmt, size = FLOAT_CODES[dtype.code]
    if not isinstance(data, bytes) or len(data) != size:
        raise Refused(f"numpy {dtype.code} scalar of {brief(data)}; expected {size} bytes")
    return struct.unpack(dtype.byteorder + fmt, data)[0]


# (module, name) -> the object a pickle may name: the two NumPy globals of a float scalar (both
# spellings of the module: NumPy 1 pickles numpy.core, NumPy 2 numpy._core), each mapped to this
# module's own function; the scan and find_class consult it.
ALLOWED_GLOBALS: Mapping[tuple[str, str], Any] = {
    ("numpy.core.multiarray", "scalar"): numpy_scalar,
    ("numpy._core.multiarray", "scalar"): numpy_scalar,
    ("numpy", "dtype"): numpy_dtype,
}

_SCALARS = frozenset({
    "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT", "NONE", "NEWTRUE",
    "NEWFALSE", "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE",
    "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8"})
_EMPTY = frozenset({"EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET", "EMPTY_TUPLE"})
_FROM_MARK = frozenset({"LIST", "TUPLE", "DICT", "FROZENSET"})              # a new container of the items
_FILL_FROM_MARK = frozenset({"APPENDS", "SETITEMS", "ADDITEMS"})           # the items go into the one below
_TUPLE_N = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}
_FILL_N = {"APPEND": 1, "SETITEM": 2}
_PUT = frozenset({"PUT", "BINPUT", "LONG_BINPUT"})
_GET = frozenset({"GET", "BINGET", "LONG_BINGET"})
_FRAMING = frozenset({"PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP", "MEMOIZE"})
# Every opcode that builds plain data. The others (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
# NEWOBJ, NEWOBJ_EX, PERSID, BINPERSID, EXT1/2/4, BYTEARRAY8, NEXT_BUFFER, READONLY_BUFFER) import,
# call or set attributes, or are out-of-band buffers; of them only _NUMPY's pass, and only on the
# NumPy float scalars of ALLOWED_GLOBALS (_Stack.numpy).
DATA_OPCODES = _SCALARS | _EMPTY | _FROM_MARK | _FILL_FROM_MARK | set(_TUPLE_N) | set(_FILL_N) | _PUT | _GET | _FRAMING
_NUMPY = frozenset({"GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD"})
_CONTAINERS = (dict, list, tuple, set, frozenset)
_PLAIN = (str, bytes, int, float, type(None))     # the leaves a result may hold (bool is an int)


class DataUnpickler(pickle.Unpickler):
    """An unpickler that builds only the protocol's own containers and scalars (:data:`ALLOWED`)."""

    def __init__(self, file, path: Path | str):
        super().__init__(file)
        self.path = path

    def find_class(self, module: str, name: str):
        if (module, name) in ALLOWED_GLOBALS:
            return ALLOWED_GLOBALS[(module, name)]
        raise DatasetError(_asks_for(self.path, f"{module}.{name}"))

    def persistent_load(self, pid: Any):
        raise DatasetError(f"{self.path}: the pickle refers to a persistent object ({brief(pid)}); a data pickle may "
                           f"hold only {ALLOWED} — refused, nothing was executed")


def _asks_for(path, what: str) -> str:
    return (f"{path}: the pickle asks for {what}, which would run code or build an object; a data pickle may hold "
            f"only {ALLOWED} — refused, nothing was executed")


def brief(value: Any, width: int = 60) -> str:
    """A short, always computable description of ``value`` for a message: the repr of a string or a
    small number (cut to ``width``), else the type (repr of a deep or huge object can fail)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    if value is None or isinstance(value, (str, bytes, int, float)):
        text = repr(value)
        return text if len(text) <= width else text[:width - 3] + "..."
    return f"a {type(value).__name__}"


def load_data_pickle(path: Path | str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The plain data in a pickle file. A file over ``max_bytes``, one that is not a complete pickle,
    asks for anything but plain data, or nests containers deeper than ``max_depth`` raises
    :class:`~metaeval.data.contract.DatasetError` naming it; no input raises anything else."""
    data = _read(path, max_bytes)
    scan_pickle(data, path, max_depth)
    try:
        result = DataUnpickler(io.BytesIO(data), path).load()
    except DatasetError:
        raise
    except Refused as e:
        raise DatasetError(f"{path}: the pickle asks for a {e}; a data pickle may hold only {ALLOWED} — refused"
                           ) from None
    except Exception as e:  # noqa: BLE001 - any failure of the C unpickler on a hostile file is the file's fault
        raise DatasetError(f"{path}: not a complete pickle ({type(e).__name__}: {e}); expected a data pickle "
                           f"holding only {ALLOWED}") from None
    check_shape(result, path, max_depth)
    return result


def _read(path: Path | str, max_bytes: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > max_bytes:
                raise DatasetError(f"{path}: {size:,} bytes; a data pickle may have at most {max_bytes:,} (the "
                                   "largest release, REALSumm's, has 1.5 MB) — refused unread")
            data = fh.read(max_bytes + 1)
    except OSError as e:
        raise DatasetError(f"{path}: cannot be read ({e.strerror})") from None
    if len(data) > max_bytes:   # grew while being read
        raise DatasetError(f"{path}: more than {max_bytes:,} bytes; refused")
    return data


# ----------------------------------------------------------------------------- the scan

def scan_pickle(data: bytes, path: Path | str, max_depth: int = MAX_DEPTH) -> None:
    """Check a pickle's opcode stream without executing it (see the module's step 2): allowed
    opcodes, lengths within the file, containers and MARKs nested at most ``max_depth``."""
    sim = _Stack(path, max_depth)
    try:
        for op, arg, pos in pickletools.genops(data):
            sim.step(op.name, arg, pos, len(data))
    except DatasetError:
        raise
    except Exception as e:  # noqa: BLE001 - genops' ValueError (bad opcode, short data) or a stack underflow
        raise DatasetError(f"{path}: not a complete pickle ({type(e).__name__}: {e}); expected a data pickle "
                           f"holding only {ALLOWED}") from None


class _Stack:
    """The unpickler's stack, MARKs and memo, with each object replaced by its nesting depth (1 for
    an empty container) or, for a scalar, by :func:`_scalar`'s mark."""

    def __init__(self, path: Path | str, max_depth: int):
        self.path, self.max_depth = path, max_depth
        self.items: list[Any] = []
        self.marks: list[int] = []
        self.memo: dict[int, Any] = {}
        self.containers = 0

    def step(self, name: str, arg: Any, pos: int, size: int) -> None:
        if name in _NUMPY:
            self.numpy(name, arg, pos)
        elif name not in DATA_OPCODES:
            self.refuse(name, arg, pos)
        elif name == "FRAME" and arg > size - pos - 9:      # the opcode and its 8-byte length come first
            raise DatasetError(f"{self.path}: not a complete pickle (byte {pos}: a FRAME of {arg:,} bytes, but only "
                               f"{size - pos - 9:,} follow); expected a data pickle holding only {ALLOWED}")
        elif name in _SCALARS:
            self.items.append(_scalar(arg))
        elif name in _EMPTY:
            self.count_container(pos)
            self.items.append(1)
        elif name in _FROM_MARK:
            self.count_container(pos)
            items = self.pop_mark()
            self.check_keys(items[0::2] if name == "DICT" else items if name == "FROZENSET" else (), pos)
            self.items.append(self.nest(items, pos))
        elif name in _TUPLE_N:
            self.count_container(pos)
            self.items.append(self.nest(self.pop(_TUPLE_N[name]), pos))
        elif name in _FILL_FROM_MARK or name in _FILL_N:
            items = self.pop_mark() if name in _FILL_FROM_MARK else self.pop(_FILL_N[name])
            self.check_keys(items if name == "ADDITEMS" else items[0::2] if name != "APPENDS" and name != "APPEND"
                            else (), pos)
            self.items[-1] = max(_depth(self.items[-1]), self.nest(items, pos))
        else:
            self.framing(name, arg, pos)

    def count_container(self, pos: int) -> None:
        self.containers += 1
        if self.containers > MAX_CONTAINERS:
            raise DatasetError(f"{self.path}: byte {pos}: more than {MAX_CONTAINERS:,} containers; the releases "
                               "build a few thousand — refused unbuilt")

    def check_keys(self, keys, pos: int) -> None:
        """Dict keys and set members must be strings, bytes or numbers (integers of at most 64
        bits): a container or a huge integer as a key is what a hostile file uses, to nest a key
        deep enough to crash the hash, or to make many keys collide (the hash of integers and
        tuples can be forced equal, so that building the dict takes quadratic time)."""
        for key in keys:
            if not isinstance(key, str) and key != 0:
                what = "an integer over 64 bits" if key == _BIG_INT else "a container"
                raise DatasetError(f"{self.path}: byte {pos}: a dict key or set member is {what}; a data pickle's keys "
                                   "are strings, bytes or numbers (integers of at most 64 bits) — refused unbuilt")

    def framing(self, name: str, arg: Any, pos: int) -> None:
        if name == "MARK":
            self.marks.append(len(self.items))
            if len(self.marks) > self.max_depth:
                raise DatasetError(f"{self.path}: byte {pos}: more than {self.max_depth} MARKs open; a data pickle "
                                   f"nests at most {self.max_depth} deep")
        elif name == "POP":
            if self.marks and self.marks[-1] == len(self.items):
                self.marks.pop()
            else:
                self.pop(1)
        elif name == "POP_MARK":
            self.pop_mark()
        elif name == "DUP":
            self.items.append(self.items[-1])
        elif name in _PUT or name == "MEMOIZE":
            index = len(self.memo) if name == "MEMOIZE" else arg
            if index > len(self.memo):      # the unpickler's memo is an array as long as the largest index
                raise DatasetError(f"{self.path}: byte {pos}: memo index {index:,} out of sequence (picklers number "
                                   f"their memo 0, 1, 2, ...; {len(self.memo):,} so far) — refused unbuilt")
            self.memo[index] = self.items[-1]
        elif name in _GET:
            self.items.append(self.memo[arg])

    def pop(self, n: int) -> list[Any]:
        if len(self.items) - (self.marks[-1] if self.marks else 0) < n:
            raise ValueError("stack underflow")
        items = self.items[-n:]
        del self.items[-n:]
        return items

    def pop_mark(self) -> list[Any]:
        start = self.marks.pop()
        items = self.items[start:]
        del self.items[start:]
        return items

    def nest(self, items: list[Any], pos: int) -> int:
        depth = 1 + max(map(_depth, items), default=0)
        if depth > self.max_depth:
            raise DatasetError(f"{self.path}: byte {pos}: containers nested more than {self.max_depth} deep; a data "
                               "pickle of this project nests a few levels — refused unbuilt")
        return depth

    def numpy(self, name: str, arg: Any, pos: int) -> None:
        """The opcodes of a NumPy float scalar: a global of :data:`ALLOWED_GLOBALS` (pushed as its
        :class:`_Global`), REDUCE whose callable is one (its result: a :data:`_DTYPE` mark for
        ``numpy.dtype``, a scalar for ``scalar``), BUILD on a :data:`_DTYPE` mark; else refused."""
        if name == "GLOBAL":
            module, _, attr = str(arg).partition(" ")
            if (module, attr) not in ALLOWED_GLOBALS:
                raise DatasetError(_asks_for(self.path, f"{module}.{attr}"))
            self.items.append(_Global((module, attr)))
        elif name == "STACK_GLOBAL":
            module, attr = self.pop(2)
            if not (isinstance(module, str) and isinstance(attr, str)) or (module, attr) not in ALLOWED_GLOBALS:
                what = f"{module}.{attr}" if isinstance(module, str) and isinstance(attr, str) else "a computed name"
                raise DatasetError(_asks_for(self.path, what))
            self.items.append(_Global((module, attr)))
        elif name == "REDUCE":
            target, _args = self.pop(2)
            if not isinstance(target, _Global):
                self.refuse(name, arg, pos)
            self.items.append(_DTYPE if ALLOWED_GLOBALS[target] is numpy_dtype else 0)
        else:   # BUILD: the state is set on the object below it, which must be a dtype made here
            self.pop(1)
            if not self.items or self.items[-1] is not _DTYPE:
                self.refuse(name, arg, pos)

    def refuse(self, name: str, arg: Any, pos: int) -> None:
        raise DatasetError(f"{self.path}: byte {pos}: opcode {name}, which imports, calls or changes an object; a "
                           f"data pickle may hold only {ALLOWED} — refused, nothing was executed")


_BIG_INT = -1     # the simulated stack's mark of an integer over 64 bits (not a key)


class _Global(tuple):
    """A global of :data:`ALLOWED_GLOBALS` on the simulated stack: (module, name)."""


_DTYPE = object()   # the simulated stack's mark of what REDUCE(numpy.dtype, ...) made (BUILD's only target)


def _scalar(arg: Any) -> Any:
    """A scalar on the simulated stack: a short string as itself (to name a STACK_GLOBAL), an
    integer over 64 bits as :data:`_BIG_INT`, anything else as 0."""
    if isinstance(arg, str):
        return arg if len(arg) < 256 else 0
    if isinstance(arg, int) and not isinstance(arg, bool) and not -2**63 <= arg < 2**64:
        return _BIG_INT
    return 0


def _depth(item: Any) -> int:
    return item if isinstance(item, int) and item > 0 else 0


# ----------------------------------------------------------------------------- the result

def _children(node: Any) -> Iterator[Any]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield value
    else:
        yield from node


def check_shape(root: Any, path: Path | str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a structure nested deeper than ``max_depth`` or containing itself; an iterative
    depth-first walk (no recursion, each container visited once, its height remembered), so it is
    safe on any input."""
    if not isinstance(root, _CONTAINERS):
        _check_leaf(root, path)
        return
    height: dict[int, int] = {}
    frames = [[root, _children(root), 0]]
    open_ids = {id(root)}
    while frames:
        frame = frames[-1]
        for kid in frame[1]:
            if not isinstance(kid, _CONTAINERS):
                _check_leaf(kid, path)
                continue
            if id(kid) in open_ids:
                raise DatasetError(f"{path}: the pickle's data contains itself (a {type(kid).__name__} inside "
                                   "itself); a data pickle must be a tree of plain data")
            if id(kid) in height:
                frame[2] = max(frame[2], height[id(kid)])
            else:
                frames.append([kid, _children(kid), 0])
                open_ids.add(id(kid))
                break
        else:
            frames.pop()
            open_ids.discard(id(frame[0]))
            height[id(frame[0])] = frame[2] + 1
            if frames:
                frames[-1][2] = max(frames[-1][2], frame[2] + 1)
        if len(frames) + (frames[-1][2] if frames else 0) > max_depth:
            raise DatasetError(f"{path}: containers nested more than {max_depth} deep; a data pickle of this project "
                               "nests a few levels")


def _check_leaf(value: Any, path: Path | str) -> None:
    """Plain data only: a hostile file can leave a dtype or one of the NumPy functions (the allowed
    globals) in the data itself, not inside a scalar."""
    if not isinstance(value, _PLAIN):
        raise DatasetError(f"{path}: the pickle's data holds {brief(value)}; a data pickle may hold only {ALLOWED} "
                           "— refused")
