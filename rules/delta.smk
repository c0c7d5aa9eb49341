# What a score difference means (metaeval.stages.delta): every data set's pairs of systems pooled,
# a logistic curve of human agreement against the metric's delta per variant and target, the deltas
# needed for each accuracy, a figure per listed variant (results/all/); and, on request, the
# agreement at one difference (`snakemake --cores 2 results/all/delta.tsv --config
# delta='{metric: R2_ST1_RS0_A_R, value: 0.02}'`). Both read every data set's pairs (delta_pairs,
# rules/common.smk).


rule delta_curves:
    input:
        unpack(delta_pairs),
    output:
        **reported(OUT.files("delta", OUT.ACROSS, variant=list(OPTIONS.delta_figures)), "What a difference means"),
    params:
        code=code("delta_curves"),
        options=registry.stage_options(registry.stage("delta"), OPTIONS),
    priority: registry.rule_priority("delta_curves")
    log:
        OUT.log("delta_curves", OUT.ACROSS),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/delta_curves.py"


rule delta_query:
    input:
        unpack(delta_pairs),
    output:
        answer=OUT.file("delta_query", "answer", OUT.ACROSS),
    params:
        code=code("delta_query"),
        query=registry.stage_options(registry.stage("delta_query"), OPTIONS),
    log:
        OUT.log("delta_query", OUT.ACROSS),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/delta_query.py"
