"""Tokenize every summary the scoring needs, as ROUGE-1.5.5 would, for one setting; one file per
topic shard."""
from pathlib import Path

from metaeval.datasets import load_dataset
from metaeval.logs import job_log
from metaeval.scoring import setting_from_tag, shard_records, tokenize_dataset, write_tokens

w = snakemake.wildcards
with job_log(snakemake.log[0], f"preprocess {w.dataset} ST{w.stem}_RS{w.stop}") as log:
    p = snakemake.params
    ds = load_dataset(Path(snakemake.input.summaries).parent)
    records = tokenize_dataset(ds, setting_from_tag(w.stem, w.stop, p.word_limit, p.byte_limit))
    for k, path in enumerate(snakemake.output):
        write_tokens(shard_records(records, k, p.shards), path)
    log.info("%d summaries tokenized into %d shard(s)", len(records), p.shards)
