"""Import a NIST DUC/TAC folder and its judgment tables into the canonical form."""
from metaeval.data.datasets import write_dataset
from metaeval.data.importers import import_duc_tac
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_duc_tac") as log:
    o = snakemake.params.options
    ds = import_duc_tac(o.path, name=snakemake.params.name, see_table=o.see_table, manual_peer=o.manual_peer,
                        grade_direction=o.grade_direction, one_sentence_per_line=o.one_sentence_per_line,
                        tac_columns=dict(o.tac_columns), tac_scales=dict(o.tac_scales), description=o.description,
                        source=o.source, license=o.license, citation=o.citation)
    write_dataset(ds, dict(snakemake.output.items()))
    log.info("%d summaries, %d judged", len(ds.summaries), len(ds.judgments))
