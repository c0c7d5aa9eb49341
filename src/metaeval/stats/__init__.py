"""Pure statistics, each with the method and its source in its docstring: the core every stage calls
(``core``: Pearson's r, ranks, the bootstrap engine, the percentile interval), correlations
(``correlation``), bootstrap intervals of correlations (``bootstrap``), Williams tests (``williams``),
Wilcoxon verdicts and their agreement (``verdicts``), pairwise system tests (``pairwise``), and
ROUGE-1.5.5's bootstrap of system scores (``rouge_bootstrap``)."""
