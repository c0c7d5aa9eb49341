# The report: one self-contained HTML report per data set (its sections: metaeval.registry).


rule report:
    input:
        unpack(report_inputs),
    output:
        report=report(
            OUT.file("report", "report"),
            caption="../workflow/report/report.rst",
            category="Reports",
            subcategory="{dataset}",
        ),
    params:
        code=code("report", modules=registry.hook_modules()),
        config=lambda wc: OPTIONS.resolved(wc.dataset),
    priority: registry.rule_priority("report")
    log:
        OUT.log("report"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/report.py"
