"""Tokenize every summary the scoring needs, as ROUGE-1.5.5 would, for one setting; one file per
topic shard."""
from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.stages.scoring import setting_from_tag, shard_records, tokenize_dataset, write_tokens

w, o = snakemake.wildcards, snakemake.params.options
with job_log(snakemake.log[0], f"preprocess {w.dataset} ST{w.stem}_RS{w.stop}") as log:
    ds = read_dataset(dict(snakemake.input.items()))
    records = tokenize_dataset(ds, setting_from_tag(w.stem, w.stop, o.word_limit, o.byte_limit))
    for k in range(o.shards):
        write_tokens(shard_records(records, k, o.shards), snakemake.output[f"shard{k}"])
    log.info("%d summaries tokenized into %d shard(s)", len(records), o.shards)
