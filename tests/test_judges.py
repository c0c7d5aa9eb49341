"""LLM judges: the declared parse rules against LLM_summeval's own extraction code (their utils.py,
imported from the release's copy), the statistics against the authors' scripts (calc_meta_corr.py,
calc_h2h_pairs.py, run on files built from the release), scipy and values by hand, the alternative
annotator test against its authors' code (its notebook, from a fetched copy of their repository when
present) and by hand, and a user's judge's bad input."""
from __future__ import annotations

import ast
import collections
import contextlib
import io
import json
import math
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr, ttest_1samp

from conftest import shared_dataset
from metaeval.data import catalog
from metaeval.data import judges as jd
from metaeval.data.contract import DatasetError
from metaeval.stats import judges as sj

SYSTEMS = ["M8", "M9", "M10", "M11", "M12", "M13", "M14", "M15", "M17", "M20", "M22", "M23"]
DIMS = ["coherence", "consistency", "fluency", "relevance"]
JUDGES = ["gpt-3.5-turbo-0301", "gpt-4-0314", "llama-2-7b-chat-hf", "llama-2-13b-chat-hf", "llama-2-70b-chat-hf"]
ALTTEST = Path("/work/.mirror/nitaytech+AltTest/repo")


# ----------------------------------------------------------------------------- the authors' code

@pytest.fixture(scope="module")
def release() -> Path:
    return shared_dataset("raw/llm_summeval")


@pytest.fixture(scope="module")
def authors(release):
    """The authors' modules, imported from the release's copy, with tabulate and tqdm (which their
    scripts import only to print) replaced by stand-ins that keep what would be printed."""
    printed = []
    sys.modules.setdefault("tabulate", types.SimpleNamespace(tabulate=lambda rows: printed.append(rows) or ""))
    sys.modules.setdefault("tqdm", types.SimpleNamespace(tqdm=lambda x, **k: x))
    sys.path.insert(0, str(release))
    try:
        import calc_h2h_pairs
        import calc_meta_corr
        import utils
    finally:
        sys.path.remove(str(release))
    # the scripts bound tabulate at import: a real one imported before them is replaced here
    keep = lambda rows: printed.append(rows) or ""  # noqa: E731
    calc_meta_corr.tabulate = calc_h2h_pairs.tabulate = keep
    return types.SimpleNamespace(utils=utils, meta=calc_meta_corr, h2h=calc_h2h_pairs, printed=printed,
                                 extract=_authors_extraction(release, utils))


def _authors_extraction(release: Path, utils) -> dict:
    """method -> the utils.py function the authors' extract_model_scores.py parses it with, and its
    --eval_type number: read from their script's own postfix_dict and utils_dict (pairing ``_altrts``
    with extract_score_rts, ``_altmcq`` with extract_score_mcq), not restated here."""
    tree = ast.parse((release / "extract_model_scores.py").read_text())
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id in ("postfix_dict", "utils_dict"):
            found[node.targets[0].id] = {ast.literal_eval(k): v for k, v in zip(node.value.keys, node.value.values)}
    postfix, functions = found["postfix_dict"], found["utils_dict"]
    return {ast.literal_eval(postfix[i]).lstrip("_"): (getattr(utils, functions[i].id), i) for i in postfix}


# the catalog's declaration: method -> our parse rule (LLM_summeval's five methods)
METHODS = catalog.benchmarks()["llm_summeval"].judges["methods"]


def _expert_means(raw: Path) -> dict[str, dict[str, dict[str, float]]]:
    """topic -> system -> dimension -> the three experts' mean, from SummEval's released annotations."""
    out: dict = {}
    for system in SYSTEMS:
        for line in (raw / "summeval-official" / f"{system}_outputs_annotations.jsonl").read_text().splitlines():
            rec = json.loads(line)
            out.setdefault(rec["id"], {})[system] = {
                d: float(np.mean([a[d] for a in rec["expert_annotations"]])) for d in DIMS}
    return out


def _authors_scores(authors, release: Path, judge: str, method: str) -> dict:
    """extract_model_scores.py's loop, restated: every file parsed by the authors' function, a later
    line of an article replacing an earlier one."""
    fn = authors.extract[method][0]
    out: dict = {}
    for system in SYSTEMS:
        for dim in DIMS:
            path = release / "eval_model_generations" / judge / f"eval_{system}_generations" / f"{dim}_{method}.txt"
            if not path.exists():
                continue
            for line in path.read_text().splitlines():
                rec = json.loads(line)
                with contextlib.redirect_stdout(io.StringIO()):
                    out.setdefault(rec["id"], {}).setdefault(system, {})[f"{dim}_{method}"] = fn(rec["resp"])
    return out


