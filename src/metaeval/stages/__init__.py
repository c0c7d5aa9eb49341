"""One module per workflow stage (rules/*.smk), each in one shape: load its inputs -> a pure
``compute`` returning a typed result -> ``write`` to the named outputs of the output contract
(:mod:`metaeval.outputs`). The scripts in workflow/scripts/ only call these three."""
