# The analysis stages made from the registry (metaeval.registry: every stage that declares what it
# reads): one rule each, of one pattern. A stage's entry names its inputs (the metric and human
# scores, files of other stages), its outputs, its options record, its door and its report
# category; so a new analysis stage needs no rules file of its own (docs/layout.md, "Adding a stage").

for _stage in registry.analysis_stages():

    rule:
        name:
            _stage.name
        input:
            unpack(stage_inputs(_stage)),
        output:
            **reported(OUT.files(_stage.name, **{p: EXPANSIONS[path] for p, path in _stage.expand.items()}),
                       _stage.category),
        params:
            code=code_of(_stage),
            options=OPTIONS.record(_stage.name),
            # the door, through params: a loop variable in script: would be read when the job runs
            door=_stage.script or "analysis_stage",
            # the generic door's stage module, by name (metaeval.door imports no stage and no registry)
            module=f"metaeval.{_stage.module}",
            # where the job keeps its metrics' rows for its next run (a cache, not an output)
            memo=OUT.memo(_stage.name),
        priority: registry.rule_priority(_stage.rule)
        log:
            OUT.log(_stage.name),
        threads: 1
        resources:
            **ANALYSIS,
        conda:
            METAEVAL_ENV
        script:
            "../workflow/scripts/{params.door}.py"
