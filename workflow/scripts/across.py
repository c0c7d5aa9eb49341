"""One verdict across the configured data sets (results/all/): tables, figures and the report; a verdict per target."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import tables
from metaeval.logs import job_log
from metaeval.stages import across, leaderboard, leaderboard_figures, leaderboard_table
from metaeval.stages.correlation_tables import williams_reader

with job_log(snakemake.log[0], "across data sets"):
    i, o = dict(snakemake.input.items()), snakemake.params.options
    corr, will = across.load({d: i[f"correlations__{d}"] for d in o.datasets},
                             {d: i[f"williams__{d}"] for d in o.datasets}, o.combination)
    result = across.compute(corr, will, o)
    combinations = {d: {k[len("williams_"):-len(f"__{d}")]: v for k, v in i.items()
                        if k.startswith("williams_") and not k.startswith("williams__") and k.endswith(f"__{d}")}
                    for d in o.datasets}
    readers = {d: williams_reader(combinations[d], i[f"stacked__{d}"]) for d in o.datasets}
    targets = across.by_target(across.load_frames({d: i[f"correlations__{d}"] for d in o.datasets}),
                               lambda d, t: readers[d](t), o)
    board = leaderboard.read(i["leaderboard"], snakemake.params.leaderboard, i["leaderboard_tests"])
    if "delta_thresholds" in i:       # what a score difference means, pooled over the data sets
        board.deltas = leaderboard.deltas(tables.read_tsv(i["delta_thresholds"]), board)
    out = dict(snakemake.output.items())
    floor = leaderboard_figures.load_floor(i.get("leaderboard_floor"))
    if floor is not None:            # the leaderboard's floor row, as leaderboard.html shows it
        board.floors = leaderboard.board_floors(floor)
    glance = leaderboard_figures.compute(board, floor)
    leaderboard_figures.write(glance, out)
    across.write(result, out, targets, leaderboard_table.html_section(board) + leaderboard_figures.figures_html(glance, out),
                 opening=leaderboard_table.verdict_html(board))
