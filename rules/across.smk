# The leaderboard (every configured data set): every metric beside every other per benchmark,
# target and level, in results/all/leaderboard.*; adding a metric re-runs the analyses of the data
# sets it is on and this job.
# Across data sets (two or more configured): every variant's correlations side by side,
# ranks, robustly optimal variants, a replicability analysis (Dror et al. 2017), figures and a
# report, in results/all/. Adding a data set re-runs its own jobs and this one.


rule leaderboard:
    input:
        unpack(leaderboard_inputs),
    output:
        **reported(OUT.files("leaderboard", OUT.ACROSS), "Leaderboard"),
    params:
        code=code("leaderboard"),
        options=OPTIONS.leaderboard,
    priority: registry.rule_priority("leaderboard")
    log:
        OUT.log("leaderboard", OUT.ACROSS),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/leaderboard.py"


rule across:
    input:
        unpack(across_inputs),
        leaderboard=OUT.file("leaderboard", "leaderboard_tsv", OUT.ACROSS),
        leaderboard_tests=OUT.file("leaderboard", "tests_tsv", OUT.ACROSS),
        **delta_thresholds(),
        **leaderboard_floor(),
    output:
        **reported(OUT.files("across", OUT.ACROSS), "Across data sets"),
    params:
        code=code("across"),
        options=OPTIONS.across,
        leaderboard=OPTIONS.leaderboard,
    priority: registry.rule_priority("across")
    log:
        OUT.log("across", OUT.ACROSS),
    threads: 1
    resources:
        **ANALYSIS,
    conda:
        METAEVAL_ENV
    script:
        "../workflow/scripts/across.py"
