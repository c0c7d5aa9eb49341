# The reference count (Lin 2004) and length / compression (Pastra & Saggion 2003): the
# systems re-scored against each single reference and under word limits; rankings, correlations
# with the human scores, and how consistent the rankings are. One job does both sweeps (they read
# the same data with the same libraries; two jobs cost more in start-up than the smaller sweep).


rule sweeps:
    input:
        **data_files(),
        system_human=OUT.file("human", "systems"),
    output:
        **reported({f"references_{k}": v for k, v in OUT.files("reference_sweep").items()}, "Reference count"),
        **reported({f"lengths_{k}": v for k, v in OUT.files("length_sweep").items()}, "Length and compression"),
    params:
        code=code("sweeps"),
        options=OPTIONS.sweeps,
    priority: registry.rule_priority("sweeps")
    log:
        OUT.log("sweeps"),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/sweeps.py"
