"""The leaderboard: every metric beside every other per benchmark, target and level (results/all/)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import tables
from metaeval.logs import job_log
from metaeval.stages import leaderboard
from metaeval.stages.correlation_tables import williams_reader

with job_log(snakemake.log[0], "leaderboard") as log:
    i, o = dict(snakemake.input.items()), snakemake.params.options
    datasets = []
    for d in o.datasets:
        mine = {k[: -len(f"__{d}")]: v for k, v in i.items() if k.endswith(f"__{d}")}
        combinations = {k[len("williams_"):]: v for k, v in mine.items() if k.startswith("williams_")}
        datasets.append(leaderboard.load_dataset(d, mine, williams_reader(combinations, mine["stacked"])))
    thresholds = tables.read_tsv(i["thresholds"]) if "thresholds" in i else None
    board = leaderboard.compute(datasets, o, thresholds)
    log.info("%d columns x %d metrics (%d focus)", len(board.columns), len(board.metrics), len(board.focus))
    for note in board.notes:
        log.info("%s", note)
    leaderboard.write(board, dict(snakemake.output.items()))
