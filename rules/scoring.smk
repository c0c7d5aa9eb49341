# Stage 2 - scoring: ROUGE exactly as ROUGE-1.5.5 computes it, and BLEU through sacrebleu.
# One cached token file per preprocessing setting (stemming x stop words), one score table per
# (measure, setting), gathered into summary_scores.tsv and system_scores.tsv. A changed option
# re-runs only the jobs whose params carry it (e.g. rouge.wlcs_weight reaches only RW jobs).

rule preprocess:
    input:
        summaries="results/{dataset}/data/summaries.jsonl",
        judgments="results/{dataset}/data/judgments.tsv",
        meta="results/{dataset}/data/dataset.yaml",
    output:
        "results/{dataset}/scores/tokens/ST{stem}_RS{stop}.jsonl",
    params:
        code=mconfig.code_version("datasets", "tokenize", "porter", "scoring"),
        word_limit=ROUGE["word_limit"],
        byte_limit=ROUGE["byte_limit"],
    log:
        "results/{dataset}/logs/preprocess_ST{stem}_RS{stop}.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/preprocess.py"


rule score_rouge:
    input:
        "results/{dataset}/scores/tokens/ST{stem}_RS{stop}.jsonl",
    output:
        "results/{dataset}/scores/parts/{measure}_ST{stem}_RS{stop}.tsv",
    params:
        code=mconfig.code_version("rouge", "scoring"),
        # the ROUGE-W weight reaches RW jobs only, so changing it re-scores only them
        wlcs_weight=lambda wc: ROUGE["wlcs_weight"] if wc.measure == "RW" else None,
        alpha=ROUGE["alpha"],
        mode=ROUGE["multiple_references"],
        jackknife_systems=ROUGE["jackknife_systems"],
    log:
        "results/{dataset}/logs/score_{measure}_ST{stem}_RS{stop}.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_rouge.py"


rule score_bleu:
    input:
        "results/{dataset}/scores/tokens/ST{stem}_RS{stop}.jsonl",
    output:
        summaries="results/{dataset}/scores/parts/BLEU_ST{stem}_RS{stop}.tsv",
        systems="results/{dataset}/scores/parts/BLEU_system_ST{stem}_RS{stop}.tsv",
        signature="results/{dataset}/scores/parts/BLEU_signature_ST{stem}_RS{stop}.txt",
        stats="results/{dataset}/scores/parts/BLEU_stats_ST{stem}_RS{stop}.tsv",
    params:
        code=mconfig.code_version("bleu", "rouge", "scoring"),
        jackknife_systems=ROUGE["jackknife_systems"],
        smoothing=BLEU["per_summary_smoothing"],
    log:
        "results/{dataset}/logs/score_BLEU_ST{stem}_RS{stop}.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/score_bleu.py"


rule gather_scores:
    input:
        score_parts,
    output:
        summaries="results/{dataset}/scores/summary_scores.tsv",
        systems="results/{dataset}/scores/system_scores.tsv",
        signature="results/{dataset}/scores/scoring_signature.txt",
    params:
        code=mconfig.code_version("bleu", "scoring"),
        measures=ROUGE["measures"],
        settings=SETTINGS,
        bleu=BLEU,
        rouge=ROUGE,
    log:
        "results/{dataset}/logs/gather_scores.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/gather_scores.py"
