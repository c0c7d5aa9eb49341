# The analysis stages made from the registry (metaeval.registry: every stage that declares what it
# reads): one rule each, of one pattern. A stage's entry names its inputs (the metric and human
# scores, files of other stages), its outputs, its options record, its door and its report
# category; so a new analysis stage needs no rules file of its own (docs/layout.md, "Adding a stage").
# Made in a function, so that each rule keeps its stage (a job evaluates its script path when it
# runs, after a loop's variable has moved on).


def analysis_rule(stage):

    rule:
        name:
            stage.name
        input:
            unpack(stage_inputs(stage)),
        output:
            **reported(OUT.files(stage.name, **{p: EXPANSIONS[path] for p, path in stage.expand.items()}),
                       stage.category),
        params:
            code=code_of(stage),
            options=registry.stage_options(stage, OPTIONS),
        log:
            OUT.log(stage.name),
        threads: 1
        resources:
            **ANALYSIS,
        conda:
            METAEVAL_ENV
        script:
            f"../workflow/scripts/{stage.script or 'analysis_stage'}.py"


for stage in registry.analysis_stages():
    analysis_rule(stage)
