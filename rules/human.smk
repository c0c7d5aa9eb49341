# Stage 3 - human scores (Graham 2015 §3): per judged summary and per summarizer.


rule human_scores:
    input:
        multiext("results/{dataset}/data/", *DATA_FILES),
    output:
        summaries="results/{dataset}/human/summary_human.tsv",
        systems="results/{dataset}/human/system_human.tsv",
        skipped="results/{dataset}/human/skipped.tsv",
    params:
        code=mconfig.code_version("datasets", "human", "analysis"),
        combinations=HUMAN["combinations"],
        order=HUMAN["order"],
    log:
        "results/{dataset}/logs/human_scores.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/human_scores.py"
