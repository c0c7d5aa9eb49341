# Stage 2 - scoring: ROUGE exactly as ROUGE-1.5.5 computes it, BLEU through sacrebleu, SERA
# (retrieval-based, over an index built once per data set), and ROUGE-1.5.5's bootstrap intervals.
# One cached token file per preprocessing setting (stemming x stop words) and topic shard, one
# score table per (measure, setting, shard), gathered into summary_scores.tsv and
# system_scores.tsv. A changed option re-runs only the jobs whose params carry it (e.g.
# rouge.wlcs_weight reaches only the RW jobs); scale.shards splits the topics for large corpora.


rule preprocess:
    input:
        **data_files("dataset", "summaries", "judgments"),
    output:
        **OUT.files("tokens", shard=SHARDS),
    params:
        code=code("preprocess"),
        options=OPTIONS.tokenize,
    log:
        OUT.log("preprocess_ST{stem}_RS{stop}"),
    resources:
        **SCORING,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/preprocess.py"


rule score_rouge:
    input:
        tokens=OUT.file("tokens", "shard{shard}"),
    output:
        **OUT.files("rouge_part"),
    params:
        code=code("score_rouge"),
        # the ROUGE-W weight is in RW jobs' records only, so changing it re-scores only them
        job=lambda wc: OPTIONS.rouge_job(wc.measure),
    log:
        OUT.log("score_{measure}_ST{stem}_RS{stop}.shard{shard}"),
    threads: 1
    resources:
        **SCORING,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_rouge.py"


rule score_bleu:
    input:
        tokens=OUT.file("tokens", "shard{shard}"),
    output:
        **OUT.files("bleu_part"),
    params:
        code=code("score_bleu"),
        job=OPTIONS.bleu_job,
    log:
        OUT.log("score_BLEU_ST{stem}_RS{stop}.shard{shard}"),
    threads: 1
    resources:
        **SCORING,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_bleu.py"


rule sera_index:
    input:
        corpus=sera_corpus,
    output:
        **OUT.files("sera_index"),
    params:
        code=code("sera_index"),
        options=OPTIONS.sera_index,
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
    log:
        OUT.log("score_sera"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_sera.py"


rule gather_scores:
    input:
        unpack(sera_scores),
        unpack(score_parts),
    output:
        **scores_outputs(),
    params:
        code=code("gather_scores"),
        options=OPTIONS.gather,
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
        summary_scores=OUT.file("scores", "summaries"),
    output:
        **reported(OUT.files("intervals"), "Confidence intervals"),
    params:
        code=code("system_intervals"),
        options=OPTIONS.intervals,
    log:
        OUT.log("system_intervals"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/system_intervals.py"