@pytest.fixture(scope="module")
def ours(release):
    spec = jd.JudgeSpec("summeval", "llm_summeval", root=str(release), judges=tuple(JUDGES),
                        methods=tuple(sorted(METHODS.items())), pairwise_rule="choice")
    return jd.scores(jd.read_judges([spec], jd.builtin_rules()))


# ----------------------------------------------------------------------------- parse rules

def _authors_parse(authors, path: Path, method: str):
    """Each line of a response file: (article id, response, the authors' value, None where their
    function returns -1 (rts) or raises (mcq, stareval))."""
    fn = authors.extract[method][0]
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                theirs = fn(rec["resp"])
        except (KeyError, AssertionError):
            theirs = None
        yield rec["id"], rec["resp"], None if theirs == -1 else theirs


def _response_files(release: Path):
    """(judge, system, dimension, method, path) of every response file of a method the catalog
    declares (the ``_old`` files of gpt-4 are not among them)."""
    for path in sorted((release / "eval_model_generations").glob("*/*/*.txt")):
        dim, _, method = path.stem.partition("_")
        if method in METHODS:
            judge, system_dir = path.parts[-3], path.parts[-2]
            yield judge, system_dir[len("eval_"):-len("_generations")], dim, method, path


def test_rules_read_every_response_as_the_authors_functions(authors, release):
    """Every response of the release: the rule the catalog declares for its method gives the value
    of the function the authors' extract_model_scores.py uses for that method, and a parse failure
    exactly where theirs returns -1 (rts, altrts) or raises (mcq, altmcq, stareval). The catalog
    declares the authors' five methods: rts, mcq, stareval, altrts, altmcq."""
    assert set(METHODS) == set(authors.extract) == {"rts", "mcq", "stareval", "altrts", "altmcq"}
    rules = jd.builtin_rules()
    checked = failures = 0
    by_method: collections.Counter = collections.Counter()
    for _, _, _, method, path in _response_files(release):
        for _, resp, theirs in _authors_parse(authors, path, method):
            assert rules[METHODS[method]].read(resp) == theirs, (path, resp)
            checked += 1
            failures += theirs is None
            by_method[method] += 1
    # 12 systems x 4 dimensions x 100 articles per judge x method, and the files' repeated articles
    assert by_method == {"rts": 24000, "mcq": 5100, "stareval": 4800, "altrts": 4800, "altmcq": 4812}
    assert checked == 43512 and failures == 1


def test_choice_rule_is_extract_choice(authors, release):
    rules = jd.builtin_rules()
    n = 0
    for path in sorted((release / "comp_res" / "gpt-3.5-turbo-0301").glob("*.result")):
        toggle = path.stem.endswith("_toggle")
        for line in path.read_text().splitlines():
            resp = json.loads(line)["resp"]
            with contextlib.redirect_stdout(io.StringIO()):
                theirs = authors.utils.extract_choice(resp, toggle)
            position = rules["choice"].read(resp)
            mine = {"first": 1, "second": 2, "tie": 0}[position]
            mine = 3 - mine if toggle and mine else mine
            assert mine == theirs, (path, resp)
            n += 1
    assert n == 8800


def test_parse_failures_and_duplicates_of_the_release(authors, release, ours):
    """Responses, parse failures and items judged more than once, per judge x method x dimension,
    equal those counted with the authors' functions on the release's files (a failure where theirs
    returns -1 or raises; an article a file holds more than once). Among them the release's quirks:
    one llama-2-70b coherence response no rule reads, three gpt-3.5 mcq consistency files that judge
    each of their 100 articles twice, and two altmcq relevance files that judge 12 articles twice."""
    expected: dict = {}
    for judge, system, dim, method, path in _response_files(release):
        ids = collections.Counter()
        c = expected.setdefault((jd.metric_name(judge, method), dim), [0, 0, 0])
        for topic, _, theirs in _authors_parse(authors, path, method):
            ids[topic] += 1
            c[0] += 1
            c[1] += theirs is None
        c[2] += sum(n > 1 for n in ids.values())
    counts = {(c.judge, c.dimension): [c.responses, c.failures, c.duplicates] for c in ours.counts
              if not c.judge.endswith(":h2h")}
    assert counts == expected
    assert len(counts) == 9 * 4                    # 9 judge x method pairs x 4 dimensions
    failed = {k: c[1] for k, c in counts.items() if c[1]}
    assert failed == {("llama-2-70b-chat-hf:rts", "coherence"): 1}
    dup = {k: c[2] for k, c in counts.items() if c[2]}
    assert dup == {("gpt-3.5-turbo-0301:mcq", "consistency"): 300, ("gpt-3.5-turbo-0301:altmcq", "relevance"): 12}
    assert counts[("gpt-3.5-turbo-0301:mcq", "consistency")][0] == 1500
    examples = {(c.judge, c.dimension): c.examples for c in ours.counts}
    assert "M17" in examples[("llama-2-70b-chat-hf:rts", "coherence")][0]


