# Stage 6 - re-ranking: systems under the best variant vs the original, pairwise significance.


rule rerank:
    input:
        unpack(pairwise_inputs),
        correlations="results/{dataset}/analysis/correlations.tsv",
    output:
        reported(expand("results/{{dataset}}/rerank/{name}", name=RERANK_OUTPUTS), "Re-ranking"),
    params:
        code=mconfig.code_version("rerank", "comparisons", "analysis", "graham"),
        combination=RERANK["combination"],
        best=RERANK["best"],
        original=RERANK["original"],
        alpha=RERANK["alpha"],
        summarizers=CORRELATION["summarizers"],
    log:
        "results/{dataset}/logs/rerank.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/rerank.py"
