# Stage 6b - reference count (Lin 2004) and length / compression (Pastra & Saggion 2003): the
# systems re-scored against each single reference and under word limits; rankings, correlations
# with the human scores, and how consistent the rankings are.


rule reference_sweep:
    input:
        data=multiext("results/{dataset}/data/", *DATA_FILES),
        system_human="results/{dataset}/human/system_human.tsv",
    output:
        reported(expand("results/{{dataset}}/sweeps/{f}", f=sweep_outputs("references")), "Reference count"),
    params:
        code=mconfig.code_version("sweeps", "scoring", "rouge", "tokenize", "bleu", "graham"),
        variants=SWEEPS["variants"],
        combination=SWEEPS["combination"],
        alpha=ROUGE["alpha"],
        mode=ROUGE["multiple_references"],
    log:
        "results/{dataset}/logs/reference_sweep.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/sweep.py"


rule length_sweep:
    input:
        data=multiext("results/{dataset}/data/", *DATA_FILES),
        system_human="results/{dataset}/human/system_human.tsv",
    output:
        reported(expand("results/{{dataset}}/sweeps/{f}", f=sweep_outputs("lengths")), "Length and compression"),
    params:
        code=mconfig.code_version("sweeps", "scoring", "rouge", "tokenize", "bleu", "graham"),
        variants=SWEEPS["variants"],
        combination=SWEEPS["combination"],
        alpha=ROUGE["alpha"],
        mode=ROUGE["multiple_references"],
        word_limits=SWEEPS["word_limits"],
        compression=SWEEPS["compression"],
    log:
        "results/{dataset}/logs/length_sweep.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/sweep.py"
