"""Data sets: the canonical form (``datasets``, the contract in docs/DATASET_FORMAT.md), importers of
other layouts (``importers``: SummEval jsonl, NIST DUC/TAC), the embedded simulated benchmark
(``simulate``), sentence splitting for importers (``sentences``) and pyramid annotations (``pyramid``)."""
