# LLM judges (metaeval.data.judges; docs/judges.md): a data set's judges, from a catalog release that
# joins it (LLM_summeval's, fetched by its own fetch job) or the config's judges.own, read by declared
# parse rules into a score file the file metrics job reads beside the others', with the parse
# failures, duplicates, samples and pairwise choices the judges' analysis job reads (its inputs:
# judge_sources, rules/common.smk).


rule judge_scores:
    input:
        unpack(judge_sources),
    output:
        **OUT.files("judge_scores"),
    params:
        code=code("judge_scores"),
        options=lambda wc: OPTIONS.judge_scores(wc.dataset),
    priority: registry.rule_priority("judge_scores")
    log:
        OUT.log("judge_scores"),
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/judge_scores.py"
