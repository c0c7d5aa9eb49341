# Stage 7 - report: one self-contained HTML report per data set.


rule report:
    input:
        lambda wc: [f"results/{wc.dataset}/data/summary.tsv", *scoring_outputs(wc.dataset), *analysis_outputs(wc.dataset)],
    output:
        report(
            "results/{dataset}/report.html",
            caption="../workflow/report/report.rst",
            category="Reports",
            subcategory="{dataset}",
        ),
    params:
        code=mconfig.code_version("report"),
        config=lambda wc: mconfig.resolved(config, wc.dataset),
    log:
        "results/{dataset}/logs/report.log",
    threads: 1
    resources:
        mem_mb=SCALE["analysis_mem_mb"],
        runtime=SCALE["analysis_runtime"],
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/report.py"
