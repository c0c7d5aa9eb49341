# Stage 4c - factual consistency (issue 23): FRANK's partial correlation controlling for the system
# with Williams tests and its error-category ablation, QAGS / SummaC's detection of consistent
# summaries (AUC, balanced accuracy on a validation / test split, DeLong tests), Rank19's ranking
# accuracy (McNemar tests), summary-level correlations by subset and split (metaeval.stages.factuality).


rule factuality:
    input:
        unpack(analysis_inputs),
        **data_files("dataset", "summaries", "judgments", "annotations"),
    output:
        **reported(OUT.files("factuality"), "Factual consistency"),
    params:
        code=code("factuality"),
        options=OPTIONS.factuality,
    log:
        OUT.log("factuality"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/factuality.py"