# ----------------------------------------------------------------------------- meta-correlation

def _grid(items, metric_judge, dim, topics):
    by = {(i.topic, i.summarizer): i.score for i in items if i.judge == metric_judge and i.dimension == dim}
    return {s: [by.get((t, s), math.nan) for t in topics] for s in SYSTEMS}


@pytest.mark.parametrize("judge,method", [(j, "rts") for j in JUDGES] +
                         [("gpt-3.5-turbo-0301", m) for m in ("mcq", "stareval", "altrts", "altmcq")])
def test_meta_correlation_equals_calc_meta_corr(authors, release, ours, tmp_path, monkeypatch, judge, method):
    """calc_meta_corr.py itself, on the summeval_<judge>.json its extract_model_scores.py would write
    (the authors' parsed scores, the experts' means): its printed meta-correlations equal ours to its
    three decimals, and each per-system correlation equals scipy's on the same summaries."""
    raw = release.parent
    experts = _expert_means(raw)
    scores = _authors_scores(authors, release, judge, method)
    data = {t: {"sys_summs": {s: {"scores": {**experts[t][s], **scores[t][s]}} for s in SYSTEMS}} for t in experts}
    (tmp_path / f"summeval_{judge}.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(authors.meta, "auto_metrics", [])
    monkeypatch.setattr(sys, "argv", ["calc_meta_corr.py", "--eval_model", judge, "--eval_type",
                                      str(authors.extract[method][1])])
    authors.printed.clear()
    with contextlib.redirect_stdout(io.StringIO()):
        authors.meta.main()
    table = authors.printed[0]
    theirs = dict(zip(table[0][1:], table[1][1:]))
    topics = sorted(experts)
    name = jd.metric_name(judge, method)
    for dim in DIMS:
        grid = _grid(ours.items, name, dim, topics)
        corrs, quality = [], []
        for s in SYSTEMS:
            m = np.array(grid[s])
            h = np.array([experts[t][s][dim] for t in topics])
            ok = ~np.isnan(m)
            c = sj.per_system_correlations(h[ok], m[ok])
            for mine, ref in zip(c, (spearmanr(h[ok], m[ok])[0], pearsonr(h[ok], m[ok])[0], kendalltau(h[ok], m[ok])[0])):
                assert mine == pytest.approx(ref, abs=1e-12, nan_ok=True)
            corrs.append(c)
            quality.append(float(np.mean(h)))
        meta = sj.meta_correlation(corrs, quality)
        if judge == "llama-2-70b-chat-hf" and dim == "coherence":
            # the authors score the unreadable response -1; here it is left out: compare with scipy on ours
            continue
        assert round(meta.spearman, 3) == theirs[f"{dim}_S"]
        assert round(meta.pearson, 3) == theirs[f"{dim}_P"]
        assert round(meta.kendall, 3) == theirs[f"{dim}_K"]


def test_gpt4_meta_correlation_is_negative_on_every_dimension(release, ours):
    """The issue's headline, from the release: GPT-4's Spearman meta-correlation between -0.53 and -0.96."""
    experts = _expert_means(release.parent)
    topics = sorted(experts)
    for dim in DIMS:
        grid = _grid(ours.items, "gpt-4-0314:rts", dim, topics)
        corrs = [sj.per_system_correlations([experts[t][s][dim] for t in topics], grid[s]) for s in SYSTEMS]
        quality = [float(np.mean([experts[t][s][dim] for t in topics])) for s in SYSTEMS]
        assert -0.97 < sj.meta_correlation(corrs, quality).spearman < -0.52


def test_meta_correlation_by_hand():
    """Three systems whose per-system correlations fall as quality rises: Spearman -1; Pearson by hand."""
    corrs = [sj.Correlations(0.9, 0.8, 0.7), sj.Correlations(0.5, 0.6, 0.4), sj.Correlations(0.1, 0.1, 0.2)]
    m = sj.meta_correlation(corrs, [1.0, 2.0, 4.0])
    assert m.spearman == pytest.approx(-1.0)
    x, y = np.array([0.8, 0.6, 0.1]), np.array([1.0, 2.0, 4.0])
    r = ((x - x.mean()) * (y - y.mean())).sum() / math.sqrt(((x - x.mean()) ** 2).sum() * ((y - y.mean()) ** 2).sum())
    assert m.pearson == pytest.approx(r)
    # a system with a NaN correlation is left out of all three, as calc_meta_corr.py does
    m2 = sj.meta_correlation(corrs + [sj.Correlations(math.nan, 0.5, 0.5)], [1.0, 2.0, 4.0, 3.0])
    assert m2.systems == 3 and m2.pearson == pytest.approx(r)


# ----------------------------------------------------------------------------- head to head

def test_head_to_head_equals_calc_h2h_pairs(authors, release, ours, monkeypatch):
    """calc_h2h_pairs.py itself on the release: its printed judge/expert wins per pair and its pooled
    count of pairs right equal ours (experts' preference from SummEval's expert means, as the result
    files' human scores); and the pooled agreement and position consistency by hand."""
    monkeypatch.chdir(release)
    monkeypatch.setattr(sys, "argv", ["calc_h2h_pairs.py", "--eval_model", "gpt-3.5-turbo-0301"])
    authors.printed.clear()
    with contextlib.redirect_stdout(io.StringIO()):
        authors.h2h.main()
    table = authors.printed[0]
    header = table[0]
    experts = _expert_means(release.parent)
    by = {}
    for c in ours.choices:
        by.setdefault((c.dimension, f"{c.a}-{c.b}"), {}).setdefault(c.order, {})[c.topic] = c.choice
    for dim in ["coherence", "consistency", "fluency", "relevance"]:
        col = header.index(dim)
        correct = 0
        for row in table[1:-1]:
            pair = row[0]
            a, b = pair.split("-")
            d = by[(dim, pair)]
            topics = sorted(d["ab"])
            e = [sj.preference(experts[t][a][dim], experts[t][b][dim]) for t in topics]
            h = sj.head_to_head([d["ab"][t] for t in topics], [d["ba"][t] for t in topics], e)
            assert f"{h.judge_wins}/{h.expert_wins}" == row[col]
            correct += h.correct
        assert table[-1][col] == f"{correct}/{len(table) - 2}"


def test_pairwise_statistics_by_hand():
    judge_ab = ["a", "a", "b", "tie", "a"]
    judge_ba = ["a", "b", "b", "a", "tie"]
    experts = ["a", "b", "b", "tie", "a"]
    assert sj.agreement(judge_ab, experts) == (4, 5)
    assert sj.agreement(judge_ab, experts, ties=False) == (3, 4)   # item 4 left out (both tie)
    assert sj.position_consistency(judge_ab, judge_ba) == (2, 5)
    # ab: a = first; ba: a = second
    positions = ["first", "first", "second", "tie", "first", "second", "first", "first", "second", "tie"]
    assert sj.position_bias(positions) == (5, 8)
    # kappa by hand: po = 4/5; judge a 3/5, b 1/5, tie 1/5; experts a 2/5, b 2/5, tie 1/5
    pe = 3 / 5 * 2 / 5 + 1 / 5 * 2 / 5 + 1 / 5 * 1 / 5
    assert sj.cohen_kappa(judge_ab, experts) == pytest.approx((0.8 - pe) / (1 - pe))
    h = sj.head_to_head(judge_ab, judge_ba, experts)
    assert (h.judge_wins, h.expert_wins, h.correct) == ((3.5 + 2.5) / 2, 2.5, False)


def test_wilson_interval_by_hand():
    lo, hi = sj.wilson_interval(8, 10)
    z = 1.959963984540054
    p = 0.8
    c = (p + z * z / 20) / (1 + z * z / 10)
    h = z * math.sqrt(p * (1 - p) / 10 + z * z / 400) / (1 + z * z / 10)
    assert (lo, hi) == (pytest.approx(c - h), pytest.approx(c + h))


# ----------------------------------------------------------------------------- the alternative annotator test

def test_alt_test_by_hand_and_scipy():
    """Three annotators on 40 items; the judge copies annotator 0's score. Each annotator's indicators
    and p-value by hand (scipy's one-sample t-test), the BY step-up by hand."""
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, 40)
    humans = {f"e{k}": {f"i{i}": float(np.clip(truth[i] + rng.integers(-1, 2), 1, 5)) for i in range(40)}
              for k in range(3)}
    judge = {i: v for i, v in humans["e0"].items()}
    got = sj.alt_test(judge, humans, "neg_rmse", 0.2, 0.05, 2, 30)
    ps, aps = [], []
    for h in humans:
        wj, wh = [], []
        for i in humans[h]:
            others = [humans[o][i] for o in humans if o != h]
            rm = lambda x: -math.sqrt(np.mean([(x - o) ** 2 for o in others]))  # noqa: E731
            wj.append(rm(judge[i]) >= rm(humans[h][i]))
            wh.append(rm(humans[h][i]) >= rm(judge[i]))
        ps.append(ttest_1samp(np.array(wh, float) - np.array(wj, float), 0.2, alternative="less").pvalue)
        aps.append(np.mean(wj))
    assert got.p_values == pytest.approx(ps, nan_ok=True)
    assert got.advantage_probability == pytest.approx(np.mean(aps))
    hm = 1 + 1 / 2 + 1 / 3
    order = sorted(range(3), key=lambda k: ps[k])
    k = max([r + 1 for r in range(3) if ps[order[r]] <= (r + 1) / 3 * 0.05 / hm], default=0)
    assert got.winning_rate == k / 3


