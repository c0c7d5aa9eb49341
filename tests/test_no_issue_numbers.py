"""Readers cannot follow an issue tracker's numbers: no file of the repository (code, comments,
docstrings, docs, config, tests, benchmarks) names an issue by its number; a feature is named
instead. The default data set's report is checked in tests/test_golden.py."""
from __future__ import annotations

import re
import subprocess

import pytest

from conftest import REPO

# the word, then a number (after a space, '#', '-' or '_', or none)
ISSUE_NUMBER = re.compile(r"\bissues?[\s#_-]*[0-9]+", re.IGNORECASE)


def repository_files() -> list[str]:
    """The repository's text files (git's, so that results and caches are not read)."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in out.decode().split("\0") if name and (REPO / name).is_file()]


def issue_numbers(text: str) -> list[str]:
    return [m[0] for m in ISSUE_NUMBER.finditer(text)]


def test_the_pattern_finds_what_it_must_and_nothing_else():
    word, Word = "issue", "Issue"     # written apart, so that this file does not hold what it finds
    assert issue_numbers(f"as {word} 22 says; {Word} #3, {word}s 22 and 23, {word}-21, {word}29") == [
        f"{word} 22", f"{Word} #3", f"{word}s 22", f"{word}-21", f"{word}29"]
    assert issue_numbers("REALSumm's issue tracker; the speed issue; tissue 4") == []


def test_no_file_names_an_issue_by_its_number():
    found = []
    for name in repository_files():
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue                 # a binary file (figures)
        for i, line in enumerate(text.splitlines(), 1):
            if issue_numbers(line):
                found.append(f"{name}:{i}: {line.strip()[:120]}")
    assert not found, "issue numbers (name the feature instead):\n" + "\n".join(found)
