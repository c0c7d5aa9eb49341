"""Calibration on known truth: the score-level model fitted to the data set."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import analysis_inputs, calibration

with job_log(snakemake.log[0], f"calibration model {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    inp = analysis_inputs.load_named(dict(snakemake.input.items()), "systems")
    result = calibration.fit(inp, o)
    log.info("fitted on %d systems x %d complete topics (%d left out): human %s, metric A %s (rho(inf) = %.4f), "
             "second metric %s (kappa = %.4f)", result.systems, result.topics, result.dropped_topics,
             result.combination, result.metric_a, result.model.r, result.metric_b, result.model.kappa)
    calibration.write_model(result, snakemake.output.model)