def test_by_procedure_by_hand():
    # m = 4, H = 25/12, thresholds i/4 * 0.05 / H = 0.006, 0.012, 0.018, 0.024
    assert sorted(sj.by_procedure([0.001, 0.5, 0.011, 0.02], 0.05)) == [0, 2]
    assert sj.by_procedure([0.2, 0.3], 0.05) == []


def _notebook_alt_test():
    """The authors' alt_test, from the notebook of a fetched copy of nitaytech/AltTest (its second and
    third code cells: imports and functions), or skip."""
    if not (ALTTEST / "HEAD").exists() and not (ALTTEST / ".git").exists():
        pytest.skip("nitaytech/AltTest is not fetched here (/work/.mirror)")
    nb = json.loads(subprocess.run(["git", "--git-dir", str(ALTTEST), "show", "HEAD:alt_test_example.ipynb"],
                                   capture_output=True, check=True).stdout)
    code = [("".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "code"]
    namespace: dict = {}
    exec(code[0] + "\n" + code[1], namespace)
    return namespace


def _git_json(path: str):
    return json.loads(subprocess.run(["git", "--git-dir", str(ALTTEST), "show", f"HEAD:{path}"],
                                     capture_output=True, check=True).stdout)


def test_alt_test_equals_the_authors_code_on_their_example():
    """Their SummEval example (data/summeval: three experts, six LLMs, neg_rmse, epsilon 0.2): our
    winning rate and advantage probability equal their code's, and their notebook's printed values."""
    ns = _notebook_alt_test()
    humans = _git_json("data/summeval/human_annotations.json")
    llms = _git_json("data/summeval/llm_annotations.json")
    printed = {"gemini_flash": (0.00, 0.46), "gemini_pro": (0.00, 0.44), "gpt-4o": (0.00, 0.48),
               "llama-31": (0.00, 0.58), "gpt-4o-mini": (0.00, 0.54), "mistral-v03": (0.00, 0.62)}
    for name, ann in llms.items():
        with contextlib.redirect_stdout(io.StringIO()):
            wr, ap = ns["alt_test"](ann, humans, "neg_rmse", epsilon=0.2)
        mine = sj.alt_test(ann, humans, "neg_rmse", 0.2)
        assert mine.winning_rate == wr and mine.advantage_probability == pytest.approx(ap, abs=1e-15)
        assert (round(mine.winning_rate, 2), round(mine.advantage_probability, 2)) == printed[name]


def test_alt_test_equals_the_authors_code_with_accuracy():
    """Their accuracy datasets too (data/mtbench, epsilon 0.2; data/wax, 0.1)."""
    ns = _notebook_alt_test()
    for dataset, eps in (("mtbench", 0.2), ("wax", 0.1)):
        humans = _git_json(f"data/{dataset}/human_annotations.json")
        for name, ann in _git_json(f"data/{dataset}/llm_annotations.json").items():
            with contextlib.redirect_stdout(io.StringIO()):
                wr, ap = ns["alt_test"](ann, humans, "accuracy", epsilon=eps)
            mine = sj.alt_test(ann, humans, "accuracy", eps)
            assert (mine.winning_rate, mine.advantage_probability) == (wr, pytest.approx(ap, abs=1e-15))


# The authors' MT-Bench example (nitaytech/AltTest at 18428b1f4f34ac61c4978bc180263b90111e7337,
# data/mtbench/{human,llm}_annotations.json: three annotators, six LLMs, 120 items, accuracy, epsilon
# 0.2), recorded here so that the test runs without a fetched copy: one letter per item in the sorted
# order of the item ids (a = model_a, b = model_b, t = tie, . = not annotated).
MTBENCH_HUMANS = {
    "author_0": ("............ta..tttttt........ttbbbbbbaabt....aaaa..tatb..bb"
                 "bttt..aaaaaabb..bbtbbttbtaba....ttttbb..aataab..bb....btbbbt"),
    "author_4": ("atbbttbbtataaatttt....ttbttatabb....bb..btaatb....aaaatbbbbb"
                 "bbaaaaaa..aababa..bb....ttaaabbb......btaabaaaba..btab......"),
    "expert_24": ("abbbaabbtata..bb..ttttttbttttt..bbbb..aa..atttaaaaaa....bb.."
                  "..tbaa..aa..abtatb..bbtt....tttbtaaabbta..ba..batbtbabbbbbbt"),
}
MTBENCH_LLMS = {
    "gemini_flash": ("bbbbbbbbbbbbaaaaaabbaaaabbaattbbbbaaaaaaaaaabbaaaaaaaabbbbbb"
                     "bbbbaaaaaaaabbaabbbbbbbbbbbabbbbbbaabbbbabbbaabbbabbbbbbbbaa"),
    "gemini_pro": ("bbbbbbbbbbaaaattaattaabbbbaattbbbbaaaaaaabbatbaaaaaaaabbbbbb"
                   "bbaaaaaaaaaabbaaaabbbbbbbbaabbbbabbbbbbbaaaaaaaabbbbbbbbbbaa"),
    "gpt-4o": ("bbbbaabbttaaaabbbbaaaaaabbaattbbbbaabbaabbaabbaaaaaaaabbbbbb"
               "bbbbaaaaaaaabbaaaabbbbaaaaaabbbbaaaabbbbaaaaaabbbbaabbbbbbaa"),
    "llama-31": ("bbbbaabbbabbbbbbabbbaaaabbaababbbbaabbabbbaabbabaaaabbbbbbbb"
                 "aaatataaaaaabbbbbbbbbbaaaaaatabtbbbbbbbbabbbbabbaaaabbbbbbbb"),
    "gpt-4o-mini": ("bbbbbbbbbbbbaaaaaaaaaaaabbaattbbbbaaaaaaaaaabbaaaaaaaabbbbbb"
                    "aattaaaaaaaaaaaabbbbbbaaaaaaaabbbbaabbbbaabbaabbbbaabbbbbbaa"),
    "mistral-v03": ("aabbtttbttttattttaatttaattaattbbbbaattaabbttbtaattaatttbbbbb"
                    "ttttttataaaaaattaattbattaaaattbbataabbtaaaaattttaaaabbttaatt"),
}
# Their notebook's printed output for it (alt_test_example.ipynb, the "Example (paper's data)" cell):
# "mtbench <llm> [FAILED]: Winning Rate=0.00 Advantage Probability=...".
MTBENCH_PRINTED = {"gemini_flash": (0.00, 0.72), "gemini_pro": (0.00, 0.76), "gpt-4o": (0.00, 0.77),
                   "llama-31": (0.00, 0.69), "gpt-4o-mini": (0.00, 0.74), "mistral-v03": (0.00, 0.68)}
LETTERS = {"a": "model_a", "b": "model_b", "t": "tie"}


def _decoded(letters: str) -> dict[str, str]:
    return {f"item{i:03d}": LETTERS[c] for i, c in enumerate(letters) if c != "."}


def test_alt_test_on_the_authors_mtbench_example_by_hand_and_scipy():
    """Runs anywhere: on the recorded example, each annotator's p-value is scipy's one-sample t-test
    of the indicators counted here by hand (accuracy against the other annotators of the item, items
    with at least one other), the advantage probability the mean of the judge's indicators, the
    winning rate the share of BY rejections by hand; rounded, they are the notebook's printed values."""
    humans = {k: _decoded(v) for k, v in MTBENCH_HUMANS.items()}
    for name, letters in MTBENCH_LLMS.items():
        judge = _decoded(letters)
        ps, aps = [], []
        for h in humans:
            wj, wh = [], []
            for i, label in humans[h].items():
                others = [humans[o][i] for o in humans if o != h and i in humans[o]]
                if not others:
                    continue
                acc = lambda x: sum(x == o for o in others) / len(others)  # noqa: E731
                wj.append(acc(judge[i]) >= acc(label))
                wh.append(acc(label) >= acc(judge[i]))
            ps.append(ttest_1samp(np.array(wh, float) - np.array(wj, float), 0.2, alternative="less").pvalue)
            aps.append(np.mean(wj))
        got = sj.alt_test(judge, humans, "accuracy", 0.2)
        assert got.p_values == pytest.approx(ps, abs=1e-12)
        assert got.advantage_probability == pytest.approx(np.mean(aps), abs=1e-12)
        order = sorted(range(3), key=lambda k: ps[k])
        hm = 1 + 1 / 2 + 1 / 3
        rejected = max([r + 1 for r in range(3) if ps[order[r]] <= (r + 1) / 3 * 0.05 / hm], default=0)
        assert got.winning_rate == rejected / 3
        assert (round(got.winning_rate, 2), round(got.advantage_probability, 2)) == MTBENCH_PRINTED[name]


def test_the_recorded_mtbench_example_is_the_authors_files():
    ALTTEST_PRESENT = (ALTTEST / "HEAD").exists() or (ALTTEST / ".git").exists()
    if not ALTTEST_PRESENT:
        pytest.skip("nitaytech/AltTest is not fetched here (/work/.mirror)")
    humans, llms = _git_json("data/mtbench/human_annotations.json"), _git_json("data/mtbench/llm_annotations.json")
    items = sorted(set().union(*humans.values()))
    rename = {f"item{i:03d}": item for i, item in enumerate(items)}
    for recorded, theirs in ((MTBENCH_HUMANS, humans), (MTBENCH_LLMS, llms)):
        assert list(recorded) == list(theirs)
        for name, letters in recorded.items():
            assert {rename[i]: v for i, v in _decoded(letters).items()} == theirs[name]


# ----------------------------------------------------------------------------- a user's judge: bad input

def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def _spec(**kw):
    return jd.JudgeSpec("summeval", "files", name="mine", method="m", **kw)


def test_a_rule_that_never_matches_names_the_file(tmp_path):
    p = _write(tmp_path / "p.tsv", "topic\tsummarizer\tdimension\tresponse\nt1\tM8\tcoherence\tgood\n"
                                   "t2\tM8\tcoherence\tfine\n")
    with pytest.raises(DatasetError, match=r"p\.tsv, line 2, field 'response': the parse rule reads none of its 2"):
        jd.read_judges([_spec(pointwise=p, rule="rts")], jd.builtin_rules())


def test_a_pair_naming_a_summarizer_twice_names_the_line(tmp_path):
    p = _write(tmp_path / "pairs.tsv", "topic\tsummarizer_a\tsummarizer_b\tdimension\torder\tchoice\n"
                                       "t1\tM8\tM9\tcoherence\tab\ta\nt1\tM8\tM8\tcoherence\tba\tb\n")
    with pytest.raises(DatasetError, match=r"pairs\.tsv, line 3, field 'summarizer_b': 'M8' is also summarizer_a"):
        jd.read_judges([_spec(pairwise=p)], jd.builtin_rules())


def test_an_order_other_than_ab_or_ba_names_the_line(tmp_path):
    p = _write(tmp_path / "pairs.tsv", "topic\tsummarizer_a\tsummarizer_b\tdimension\torder\tchoice\n"
                                       "t1\tM8\tM9\tcoherence\tba\ta\nt1\tM8\tM9\tcoherence\tAB\tb\n")
    with pytest.raises(DatasetError, match=r"pairs\.tsv, line 3, field 'order': 'AB'; expected ab"):
        jd.read_judges([_spec(pairwise=p)], jd.builtin_rules())


def test_a_bad_choice_and_a_missing_column(tmp_path):
    p = _write(tmp_path / "pairs.tsv", "topic\tsummarizer_a\tsummarizer_b\tdimension\torder\tchoice\n"
                                       "t1\tM8\tM9\tcoherence\tab\tM8\n")
    with pytest.raises(DatasetError, match=r"line 2, field 'choice': 'M8'; expected a, b or tie"):
        jd.read_judges([_spec(pairwise=p)], jd.builtin_rules())
    q = _write(tmp_path / "q.tsv", "topic\tsummarizer\tscore\nt1\tM8\t3\n")
    with pytest.raises(DatasetError, match=r"q\.tsv, line 1, field 'dimension': missing column"):
        jd.read_judges([_spec(pointwise=q)], jd.builtin_rules())


def test_samples_duplicates_and_the_mean_policy(tmp_path):
    """Three samples of one summary: the score is their mean; a sample given twice is a duplicate,
    resolved to the last (or the mean of both with duplicates: mean)."""
    p = _write(tmp_path / "p.tsv", "topic\tsummarizer\tdimension\tsample\tresponse\n"
                                   "t1\tM8\tcoherence\t1\tFinal score: 2\nt1\tM8\tcoherence\t2\tscore: 4\n"
                                   "t1\tM8\tcoherence\t3\tscore: 3\nt1\tM8\tcoherence\t3\tscore: 5\n"
                                   "t1\tM9\tcoherence\t1\tno idea\nt1\tM9\tcoherence\t2\tscore: 1\n")
    last = jd.scores(jd.read_judges([_spec(pointwise=p, rule="rts")], jd.builtin_rules()))
    item = {(i.topic, i.summarizer): i for i in last.items}
    assert item[("t1", "M8")].samples == (2.0, 4.0, 5.0) and item[("t1", "M8")].score == pytest.approx(11 / 3)
    assert item[("t1", "M9")].samples == (1.0,)
    (count,) = last.counts
    assert (count.responses, count.failures, count.duplicates) == (6, 1, 1)
    mean = jd.scores(jd.read_judges([_spec(pointwise=p, rule="rts", duplicates="mean")], jd.builtin_rules()))
    assert {(i.topic, i.summarizer): i for i in mean.items}[("t1", "M8")].samples == (2.0, 4.0, 4.0)


def test_the_judges_tables_show_self_agreement_only_for_a_judge_with_samples(tmp_path):
    """judges.md (the report's Judges section) has a self-agreement table only when a judge was scored
    in several samples; its cells are the values at 3 decimals, read back as written (escaped)."""
    from metaeval import tables
    from metaeval.records import JudgesOptions
    from metaeval.stages import judges as stage

    options = JudgesOptions(epsilon=0.2, fdr=0.05, expert_group="expert", disagreements=5, confidence=0.95)
    parse = [["a|judge:rts", "coherence", 6, 1, 1 / 6, 0]]
    stage._markdown(stage.JudgesResult(parse=parse), options, str(tmp_path / "none.md"))
    assert [c[:len("Coherence.")] for c, _, _ in tables.read_markdown_tables(tmp_path / "none.md")] == ["Coherence."]
    assert "elf-agreement" not in (tmp_path / "none.md").read_text(encoding="utf-8")
    # variance of the samples (2, 4, 5) and (1, 3), averaged: (7/3 + 2) / 2; alpha given
    result = stage.JudgesResult(parse=parse, self_agreement=[["a|judge:rts", "coherence", 2, 3, (7 / 3 + 2) / 2, 0.25]])
    stage._markdown(result, options, str(tmp_path / "samples.md"))
    found = tables.read_markdown_tables(tmp_path / "samples.md")
    assert len(found) == 2 and found[1][0].startswith("Self-agreement of the judges scored in several samples")
    assert found[1][1] == ["judge", "dimension", "summaries", "samples", "variance across samples", "α over samples"]
    assert found[1][2] == [["a|judge:rts", "coherence", "2", "3", "2.167", "0.250"]]


def test_declared_rules_map_words_and_letters():
    rules = jd.rules_from({"stars": {"kind": "pointwise", "patterns": [
        {"pattern": r"(\w+) stars", "lowercase": True, "map": {"four": 4, "five": 5}},
        {"pattern": r"grade ([A-C])", "map": {"A": 3, "B": 2, "C": 1}}]}}, "test")
    assert rules["stars"].read("Four stars") == 4.0
    assert rules["stars"].read("grade B overall") == 2.0
    assert rules["stars"].read("three stars") is None
    with pytest.raises(DatasetError, match=r"'stars2\.patterns\[0\]\.map': a pairwise rule maps"):
        jd.rules_from({"stars2": {"kind": "pairwise", "patterns": [{"pattern": "(a)", "map": "number"}]}}, "test")


# ----------------------------------------------------------------------------- the vectorised per-system correlations

def test_per_system_correlations_of_many_metrics_equal_scipy():
    """Every row's Spearman, Pearson and Kendall tau-b equal scipy's to 1e-12, on scores with many ties
    (judges' 1-5 scales, experts' means of three) and continuous ones, a constant row giving NaN."""
    rng = np.random.default_rng(11)
    for n in (2, 3, 17, 100):
        human = np.round(rng.integers(3, 16, n) / 3, 12)
        rows = np.vstack([rng.integers(1, 6, (5, n)).astype(float), rng.normal(size=(5, n)),
                          np.full((1, n), 2.0), human + rng.normal(0, 0.1, n)])
        got = sj.per_system_correlations_many(human, rows)
        for row, (rho, r, tau) in zip(rows, got):
            if np.ptp(row) == 0 or np.ptp(human) == 0:
                assert all(math.isnan(x) for x in (rho, r, tau))
                continue
            assert rho == pytest.approx(spearmanr(human, row)[0], abs=1e-12)
            assert r == pytest.approx(pearsonr(human, row)[0], abs=1e-12)
            assert tau == pytest.approx(kendalltau(human, row)[0], abs=1e-12)
    assert np.isnan(sj.per_system_correlations_many(np.ones(5), rng.normal(size=(2, 5)))).all()
