# Texts out: `snakemake --cores 2 to_score` writes results/to_score/{dataset}.jsonl for every data set
# (not part of `all`): every judged summary with its references and source, read from the validated
# canonical copy, for a metric computed elsewhere; its scores come back in one score file (the
# top-level metric_scores; docs/benchmarks.md, "Texts out").


rule to_score:
    input:
        [OUT.TO_SCORE.format(dataset=d) for d in DATASETS],


rule to_score_dataset:
    input:
        # the canonical copy, and a score-only release's file of texts (FRANK's) or the fetch job's
        # manifest that says whether it could be had
        unpack(lambda wc: {**data_files("dataset", "summaries", "judgments", "documents"), **release_texts(wc)}),
    output:
        OUT.TO_SCORE,
    params:
        code=code("to_score"),
        options=lambda wc: OPTIONS.to_score(wc.dataset),
    priority: registry.rule_priority("to_score_dataset")
    log:
        OUT.TO_SCORE_LOG,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/to_score.py"
