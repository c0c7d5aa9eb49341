# Stage 6b - reference count (Lin 2004) and length / compression (Pastra & Saggion 2003): the
# systems re-scored against each single reference and under word limits; rankings, correlations
# with the human scores, and how consistent the rankings are.


rule reference_sweep:
    input:
        **data_files(),
        system_human=OUT.file("human", "systems"),
    output:
        **reported(OUT.files("reference_sweep"), "Reference count"),
    params:
        code=code("reference_sweep"),
        options=OPTIONS.reference_sweep,
    log:
        OUT.log("reference_sweep"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/reference_sweep.py"


rule length_sweep:
    input:
        **data_files(),
        system_human=OUT.file("human", "systems"),
    output:
        **reported(OUT.files("length_sweep"), "Length and compression"),
    params:
        code=code("length_sweep"),
        options=OPTIONS.length_sweep,
    log:
        OUT.log("length_sweep"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/length_sweep.py"
