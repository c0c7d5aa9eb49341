"""The generic door of a registered stage (workflow/scripts/analysis_stage.py): its module's
``load(inputs, options)`` -> ``compute(loaded, options)`` -> ``write(result, options, outputs)``,
inputs and outputs as dicts of the rule's named files, logged to the job's log.

The rule hands the door its stage's module by name (``params.module``, from the stage registry), so
the door imports neither the registry nor any stage: a job's code version covers the door, this
module and its stage's module (``code_of`` in rules/common.smk), and editing another stage's entry
re-runs nothing of this one.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import memo
from .logs import job_log


def run_stage(smk: Any) -> None:
    """Run a stage's job: ``smk`` is the ``snakemake`` object of the door (its rule named as the stage)."""
    module = importlib.import_module(smk.params.module)
    with job_log(smk.log[0], f"{smk.rule} {smk.wildcards.dataset}"):
        options = smk.params.options
        loaded = module.load(dict(smk.input.items()), options)
        # the rows of metrics that an earlier run of this job computed are read from its memo
        with memo.kept_in(smk.params.memo):
            result = module.compute(loaded, options)
        module.write(result, options, dict(smk.output.items()))
