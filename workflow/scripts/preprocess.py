"""Tokenize every summary the scoring needs, as ROUGE-1.5.5 would, for one setting."""
from pathlib import Path

from metaeval.datasets import load_dataset
from metaeval.logs import job_log
from metaeval.scoring import setting_from_tag, tokenize_dataset, write_tokens

with job_log(snakemake.log[0], f"preprocess {snakemake.wildcards.dataset} ST{snakemake.wildcards.stem}_RS{snakemake.wildcards.stop}") as log:
    ds = load_dataset(Path(snakemake.input.summaries).parent)
    setting = setting_from_tag(snakemake.wildcards.stem, snakemake.wildcards.stop,
                               snakemake.params.word_limit, snakemake.params.byte_limit)
    records = tokenize_dataset(ds, setting)
    write_tokens(records, snakemake.output[0])
    log.info("%d summaries tokenized", len(records))
