# Archives: `snakemake --cores 2 archive` writes results/archive/{dataset}-{config hash}.tar.gz for
# every data set (results, resolved config, canonical data with checksums, versions, git commit).


rule archive:
    input:
        [f"results/archive/{d}-{mconfig.config_hash(mconfig.resolved(config, d))}.tar.gz" for d in DATASETS],


rule archive_dataset:
    input:
        lambda wc: dataset_outputs(wc.dataset),
    output:
        "results/archive/{dataset}-{confighash}.tar.gz",
    params:
        code=mconfig.code_version("archive"),
        config=lambda wc: mconfig.resolved(config, wc.dataset),
        workflow_dir=workflow.basedir,
        git=lambda wc: archive_git_state(),
    log:
        "results/archive/logs/{dataset}-{confighash}.log",
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/archive.py"
