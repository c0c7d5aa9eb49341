"""The door of a registered analysis stage without a door of its own (metaeval.registry): its
module's load -> compute -> write."""
from metaeval.registry import run_stage

run_stage(snakemake)
