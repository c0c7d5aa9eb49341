# Calibration on known truth: `snakemake --cores 2 calibration` (not part of `all`:
# it runs many simulations). A score-level model fitted to each calibrated data set; the type-I error,
# power and coverage of the tests and intervals at the user's numbers of systems and topics; the power at
# each number of topics of the grid (a job each); the tables and the power curves.

CALIBRATION = OPTIONS.calibration


rule calibration:
    input:
        [path for d in CALIBRATION.datasets for path in OUT.files("calibration", d).values()],


rule calibration_model:
    input:
        unpack(analysis_inputs),
    output:
        **OUT.files("calibration_model"),
    params:
        code=code("calibration_model"),
        options=CALIBRATION.model,
    priority: registry.rule_priority("calibration_model")
    log:
        OUT.log("calibration_model"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/calibration_model.py"


rule calibration_grid:
    input:
        **OUT.files("calibration_model"),
    output:
        **OUT.files("calibration_grid"),
    params:
        code=code("calibration_run"),
        options=CALIBRATION.grid,
    wildcard_constraints:
        topics="[0-9]+",
    priority: registry.rule_priority("calibration_grid")
    log:
        OUT.log("calibration_grid_T{topics}"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/calibration_run.py"


# The main job: the same simulations at the user's numbers of systems and topics, with the coverage.
use rule calibration_grid as calibration_main with:
    output:
        **OUT.files("calibration_main"),
    params:
        code=code("calibration_run"),
        options=CALIBRATION.main,
    log:
        OUT.log("calibration_main"),


rule calibration_tables:
    input:
        **OUT.files("calibration_model"),
        **OUT.files("calibration_main"),
        **{f"grid_{t}": OUT.file("calibration_grid", "rejections", topics=t) for t in CALIBRATION.tables.topics_grid},
    output:
        **reported(OUT.files("calibration"), "Calibration"),
    params:
        code=code("calibration_tables"),
        options=CALIBRATION.tables,
    priority: registry.rule_priority("calibration_tables")
    log:
        OUT.log("calibration_tables"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/calibration_tables.py"
