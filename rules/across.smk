# Across data sets (two or more configured): every variant's correlations side by side,
# ranks, robustly optimal variants, a replicability analysis (Dror et al. 2017), figures and a
# report, in results/all/. Adding a data set re-runs its own jobs and this one.


rule across:
    input:
        unpack(across_inputs),
    output:
        **reported(OUT.files("across", OUT.ACROSS), "Across data sets"),
    params:
        code=code("across"),
        options=OPTIONS.across,
    priority: registry.rule_priority("across")
    log:
        OUT.log("across", OUT.ACROSS),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/across.py"
