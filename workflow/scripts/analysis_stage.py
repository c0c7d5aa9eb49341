"""The door of a registered analysis stage without a door of its own (metaeval.registry): its
module's load -> compute -> write."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.door import run_stage

run_stage(snakemake)
