# Archives: `snakemake --cores 2 archive` writes results/archive/{dataset}-{config hash}.tar.gz for
# every data set (results, resolved config, canonical data with checksums, versions, git commit).


rule archive:
    input:
        [OUT.ARCHIVE.format(dataset=d, confighash=OPTIONS.config_hash(d)) for d in DATASETS],


rule archive_dataset:
    input:
        results=lambda wc: final_outputs(wc.dataset),
        score_files=file_metric_sources,
    output:
        OUT.ARCHIVE,
    params:
        code=code("archive"),
        config=lambda wc: OPTIONS.resolved(wc.dataset),
        results=lambda wc: OUT.dataset_dir(wc.dataset),
        git=lambda wc: git_state(workflow.basedir),
    priority: registry.rule_priority("archive_dataset")
    log:
        OUT.ARCHIVE_LOG,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/archive.py"
