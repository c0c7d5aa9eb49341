"""Logging for workflow scripts: everything a job says goes to its log file (and stderr)."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Iterator

log = logging.getLogger("metaeval")


class CheckError(ValueError):
    """A job's own check refused its input or its configuration: the message names the file, the
    line or the key and says what was expected, which is all the user needs; a job logs it and ends
    without a traceback (:func:`job_log`). The data set contract's, the config's and the scoring's
    errors are such checks."""


@contextlib.contextmanager
def job_log(path: str | Path | None, job: str) -> Iterator[logging.Logger]:
    """Send the ``metaeval`` logger and Python warnings to ``path``; log the job's start, end and any
    error (with its message first, so the reason is the first thing a user reads). A
    :class:`CheckError` ends the job (exit status 1) without a traceback: its message is the report;
    any other error is re-raised with its traceback, for a bug's report."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, mode="w", encoding="utf-8"))
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S")
    for h in handlers:
        h.setFormatter(fmt)
        log.addHandler(h)
    log.setLevel(logging.INFO)
    logging.captureWarnings(True)
    wlog = logging.getLogger("py.warnings")
    for h in handlers:
        wlog.addHandler(h)
    start = time.perf_counter()
    log.info("%s: started", job)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            yield log
    except CheckError as e:
        log.error("%s failed: %s", job, reason(e))
        raise SystemExit(1) from None
    except Exception as e:  # noqa: BLE001 - logged, then re-raised for Snakemake
        log.error("%s failed: %s", job, reason(e))
        raise
    else:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        log.info("%s: done in %.2f s, peak memory %.0f MB", job, time.perf_counter() - start, peak)
    finally:
        for h in handlers:
            log.removeHandler(h)
            wlog.removeHandler(h)
            h.close()


def reason(error: BaseException) -> str:
    """An error's message for the log; one that has none (a ``MemoryError`` usually) is named by
    what happened."""
    if isinstance(error, MemoryError):
        return (f"out of memory (MemoryError{': ' + str(error) if str(error) else ''}): the job needed more memory "
                "than its process may use; raise the limit (ulimit -v, or the memory the profile gives the job) or "
                "make the job smaller")
    return str(error) or f"{type(error).__name__} (no message)"
