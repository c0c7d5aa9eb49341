"""metaeval: meta-evaluation of automatic summarization metrics.

One module per concept: ``datasets`` (the canonical form), ``importers`` (SummEval, DUC/TAC),
``simulate`` (the embedded default benchmark), ``sentences`` (rule-based splitting),
``tokenize`` and ``porter`` (ROUGE-1.5.5 preprocessing), ``rouge`` and ``bleu`` (the measures).
"""

__version__ = "0.1.0"
