"""Read a data pickle without running code from it.

``pickle.load`` runs whatever the file names (any importable callable, with any arguments), so a
pickle from the web is a program, not data. The release files this project reads (BARTScore's
unified ``data.pkl``) hold only dicts, lists, strings and numbers, which the pickle protocol builds
with its own opcodes; only a *global* (an import of ``module.name``) or a persistent id can make it
call code. :class:`DataUnpickler` refuses both, so unpickling either yields plain data or stops
before anything is called (``pickle.Unpickler.find_class`` is the documented hook: "Restricting
Globals" in the Python documentation).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from .contract import DatasetError

ALLOWED = "dicts, lists, tuples, sets, strings, bytes, numbers, booleans and None"


class DataUnpickler(pickle.Unpickler):
    """An unpickler that builds only the protocol's own containers and scalars (:data:`ALLOWED`)."""

    def __init__(self, file, path: Path | str):
        super().__init__(file)
        self.path = path

    def find_class(self, module: str, name: str):
        raise DatasetError(f"{self.path}: the pickle asks for {module}.{name}, which would run code or build an "
                           f"object; a data pickle may hold only {ALLOWED} — refused, nothing was executed")

    def persistent_load(self, pid: Any):
        raise DatasetError(f"{self.path}: the pickle refers to a persistent object ({pid!r}); a data pickle may hold "
                           f"only {ALLOWED} — refused, nothing was executed")


def load_data_pickle(path: Path | str) -> Any:
    """The plain data in a pickle file; a file that is not a complete pickle, or that asks for
    anything but plain data, raises :class:`~metaeval.data.contract.DatasetError` naming it."""
    try:
        with open(path, "rb") as fh:
            return DataUnpickler(fh, path).load()
    except DatasetError:
        raise
    except OSError as e:
        raise DatasetError(f"{path}: cannot be read ({e.strerror})") from None
    except (pickle.UnpicklingError, EOFError, ValueError, IndexError, KeyError, TypeError, MemoryError) as e:
        # a truncated or corrupt file: the unpickler's stack runs out or an opcode is malformed
        raise DatasetError(f"{path}: not a complete pickle ({type(e).__name__}: {e}); expected a data pickle "
                           f"holding only {ALLOWED}") from None
