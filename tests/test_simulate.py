"""The embedded default benchmark: deterministic, and the latent truth is recoverable."""
import hashlib

import numpy as np
import pytest

from metaeval.data.datasets import load_dataset, folder_paths, write_dataset
from conftest import simulation
from metaeval.data.simulate import simulate


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_same_seed_byte_identical(tmp_path):
    write_dataset(simulate(simulation()), folder_paths(tmp_path / "a"))
    write_dataset(simulate(simulation()), folder_paths(tmp_path / "b"))
    write_dataset(simulate(simulation(seed=7)), folder_paths(tmp_path / "c"))
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert _digest(tmp_path / "a")["summaries.jsonl"] != _digest(tmp_path / "c")["summaries.jsonl"]


def test_shape_and_validity(tmp_path):
    write_dataset(simulate(simulation()), folder_paths(tmp_path / "d"))
    with pytest.warns(UserWarning, match="empty"):
        ds = load_dataset(tmp_path / "d")
    assert len(ds.topics) == 40
    assert len({s.summarizer for s in ds.summaries if s.kind == "system"}) == 16
    assert all(len(ds.references(t)) == 4 for t in ds.topics)
    assert sum(1 for s in ds.judged() if s.kind == "human") == 160  # humans are judged too
    assert ds.documents and len(ds.documents["D001"]) == 3


def test_judgments_follow_latent_skill():
    ds = simulate(simulation())
    truth = ds.meta["simulation"]["systems"]
    systems = sorted(truth, key=int)
    cov = [np.mean([ds.judgments[(t, s)]["coverage"] for t in ds.topics]) for s in systems]
    lq = [np.nanmean([ds.judgments[(t, s)]["grammaticality"] for t in ds.topics]) for s in systems]
    skill = [truth[s]["content_skill"] for s in systems]
    fluency = [truth[s]["fluency"] for s in systems]
    assert np.corrcoef(cov, skill)[0, 1] > 0.9
    assert np.corrcoef(lq, fluency)[0, 1] > 0.9
    humans = np.mean([ds.judgments[(t, h)]["coverage"] for t in ds.topics for h in "ABCD"])
    assert humans > max(cov)  # human summaries carry more content than any system
