"""Calibration on known truth: the simulations at one number of systems and topics (the user's, or
a {topics} of the grid)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import calibration

topics = int(snakemake.wildcards.get("topics", 0)) or None
with job_log(snakemake.log[0], f"calibration {snakemake.rule} {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    model = calibration.read_model(snakemake.input.model)
    s = calibration.settings(model, o, topics)
    log.info("%d systems, %d topics: %d replicates, differences %s, %d permutation and %d bootstrap samples per test",
             s.systems, s.topics, s.replicates, (0.0, *s.differences), s.permutation_samples, s.bootstrap_samples)
    result = calibration.run(model, o, topics, log.info)
    calibration.write_run(result, dict(snakemake.output.items()))
