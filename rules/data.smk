# Stage 1 - data: every data set is brought into the canonical form (release files: SummEval's jsonl,
# BARTScore's unified pickles, FRANK's json, NIST DUC/TAC; or the embedded simulation), validated, and summarised
# (the validation job writes the normalised copy and its summary table).
# Importers write results/{dataset}/<importer>/; validation writes the normalised copy that every
# later stage reads, results/{dataset}/data/. The user's files are only ever read.


rule simulate_dataset:
    output:
        **OUT.files("simulate"),
    params:
        code=code("simulate_dataset"),
        name="{dataset}",
        simulation=lambda wc: OPTIONS.simulation(wc.dataset),
    log:
        OUT.log("simulate_dataset"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/simulate_dataset.py"


rule import_summeval:
    input:
        lambda wc: OPTIONS.dataset(wc.dataset)["paths"],
    output:
        **OUT.files("import_summeval"),
    params:
        code=code("import_summeval"),
        name="{dataset}",
    log:
        OUT.log("import_summeval"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/import_summeval.py"


rule import_bartscore:
    input:
        bartscore_release,
    output:
        **OUT.files("import_bartscore"),
    params:
        code=code("import_bartscore"),
        name="{dataset}",
        release=lambda wc: OPTIONS.bartscore(wc.dataset)[1],
    log:
        OUT.log("import_bartscore"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/import_bartscore.py"


rule import_frank:
    input:
        unpack(frank_release),
    output:
        **OUT.files("import_frank"),
    params:
        code=code("import_frank"),
        name="{dataset}",
    log:
        OUT.log("import_frank"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/import_frank.py"


rule import_duc_tac:
    input:
        duc_tac_inputs,
    output:
        **OUT.files("import_duc_tac"),
    params:
        code=code("import_duc_tac"),
        name="{dataset}",
        options=lambda wc: OPTIONS.duc_tac(wc.dataset),
    log:
        OUT.log("import_duc_tac"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/import_duc_tac.py"


rule validate_dataset:
    input:
        unpack(canonical_inputs),
    output:
        **OUT.files("data"),
        **OUT.files("summary"),
    params:
        code=code("validate_dataset"),
        human=lambda wc: OPTIONS.dataset(wc.dataset).get("human"),
    log:
        OUT.log("validate_dataset"),
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/validate_dataset.py"
