"""Shared fixtures: the repository, the real data sets in ../shared/data (skipped when absent),
and a small valid canonical data set written into a temporary folder."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_dataset(name: str) -> Path:
    """A real data set from ../shared/data, or skip the test cleanly when it is not there."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


TINY_YAML = """\
name: tiny
description: a tiny test data set
source: tests
license: CC0
citation: none
dimensions:
  relevance: {min: 1, max: 5}
  fluency: {min: 1, max: 5}
human:
  coverage: [relevance]
  linguistic_quality: [fluency]
"""


def tiny_records() -> list[dict]:
    return [
        {"topic": "T1", "summarizer": "A", "kind": "human", "sentences": ["The cat sat on the mat .", "It purred ."]},
        {"topic": "T1", "summarizer": "B", "kind": "human", "text": "A cat was sitting on a mat .\nIt was happy ."},
        {"topic": "T1", "summarizer": "1", "kind": "system", "sentences": ["The cat sat .", "The mat was red ."]},
        {"topic": "T1", "summarizer": "2", "kind": "system", "sentences": []},
        {"topic": "T2", "summarizer": "A", "kind": "human", "sentences": ["Dogs bark at night ."]},
        {"topic": "T2", "summarizer": "1", "kind": "system", "sentences": ["Dogs bark ."]},
        {"topic": "T2", "summarizer": "2", "kind": "system", "sentences": ["Night falls over the town ."]},
    ]


TINY_JUDGMENTS = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t3\t4\nT1\t2\t1\t\nT2\t1\t4.5\t5\nT2\t2\t2\t3\nT1\tB\t5\t5\n"


def write_tiny(folder: Path, records: list[dict] | None = None, judgments: str | None = None,
               yaml_text: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dataset.yaml").write_text(TINY_YAML if yaml_text is None else yaml_text)
    recs = tiny_records() if records is None else records
    (folder / "summaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (folder / "judgments.tsv").write_text(TINY_JUDGMENTS if judgments is None else judgments)
    return folder


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_tiny(tmp_path / "tiny")
