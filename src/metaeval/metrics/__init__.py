"""Metric engines: ROUGE exactly as ROUGE-1.5.5 (``tokenize``, ``porter``, ``rouge``), BLEU through
sacrebleu's public API (``bleu``), chrF and chrF++ as sacrebleu defines them (``chrf``), and SERA's
retrieval (``sera``); what a metric family provides (``family``) and the registered families
(``families``)."""
