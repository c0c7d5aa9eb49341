# Stage 2 - scoring: ROUGE exactly as ROUGE-1.5.5 computes it, BLEU through sacrebleu, SERA
# (retrieval-based, over an index built once per data set), and ROUGE-1.5.5's bootstrap intervals.
# One cached token file per preprocessing setting (stemming x stop words) and topic shard, one
# score table per (measure, setting, shard), gathered into summary_scores.tsv and
# system_scores.tsv. A changed option re-runs only the jobs whose params carry it (e.g.
# rouge.wlcs_weight reaches only the RW jobs); scale.shards splits the topics for large corpora.


rule preprocess:
    input:
        summaries="results/{dataset}/data/summaries.jsonl",
        judgments="results/{dataset}/data/judgments.tsv",
        meta="results/{dataset}/data/dataset.yaml",
    output:
        expand("results/{{dataset}}/scores/tokens/ST{{stem}}_RS{{stop}}.shard{k}.jsonl", k=SHARDS),
    params:
        code=mconfig.code_version("datasets", "tokenize", "porter", "scoring"),
        word_limit=ROUGE["word_limit"],
        byte_limit=ROUGE["byte_limit"],
        shards=SCALE["shards"],
    log:
        "results/{dataset}/logs/preprocess_ST{stem}_RS{stop}.log",
    resources:
        mem_mb=SCALE["scoring_mem_mb"],
        runtime=SCALE["scoring_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/preprocess.py"


rule score_rouge:
    input:
        "results/{dataset}/scores/tokens/ST{stem}_RS{stop}.shard{shard}.jsonl",
    output:
        "results/{dataset}/scores/parts/{measure}_ST{stem}_RS{stop}.shard{shard}.tsv",
    params:
        code=mconfig.code_version("rouge", "scoring"),
        # the ROUGE-W weight reaches RW jobs only, so changing it re-scores only them
        wlcs_weight=lambda wc: ROUGE["wlcs_weight"] if wc.measure == "RW" else None,
        alpha=ROUGE["alpha"],
        mode=ROUGE["multiple_references"],
        jackknife_systems=ROUGE["jackknife_systems"],
    log:
        "results/{dataset}/logs/score_{measure}_ST{stem}_RS{stop}.shard{shard}.log",
    threads: 1
    resources:
        mem_mb=SCALE["scoring_mem_mb"],
        runtime=SCALE["scoring_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_rouge.py"


rule score_bleu:
    input:
        "results/{dataset}/scores/tokens/ST{stem}_RS{stop}.shard{shard}.jsonl",
    output:
        summaries="results/{dataset}/scores/parts/BLEU_ST{stem}_RS{stop}.shard{shard}.tsv",
        stats="results/{dataset}/scores/parts/BLEU_stats_ST{stem}_RS{stop}.shard{shard}.tsv",
        signature="results/{dataset}/scores/parts/BLEU_signature_ST{stem}_RS{stop}.shard{shard}.txt",
    params:
        code=mconfig.code_version("bleu", "rouge", "scoring"),
        jackknife_systems=ROUGE["jackknife_systems"],
        smoothing=BLEU["per_summary_smoothing"],
    log:
        "results/{dataset}/logs/score_BLEU_ST{stem}_RS{stop}.shard{shard}.log",
    threads: 1
    resources:
        mem_mb=SCALE["scoring_mem_mb"],
        runtime=SCALE["scoring_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_bleu.py"


rule sera_index:
    input:
        sera_corpus,
    output:
        "results/{dataset}/scores/sera/index.zip",
    params:
        code=mconfig.code_version("sera", "tokenize", "porter"),
        stemming=SERA["stemming"],
    log:
        "results/{dataset}/logs/sera_index.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/sera_index.py"


rule score_sera:
    input:
        index="results/{dataset}/scores/sera/index.zip",
        summaries="results/{dataset}/data/summaries.jsonl",
        judgments="results/{dataset}/data/judgments.tsv",
        meta="results/{dataset}/data/dataset.yaml",
    output:
        scores="results/{dataset}/scores/sera_scores.tsv",
        signature="results/{dataset}/scores/sera/signature.txt",
    params:
        code=mconfig.code_version("sera", "datasets", "tokenize"),
        cutoffs=SERA["cutoffs"],
        queries=SERA["queries"],
        model=SERA["model"],
        # each model's own parameters only, so changing the other's re-runs nothing
        mu=SERA["mu"] if SERA["model"] == "lm_dirichlet" else None,
        bm25=[SERA["bm25_k1"], SERA["bm25_b"]] if SERA["model"] == "bm25" else None,
        corpus=SERA["corpus"],
    log:
        "results/{dataset}/logs/score_sera.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_sera.py"


rule system_intervals:
    input:
        "results/{dataset}/scores/summary_scores.tsv",
    output:
        reported(expand("results/{{dataset}}/intervals/{f}", f=INTERVAL_OUTPUTS), "Confidence intervals"),
    params:
        code=mconfig.code_version("intervals", "graham"),
        resamples=INTERVALS["resamples"],
        confidence=INTERVALS["confidence"],
        seed=INTERVALS["seed"],
        shown=INTERVALS["shown"],
    log:
        "results/{dataset}/logs/system_intervals.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/system_intervals.py"


rule gather_scores:
    input:
        unpack(sera_scores),
        parts=score_parts,
    output:
        summaries="results/{dataset}/scores/summary_scores.tsv",
        systems="results/{dataset}/scores/system_scores.tsv",
        signature="results/{dataset}/scores/scoring_signature.txt",
        bleu_stats=expand("results/{{dataset}}/scores/bleu_stats_ST{s}_RS{r}.tsv", zip,
                          s=[s for s, _ in SETTINGS], r=[r for _, r in SETTINGS]) if BLEU["enabled"] else [],
    params:
        code=mconfig.code_version("bleu", "scoring"),
        measures=ROUGE["measures"],
        settings=SETTINGS,
        shards=SCALE["shards"],
        bleu=BLEU,
        rouge=ROUGE,
    log:
        "results/{dataset}/logs/gather_scores.log",
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/gather_scores.py"
