# Stage 4b - statistics (issue 14): correlation levels with bootstrap intervals and a null baseline,
# permutation tests between the tested variants (optimal set, clusters), Kendall variants and tie
# calibration, pairwise accuracy, and the uncertainty of the winner (metaeval.stages.statistics).


rule statistics:
    input:
        unpack(analysis_inputs),
    output:
        **reported(OUT.files("statistics", combination=STATISTICS_PERMUTATIONS or []), "Statistics"),
    params:
        code=code("statistics"),
        options=OPTIONS.statistics,
    log:
        OUT.log("statistics"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/statistics.py"
