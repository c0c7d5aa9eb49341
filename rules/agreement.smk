# Stage 5 - agreement: metric vs human verdicts on every pair of summarizers (Owczarzak et al. 2012).


rule agreement:
    input:
        unpack(analysis_inputs),
    output:
        **reported(OUT.files("agreement"), "Agreement"),
    params:
        code=code("agreement"),
        options=OPTIONS.agreement,
    log:
        OUT.log("agreement"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/agreement.py"
