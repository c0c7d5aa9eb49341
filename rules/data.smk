# Stage 1 - data: every data set is brought into the canonical form, validated, and summarised.
# Importers write results/{dataset}/<importer>/; validation writes the normalised copy that every
# later stage reads, results/{dataset}/data/. The user's files are only ever read.


rule simulate_dataset:
    output:
        multiext("results/{dataset}/simulate/", *DATA_FILES),
    params:
        code=mconfig.code_version("datasets", "simulate"),
        name="{dataset}",
        settings=lambda wc: mconfig.simulation_params(dataset_entry(wc.dataset)),
    log:
        "results/{dataset}/logs/simulate_dataset.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/simulate_dataset.py"


rule import_summeval:
    input:
        lambda wc: dataset_entry(wc.dataset)["paths"],
    output:
        multiext("results/{dataset}/import_summeval/", *DATA_FILES),
    params:
        code=mconfig.code_version("datasets", "importers", "sentences"),
        name="{dataset}",
    log:
        "results/{dataset}/logs/import_summeval.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/import_summeval.py"


rule import_duc_tac:
    input:
        duc_tac_inputs,
    output:
        multiext("results/{dataset}/import_duc_tac/", *DATA_FILES),
    params:
        code=mconfig.code_version("datasets", "importers", "sentences"),
        name="{dataset}",
        settings=lambda wc: {k: v for k, v in dataset_entry(wc.dataset).items() if k not in ("format", "human")},
    log:
        "results/{dataset}/logs/import_duc_tac.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/import_duc_tac.py"


rule validate_dataset:
    input:
        unpack(canonical_inputs),
    output:
        multiext("results/{dataset}/data/", *DATA_FILES),
    params:
        code=mconfig.code_version("datasets"),
        human=lambda wc: dataset_entry(wc.dataset).get("human"),
    log:
        "results/{dataset}/logs/validate_dataset.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/validate_dataset.py"


rule summarize_dataset:
    input:
        multiext("results/{dataset}/data/", *DATA_FILES),
    output:
        "results/{dataset}/data/summary.tsv",
    params:
        code=mconfig.code_version("datasets"),
    log:
        "results/{dataset}/logs/summarize_dataset.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/summarize_dataset.py"
