# Stage 6 - re-ranking: systems under the best variant vs the original, pairwise significance.


rule rerank:
    input:
        unpack(analysis_inputs),
        correlations=OUT.file("correlation", "correlations"),
    output:
        **reported(OUT.files("rerank"), "Re-ranking"),
    params:
        code=code("rerank"),
        options=OPTIONS.rerank,
    log:
        OUT.log("rerank"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/rerank.py"
