# The human scores (Graham 2015 §3): per judged summary and per summarizer.


rule human_scores:
    input:
        **data_files(),
    output:
        **OUT.files("human"),
    params:
        code=code("human_scores"),
        options=lambda wc: OPTIONS.human_job(wc.dataset),
    priority: registry.rule_priority("human_scores")
    log:
        OUT.log("human_scores"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/human_scores.py"
