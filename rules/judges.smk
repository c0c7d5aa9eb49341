# LLM judges (metaeval.data.judges; docs/judges.md): a data set's judges, from a catalog release that
# joins it (LLM_summeval's, fetched by its own fetch job) or the config's judges.own, read by declared
# parse rules into a score file the file metrics job reads beside the others', with the parse
# failures, duplicates, samples and pairwise choices the judges' analysis job reads.


def judge_sources(wildcards):
    """What the judges' reading job reads: the fetch manifest of each joining catalog release (its
    files are that job's outputs) and the user's judge files."""
    named = {}
    for spec in OPTIONS.judges.get(wildcards.dataset, ()):
        if spec.layout == "llm_summeval":
            named[f"release_{Path(spec.root).parent.name}"] = OUT.file("fetch", "manifest", Path(spec.root).parent.name)
        for key in ("pointwise", "pairwise"):
            if getattr(spec, key):
                named[f"{key}_{spec.name}_{spec.method}"] = getattr(spec, key)
    return named


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
