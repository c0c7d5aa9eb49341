"""Access to reference implementations for tests: skip cleanly where one is missing, except in CI
(METAEVAL_REQUIRE_REFERENCE=1), where a missing reference is a failure."""
from __future__ import annotations

import os

import pytest


def require(reason: str | None, what: str) -> None:
    if reason is None:
        return
    if os.environ.get("METAEVAL_REQUIRE_REFERENCE") == "1":
        pytest.fail(f"{what} is required in CI but unavailable: {reason}")
    pytest.skip(f"{what} unavailable: {reason}")
