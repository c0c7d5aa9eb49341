"""A small, deterministic, rule-based sentence splitter for importers.

Importers split running text with these documented rules (the same input always gives the same
sentences). An unsupervised nltk Punkt model trained on a data set's own documents was measured
against them on SummEval and was less accurate (docs/datasets.md, "Formats"):

1. The text is split into whitespace-separated tokens; sentences are rejoined with single spaces
   only where the input had whitespace runs (the tokens themselves are kept byte for byte).
2. A sentence ends after a token that ends in ``.``, ``!`` or ``?`` (optionally followed by closing
   quotes or brackets: ``" ' ) ] ’ ”``), or that *is* such punctuation on its own (tokenised text
   such as SummEval's ``... burnley . townsend ...``),
3. unless the token is a known abbreviation (``Mr.``, ``Dr.``, ``U.S.``, ``e.g.``, ...), a single
   letter initial (``J.``), a run of letter-dot pairs (``U.N.``), or a number such as ``3.``
   followed by a lower-case token, or the next token starts with a lower-case letter while the
   current token is not stand-alone punctuation (``approx. five``).
"""

from __future__ import annotations

import re

ABBREVIATIONS = frozenset("""
mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e no nos vol fig figs gen col lt sgt capt cmdr
gov sen rep rev hon pres inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec
u.s u.k u.n a.m p.m approx dept est al
""".split())

_END = re.compile(r"""[.!?]+["')\]\u2019\u201d]*$""")
_STANDALONE = re.compile(r"""^[.!?]+["')\]\u2019\u201d]*$""")
_INITIALS = re.compile(r"^(?:[A-Za-z]\.)+$")


def _is_boundary(token: str, nxt: str | None) -> bool:
    if not _END.search(token):
        return False
    if _STANDALONE.match(token):
        return True
    core = token.rstrip("\"')]\u2019\u201d")
    if core.endswith((".",)) and not core.endswith(("..",)):
        word = core[:-1].lstrip("\"'([\u2018\u201c").lower()
        if word in ABBREVIATIONS or _INITIALS.match(core):
            return False
        if nxt is not None and nxt[:1].islower():
            return False
    return True


def split_sentences(text: str) -> list[str]:
    """Split running text into sentences by the rules in the module docstring."""
    tokens = text.split()
    sentences: list[str] = []
    current: list[str] = []
    for i, tok in enumerate(tokens):
        current.append(tok)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if _is_boundary(tok, nxt):
            sentences.append(" ".join(current))
            current = []
    if current:
        sentences.append(" ".join(current))
    return sentences
