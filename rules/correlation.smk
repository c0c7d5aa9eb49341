# Stage 4 - correlation: system-level correlations with bootstrap intervals, Williams tests,
# optimal variants and significance clusters, the summary-level table; Graham's tables and figures.


rule correlate:
    input:
        unpack(bleu_stats),
        unpack(sera_scores),
        system_scores="results/{dataset}/scores/system_scores.tsv",
        summary_scores="results/{dataset}/scores/summary_scores.tsv",
        summary_human="results/{dataset}/human/summary_human.tsv",
        system_human="results/{dataset}/human/system_human.tsv",
        skipped="results/{dataset}/human/skipped.tsv",
    output:
        correlations="results/{dataset}/analysis/correlations.tsv",
        williams=expand("results/{{dataset}}/analysis/williams_{combination}.tsv", combination=HUMAN["combinations"]),
        summary_level="results/{dataset}/analysis/summary_level_correlations.tsv",
        notes="results/{dataset}/analysis/notes.tsv",
    params:
        code=mconfig.code_version("analysis", "correlation", "williams", "human", "scoring"),
        combinations=HUMAN["combinations"],
        summarizers=CORRELATION["summarizers"],
        samples=CORRELATION["bootstrap_samples"],
        resample=CORRELATION["resample"],
        confidence=CORRELATION["confidence"],
        seed=CORRELATION["seed"],
        alpha=CORRELATION["alpha"],
        correction=CORRELATION["correction"],
    log:
        "results/{dataset}/logs/correlate.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/correlate.py"


rule graham_tables:
    input:
        correlations="results/{dataset}/analysis/correlations.tsv",
        williams=expand("results/{{dataset}}/analysis/williams_{combination}.tsv", combination=HUMAN["combinations"]),
        summary_human="results/{dataset}/human/summary_human.tsv",
    output:
        tables=reported(expand("results/{{dataset}}/analysis/{table}.{ext}", table=GRAHAM_TABLES, ext=("tsv", "md")), "Correlation"),
        figures=reported(expand("results/{{dataset}}/analysis/{figure}.{ext}", figure=GRAHAM_FIGURES, ext=("png", "svg")), "Correlation"),
    params:
        code=mconfig.code_version("graham", "analysis"),
        baselines=CORRELATION["baselines"],
        top=CORRELATION["top_variants"],
        alpha=CORRELATION["alpha"],
    log:
        "results/{dataset}/logs/graham_tables.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/graham_tables.py"
