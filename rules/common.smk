# Helpers shared by the rules: which data sets are configured and what each job reads.
from pathlib import Path

from metaeval import config as mconfig
from metaeval.importers import SUMMARY_FILE

try:
    mconfig.check_config(config)
except mconfig.ConfigError as e:
    raise WorkflowError(str(e))

# The software environment of every job (used with --software-deployment-method conda).
METAEVAL_ENV = "../environment.yml"

DATASETS = sorted(config["datasets"])
DATA_FILES = ["dataset.yaml", "summaries.jsonl", "judgments.tsv", "documents.jsonl", "pyramids.jsonl"]


def dataset_entry(name):
    return mconfig.dataset_entry(config, name)


def canonical_inputs(wildcards):
    """What the validation job of a data set reads: the user's canonical folder, or an importer's output."""
    entry = dataset_entry(wildcards.dataset)
    if entry["format"] == "canonical":
        folder = Path(entry["path"])
        return {f.split(".")[0]: str(folder / f) for f in DATA_FILES if (folder / f).exists()}
    stage = {"summeval_jsonl": "import_summeval", "duc_tac": "import_duc_tac", "simulated": "simulate"}
    folder = f"results/{wildcards.dataset}/{stage[entry['format']]}"
    return {f.split(".")[0]: f"{folder}/{f}" for f in DATA_FILES}


def duc_tac_inputs(wildcards):
    """Every summary file and judgment table of a DUC/TAC data set, so editing one re-runs the import."""
    entry = dataset_entry(wildcards.dataset)
    files = sorted(str(p) for p in Path(entry["path"]).rglob("*") if SUMMARY_FILE.match(p.name))
    tables = [entry[k] for k in ("see_table", "manual_peer") if entry.get(k)]
    return files + tables


ROUGE = mconfig.section(config, "rouge")
BLEU = mconfig.section(config, "bleu")
SETTINGS = [(s, r) for s in ROUGE["stemming"] for r in ROUGE["stopwords_removed"]]
SCALE = mconfig.section(config, "scale")
SHARDS = list(range(SCALE["shards"]))
HUMAN = mconfig.section(config, "human_scores")
CORRELATION = mconfig.section(config, "correlation")
AGREEMENT = mconfig.section(config, "agreement")
RERANK = mconfig.section(config, "rerank")
SERA = mconfig.section(config, "sera")
SWEEPS = mconfig.section(config, "sweeps")
INTERVALS = mconfig.section(config, "intervals")
GRAHAM_TABLES = ["table1", "table2", "table4", "table5"]
AGREEMENT_OUTPUTS = ["verdicts.tsv", "agreement.tsv", "table2.md", "table3.md", "figure_accuracy.png",
                     "figure_accuracy.svg", "figure_differences.png", "figure_differences.svg"]
RERANK_OUTPUTS = ["table3.tsv", "table3.md", "normality.tsv", "pairwise.tsv", "summary.tsv",
                  "figure4_significance.png", "figure4_significance.svg"]
GRAHAM_FIGURES = ["figure1_coverage_vs_lq", "figure2_densities", "figure3_williams"]
INTERVAL_OUTPUTS = ["system_intervals.tsv", "intervals.md", "figure_intervals.png", "figure_intervals.svg"]


def sweep_outputs(prefix):
    """The tables and figure of one sweep (references or lengths)."""
    return [f"{prefix}_scores.tsv", f"{prefix}_correlations.tsv", f"{prefix}_consistency.tsv", f"{prefix}.md",
            f"figure_{prefix}.png", f"figure_{prefix}.svg"]


def scoring_outputs(dataset):
    return [f"results/{dataset}/scores/summary_scores.tsv", f"results/{dataset}/scores/system_scores.tsv"]


def score_parts(wildcards):
    """Every per-(measure, setting, shard) table the gathering job reads."""
    d = f"results/{wildcards.dataset}/scores/parts"
    stems = [f"{m}_ST{s}_RS{r}" for m in ROUGE["measures"] for s, r in SETTINGS]
    parts = [f"{d}/{stem}.shard{k}.tsv" for stem in stems for k in SHARDS]
    if BLEU["enabled"]:
        for s, r in SETTINGS:
            for k in SHARDS:
                parts += [f"{d}/BLEU_ST{s}_RS{r}.shard{k}.tsv", f"{d}/BLEU_stats_ST{s}_RS{r}.shard{k}.tsv",
                          f"{d}/BLEU_signature_ST{s}_RS{r}.shard{k}.txt"]
    return parts


def sera_corpus(wildcards):
    """What the SERA index is built from: the configured corpus, or the data set's documents."""
    return SERA["corpus"] or f"results/{wildcards.dataset}/data/documents.jsonl"


def sera_scores(wildcards):
    """The per-summary SERA table, for the jobs that read metric scores (nothing when disabled)."""
    if not SERA["enabled"]:
        return {}
    return {"sera": f"results/{wildcards.dataset}/scores/sera_scores.tsv",
            "sera_signature": f"results/{wildcards.dataset}/scores/sera/signature.txt"}


def bleu_stats(wildcards):
    if not BLEU["enabled"]:
        return {}
    return {f"ST{s}_RS{r}": f"results/{wildcards.dataset}/scores/bleu_stats_ST{s}_RS{r}.tsv" for s, r in SETTINGS}


def analysis_outputs(dataset):
    out = [f"results/{dataset}/analysis/correlations.tsv"]
    out += [f"results/{dataset}/analysis/{t}.{ext}" for t in GRAHAM_TABLES for ext in ("tsv", "md")]
    out += [f"results/{dataset}/analysis/{f}.{ext}" for f in GRAHAM_FIGURES for ext in ("png", "svg")]
    out += [f"results/{dataset}/agreement/{f}" for f in AGREEMENT_OUTPUTS]
    out += [f"results/{dataset}/rerank/{f}" for f in RERANK_OUTPUTS]
    out += [f"results/{dataset}/intervals/{f}" for f in INTERVAL_OUTPUTS]
    out += [f"results/{dataset}/sweeps/{f}" for prefix in ("references", "lengths") for f in sweep_outputs(prefix)]
    return out


def reported(paths, category):
    """Mark the Markdown tables and PNG figures among ``paths`` for ``snakemake --report``."""
    captions = {".md": "../workflow/report/table.rst", ".png": "../workflow/report/figure.rst"}
    marked = []
    for p in paths:
        caption = captions.get(Path(p).suffix)
        marked.append(p if caption is None else report(p, caption=caption, category=category))
    return marked


def pairwise_inputs(wildcards):
    """The score and human tables the agreement and re-ranking jobs read."""
    d = wildcards.dataset
    return {
        **bleu_stats(wildcards),
        **sera_scores(wildcards),
        "system_scores": f"results/{d}/scores/system_scores.tsv",
        "summary_scores": f"results/{d}/scores/summary_scores.tsv",
        "summary_human": f"results/{d}/human/summary_human.tsv",
        "system_human": f"results/{d}/human/system_human.tsv",
    }


def dataset_outputs(dataset):
    """Every final output of one data set."""
    return [f"results/{dataset}/data/summary.tsv", *scoring_outputs(dataset), *analysis_outputs(dataset),
            f"results/{dataset}/report.html"]


def final_outputs():
    return [path for d in DATASETS for path in dataset_outputs(d)]


def archive_git_state():
    """The workflow's git commit and dirty flag: a new commit re-makes the archives."""
    from metaeval.archive import git_state

    return git_state(workflow.basedir)
