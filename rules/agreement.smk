# Stage 5 - agreement: metric vs human verdicts on every pair of summarizers (Owczarzak et al. 2012).


rule agreement:
    input:
        unpack(pairwise_inputs),
    output:
        reported(expand("results/{{dataset}}/agreement/{name}", name=AGREEMENT_OUTPUTS), "Agreement"),
    params:
        code=mconfig.code_version("agreement", "comparisons", "analysis", "graham"),
        combinations=HUMAN["combinations"],
        alpha=AGREEMENT["alpha"],
        min_topics=AGREEMENT["min_topics"],
        baseline=AGREEMENT["baseline"],
    log:
        "results/{dataset}/logs/agreement.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/agreement.py"
