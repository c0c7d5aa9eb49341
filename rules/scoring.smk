# Scoring: ROUGE exactly as ROUGE-1.5.5 computes it, BLEU through sacrebleu, chrF and
# chrF++ (sacrebleu's definition, on the raw text: one job per data set, independent of ROUGE's
# preprocessing settings), SERA (retrieval-based, over an index built once per data set), the
# scores of metrics computed elsewhere (score files, checked and oriented by the file_metrics job;
# editing one re-runs that job, the gathering and the analyses, never the ROUGE scoring; a
# top-level file only those of the data sets whose rows changed), and
# ROUGE-1.5.5's bootstrap intervals.
# One job per preprocessing setting (stemming x stop words) and topic shard tokenises once and
# scores every measure and BLEU from that one corpus; the parts are gathered into
# summary_scores.tsv and system_scores.tsv. A changed ROUGE or BLEU option re-scores every setting
# (seconds); scale.shards splits the topics for large corpora.


rule score:
    input:
        **data_files("dataset", "summaries", "judgments"),
    output:
        **OUT.files("score"),
    params:
        code=code("score"),
        job=lambda wc: OPTIONS.score_job(wc.stem),
    priority: registry.rule_priority("score")
    log:
        OUT.log("score_ST{stem}_RS{stop}.shard{shard}"),
    threads: 1
    resources:
        **SCORING,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score.py"


rule score_chrf:
    input:
        **data_files("dataset", "summaries", "judgments"),
    output:
        **OUT.files("chrf", metric=CHRF_METRICS),
    params:
        code=code("score_chrf"),
        options=OPTIONS.chrf,
    priority: registry.rule_priority("score_chrf")
    log:
        OUT.log("score_chrf"),
    threads: 1
    resources:
        **SCORING,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_chrf.py"


rule sera_index:
    input:
        corpus=sera_corpus,
    output:
        **OUT.files("sera_index"),
    params:
        code=code("sera_index"),
        options=OPTIONS.sera_index,
    priority: registry.rule_priority("sera_index")
    log:
        OUT.log("sera_index"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/sera_index.py"


rule score_sera:
    input:
        index=OUT.file("sera_index", "index"),
        **data_files("dataset", "summaries", "judgments"),
    output:
        **OUT.files("sera"),
    params:
        code=code("score_sera"),
        options=OPTIONS.sera,
    priority: registry.rule_priority("score_sera")
    log:
        OUT.log("score_sera"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_sera.py"


rule file_metrics:
    input:
        sources=file_metric_inputs,
        **data_files("dataset", "summaries", "judgments"),
    output:
        **OUT.files("file_metrics"),
    params:
        code=code("file_metrics"),
        options=lambda wc: OPTIONS.file_metrics(wc.dataset),
        shared_rows=shared_rows,
    priority: registry.rule_priority("file_metrics")
    log:
        OUT.log("file_metrics"),
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/file_metrics.py"


rule gather_scores:
    input:
        unpack(family_files("gathered")),
        unpack(score_parts("scores", "bleu_stats", "bleu_signature")),
    output:
        **scores_outputs(),
    params:
        code=code("gather_scores"),
        options=lambda wc: OPTIONS.gather_job(wc.dataset),
    priority: registry.rule_priority("gather_scores")
    log:
        OUT.log("gather_scores"),
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/gather_scores.py"


rule system_intervals:
    input:
        # the score jobs' parts, not the gathered table: another metric's change re-runs the
        # gathering but not these ROUGE-only intervals
        unpack(score_parts("scores")),
    output:
        **reported(OUT.files("intervals"), "Confidence intervals"),
    params:
        code=code("system_intervals"),
        options=OPTIONS.intervals,
    priority: registry.rule_priority("system_intervals")
    log:
        OUT.log("system_intervals"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/system_intervals.py"
