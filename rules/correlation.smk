# The correlation: system-level correlations with bootstrap intervals, Williams tests,
# optimal variants and significance clusters, the summary-level table; the correlation tables
# and figures (Graham 2015's Tables 1, 2, 4 and Figures 1-3; Table 5 for SERA, Table 6 for the metrics
# read from score files).


rule correlate:
    input:
        unpack(analysis_inputs),
        unpack(permutation_basis),
        # the data set's annotations when the bootstrap resamples annotators
        **(data_files() if OPTIONS.correlate.resample_annotators else {}),
        skipped=OUT.file("human", "skipped"),
    output:
        **OUT.files("correlation", combination=COMBINATIONS),
    params:
        code=code("correlate"),
        options=OPTIONS.correlate,
        # where the job keeps its metrics' rows for its next run (a cache, not an output)
        memo=OUT.memo("correlate"),
    priority: registry.rule_priority("correlate")
    log:
        OUT.log("correlate"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/correlate.py"


rule correlation_tables:
    input:
        unpack(file_metric_files(file_metrics="metrics")),
        **{k: v for k, v in OUT.files("correlation", combination=COMBINATIONS).items()
           if k in ("correlations", "summary_level", "targets_williams") or k.startswith("williams_")},
        summary_human=OUT.file("human", "summaries"),
        targets=OUT.file("human", "targets"),
    output:
        **reported(OUT.files("correlation_tables"), "Correlation"),
    params:
        code=code("correlation_tables"),
        options=OPTIONS.correlation_tables,
    priority: registry.rule_priority("correlation_tables")
    log:
        OUT.log("correlation_tables"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/correlation_tables.py"
