# Benchmarks of the catalog (metaeval.data.catalog; src/metaeval/data/catalog.yaml) come with the
# tool: a config's `benchmarks:` names them, and one job per benchmark, fetch_<name>, brings its
# release files from the benchmark's repository at the pinned commit (or a mirror) into the cache,
# verifies them, and copies them to results/<name>/release/ for the benchmark's import job
# (metaeval.data.fetch). The jobs run where Snakemake runs (localrule: a cluster's nodes may have
# no network).
from metaeval.data import catalog as CATALOG
from metaeval.data.fetch import Source

if OPTIONS.benchmarks:
    # where the files come from and are kept (not the jobs' record: a new mirror re-runs nothing)
    try:
        SOURCE = Source.resolve(OPTIONS.config["benchmarks_mirror"], f"{workflow.basedir}/resources/benchmarks")
    except ValueError as error:
        raise WorkflowError(str(error))


for benchmark in OPTIONS.benchmarks.values():

    rule:
        name:
            f"fetch_{benchmark.name}"
        output:
            manifest=OUT.file("fetch", "manifest", benchmark.name),
            files=list(CATALOG.fetched_files(benchmark, OUT.RESULTS).values()),
        params:
            code=code("fetch"),
            release=benchmark.release,
            source=SOURCE,
        priority: registry.rule_priority("fetch_<name>")
        log:
            OUT.log("fetch", benchmark.name),
        localrule: True
        conda:
            METAEVAL_ENV
        script:
            "../workflow/scripts/fetch.py"
