"""metaeval: meta-evaluation of automatic summarization metrics.

The map of the package (each stage of the workflow is one module of ``stages``):

========================  ==========================================================================
``options``               the config, validated once (defaults: the schema) -> typed options per job
``outputs``               the output contract: every file of every stage, the report's sections
``variants``              metric variant ids (Graham's ``R2_ST1_RS0_A_R``, ``BLEU_ST1_RS0``, ``SERA5_PL_A``)
``tables``, ``figures``   the one table layer (TSV/Markdown via pandas) and the figure helpers
``files``, ``logs``       atomic writes; per-job logs
``forkserver``            jobs started warm: a process with the libraries imported forks each job
``forkserver_process``    the fork server's own process: preloads, forks and runs each job's child
``provenance``            code versions (import closure of a job's script), package versions, git state
``data``                  the canonical data set form, importers, the simulated default data set
``metrics``               the metric engines: ROUGE exactly as ROUGE-1.5.5, BLEU (sacrebleu), SERA
``stats``                 pure statistics with method-stating docstrings
``stages``                one module per workflow stage: load -> compute (a typed result) -> write
========================  ==========================================================================
"""

__version__ = "0.1.0"
