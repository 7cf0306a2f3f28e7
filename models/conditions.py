"""Map a source's condition wording onto the few classes the ranking cares about.

Sellers and marketplaces word condition in many ways and languages; the price of a
card depends heavily on whether it is used, refurbished, new or broken, so prices are
only comparable within one class.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Literal, get_args

ConditionClass = Literal["used", "refurbished", "open_box", "new", "parts", "unknown"]

# Checked in order: the first class whose pattern matches wins. "Parts" comes first
# because "New - for parts" is still a broken card; refurbished before used/new
# because "Sehr gut - Refurbished" and "Certified - Refurbished" mention grades.
_CONDITION_PATTERNS: tuple[tuple[ConditionClass, re.Pattern[str]], ...] = (
    (
        "parts",
        re.compile(
            r"for parts|not working|defekt|als ersatzteil|ersatzteile|pour pieces|"
            r"per ricambi|non funzionante|para piezas|no funciona"
        ),
    ),
    ("refurbished", re.compile(r"refurb|reconditionn|ricondizionat|generalueberholt|generalüberholt|reacondicionad")),
    (
        "open_box",
        re.compile(r"open[ -]?box|new \(other\)|new other|neu: sonstige|neu \(sonstige\)|nuovo: altro|neuf: autre"),
    ),
    (
        "used",
        re.compile(r"\bused\b|pre-?owned|gebraucht|usato|occasion|usado|d'occasion|like new|wie neu"),
    ),
    ("new", re.compile(r"\bnew\b|brand ?new|brandneu|\bneu\b|nuovo|neuf|nuevo|sealed|bnib")),
)

# Used only when the source states no condition: words in a title are weaker
# evidence, so only unambiguous ones count.
_TITLE_PATTERNS: tuple[tuple[ConditionClass, re.Pattern[str]], ...] = (
    ("parts", re.compile(r"for parts|not working|broken|defekt|as[- ]is\b|no display|no video")),
    ("refurbished", re.compile(r"refurbished|refurb\b")),
    ("open_box", re.compile(r"open[ -]?box")),
    ("new", re.compile(r"brand new|\bbnib\b|\bnib\b|factory sealed|\bsealed\b|new in box")),
    ("used", re.compile(r"\bused\b|pre-?owned|\btested\b|pulled from")),
)


_CLASSES = frozenset(get_args(ConditionClass))


def _normalized(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split())


def classify_condition(condition: str | None, title: str = "",
                       source_words: Mapping[str, str] | None = None) -> ConditionClass:
    """Class of a listing's condition; the stated condition wins over hints in the title.

    A stated condition that matches nothing known is "unknown" rather than a guess from
    the title, because the seller did say something and we could not read it.
    With no stated condition, clear words in the title decide; otherwise "unknown".
    ``source_words`` are a source's own condition phrases (phrase -> class), read before the
    shared ones, so a source in another language brings its words without editing these rules.
    """
    if condition is not None and condition.strip():
        text = _normalized(condition)
        for phrase, klass in (source_words or {}).items():
            if _normalized(phrase) in text and klass in _CLASSES:
                return klass  # type: ignore[return-value]
        for klass, pattern in _CONDITION_PATTERNS:
            if pattern.search(text):
                return klass
        return "unknown"
    text = _normalized(title)
    for klass, pattern in _TITLE_PATTERNS:
        if pattern.search(text):
            return klass
    return "unknown"
