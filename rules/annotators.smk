# Stage 4c - annotators as data (issue 22): Krippendorff's alpha per dimension and annotator group,
# the human ceiling (leave k annotators out, every metric against the same targets) and human parity
# (metaeval.stages.annotators). Runs for every data set; one without per-annotator judgments
# (annotations.tsv has only its header, known when the job runs) gets one note and empty tables.


rule annotators:
    input:
        unpack(analysis_inputs),
        **data_files("dataset", "annotations"),
    output:
        **reported(OUT.files("annotators"), "Annotators"),
    params:
        code=code("annotators"),
        options=OPTIONS.annotators,
    log:
        OUT.log("annotators"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/annotators.py"
