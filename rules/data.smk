# Data: every data set is brought into the canonical form (release files: SummEval's jsonl,
# BARTScore's unified pickles, FRANK's json, NIST DUC/TAC; or the embedded simulation), validated, and summarised
# (the validation job writes the normalised copy and its summary table).
# Importers write results/{dataset}/<importer>/; validation writes the normalised copy that every
# later stage reads, results/{dataset}/data/. The user's files are only ever read.
from metaeval.data.formats import IMPORTED


# One import rule per format read by an importer, made from the registry (metaeval.data.formats):
# the release files it reads, the record it passes the importer (params.options), its stage's files,
# its script workflow/scripts/<script>.py (the rule's name; the simulated format's is
# simulate_dataset).
for fmt in IMPORTED:

    rule:
        name:
            fmt.script
        input:
            unpack(release_inputs(fmt)),
        output:
            **OUT.files(fmt.stage),
        params:
            code=code(fmt.script),
            name="{dataset}",
            options=lambda wc, fmt=fmt: fmt.options(OPTIONS.dataset(wc.dataset)),
            # the door, through params: a loop variable in script: would be read when the job runs
            door=fmt.script,
        priority: registry.rule_priority(fmt.script)
        log:
            OUT.log(fmt.script),
        conda:
            METAEVAL_ENV
        script:
            "../workflow/scripts/{params.door}.py"


# The validation job also checks the data set's own score files (metric_scores.tsv, the entry's
# metric_scores), as the file metrics job does, so that a bad one stops the run before any analysis.
# They are ancient() here: editing a score file re-runs the file metrics job (which checks it again
# before anything reads it) and the analyses after it, not the validation and all that follows it.
# The top-level metric_scores (for every data set) are the file metrics job's alone: adding or
# editing one re-runs no validation.
rule validate_dataset:
    input:
        unpack(canonical_inputs),
        score_files=lambda wc: [ancient(f) for f in OPTIONS.own_metric_sources(wc.dataset)],
    output:
        **OUT.files("data"),
        **OUT.files("summary"),
    params:
        code=code("validate_dataset"),
        human=lambda wc: OPTIONS.dataset(wc.dataset).get("human"),
        aggregation=lambda wc: OPTIONS.dataset(wc.dataset).get("aggregation"),
        # what the entry says of the data set (a catalog benchmark's citation and licence), over the release's words
        about=lambda wc: OPTIONS.about(wc.dataset),
        # what the check of the score files needs (partial coverage allowed?), not the metrics'
        # declarations (names, orientation, dimension): changing those re-runs the file metrics job, not this one
        file_metrics=lambda wc: OPTIONS.validation_score_check(wc.dataset),
    priority: registry.rule_priority("validate_dataset")
    log:
        OUT.log("validate_dataset"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/validate_dataset.py"
