"""Money as people write it, read by one set of rules for every source and the CSV import.

A price reaches gpuvalue as eBay's "EUR 1.234,56", a Reddit post's "450 CAD shipped", a
spreadsheet cell "499,99" or "1 234,56 zł", a catalog's "$1.10". The rules:

- Digits are ASCII only and never carry underscores: Python's ``float`` reads "1_000" and
  Arabic-Indic "١٢٣" as numbers, and a price nobody writes that way must not slip in as one.
- Thousands separators are ",", ".", "'" and spaces (plain, no-break, narrow no-break), each group
  exactly three digits after a first group of one to three digits that does not start with 0.
- With both "," and "." the later one is the decimal mark. With only one of them, once, followed by
  one or two digits it is the decimal mark ("499,99", "1.5"); followed by three it groups thousands
  ("1.234" euros is 1,234: no used GPU costs one euro), unless the number starts with "0" ("0.125");
  a point before four or more digits is a program's decimal point ("8.449999999999999").
  A writer whose decimal mark is known (a program's CSV, an eBay site's locale) passes ``decimal``.
- The currency is the symbol or word beside the number ("CA$", "zł", "Ft", "US $", "EUR"); a bare
  "$" or "kr" is the dollar or krone of the place the text came from (the caller's ``default``):
  "$" alone does not say whose dollar it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

# Symbols and words written beside an amount -> ISO 4217 (matched case-insensitively, longest first).
CURRENCY_WORDS: dict[str, str] = {
    "US$": "USD", "US $": "USD", "USD": "USD",
    "CA$": "CAD", "C$": "CAD", "CAD": "CAD", "CDN$": "CAD", "CDN": "CAD",
    "AU$": "AUD", "A$": "AUD", "AUD": "AUD",
    "NZ$": "NZD", "NZD": "NZD", "HK$": "HKD", "HKD": "HKD", "S$": "SGD", "SGD": "SGD",
    "£": "GBP", "GBP": "GBP",
    "€": "EUR", "EUR": "EUR", "EURO": "EUR", "EUROS": "EUR",
    "CHF": "CHF", "SFR.": "CHF",
    "ZŁ": "PLN", "PLN": "PLN",
    "FT": "HUF", "HUF": "HUF",
    "KČ": "CZK", "CZK": "CZK",
    "SEK": "SEK", "NOK": "NOK", "DKK": "DKK", "ISK": "ISK",
    "¥": "JPY", "JPY": "JPY", "CNY": "CNY", "RMB": "CNY",
    "₹": "INR", "INR": "INR", "₩": "KRW", "KRW": "KRW",
    "R$": "BRL", "BRL": "BRL", "RON": "RON", "BGN": "BGN", "TRY": "TRY", "₺": "TRY",
    "MXN": "MXN", "ZAR": "ZAR",
}
# Written alone, "$" names a dollar and "kr" a krone without saying whose: the default decides.
DOLLARS = frozenset({"USD", "CAD", "AUD", "NZD", "HKD", "SGD", "MXN"})
KRONER = frozenset({"SEK", "NOK", "DKK", "ISK"})
_AMBIGUOUS = {"$": DOLLARS, "BUCKS": DOLLARS, "KR": KRONER, "KR.": KRONER}

_GROUP_SEPARATORS = ",.'\u00a0\u202f "
_NUMBER = r"[0-9](?:[0-9]|[,.'\u00a0\u202f ](?=[0-9]))*"


# Written only in this case: "Ft" is the forint, "6 ft" of cable is no price; "try 300" and "Ron" are words.
_EXACT_CASE = {"FT": "Ft", "TRY": "TRY", "RON": "RON"}


def _word_pattern(word: str) -> str:
    if word in _EXACT_CASE:
        return rf"(?<![A-Za-z])(?-i:{_EXACT_CASE[word]})(?![A-Za-z])"
    escaped = re.escape(word).replace(r"\ ", r"\s?")
    if len(word) > 1 and word.endswith("$") and word[-2] != " ":
        escaped = re.escape(word[:-1]) + r"\s?\$"  # eBay Canada writes "C $450.00"
    if word.isascii() and word[0].isalpha():  # a word: not inside another word ("EURO" in "EUROPE")
        return rf"(?<![A-Za-z]){escaped}(?![A-Za-z])"
    return escaped


_CURRENCY = "|".join([_word_pattern(w) for w in sorted(CURRENCY_WORDS, key=len, reverse=True)]
                     + [r"\$", r"(?<![A-Za-z])kr\.?(?![A-Za-z])", r"(?<![A-Za-z])bucks(?![A-Za-z])"])
# An amount with an optional currency before or after it. The lookarounds keep digits glued to
# letters, dots or underscores ("rtx3080", "1_000", "v1.2") from being read as an amount.
_MONEY = re.compile(
    rf"(?:(?P<pre>{_CURRENCY})\s?|(?<![0-9A-Za-z_.,]))(?P<num>{_NUMBER})(?![0-9_])(?:\s?(?P<post>{_CURRENCY}))?",
    re.IGNORECASE,
)
_CELL = re.compile(rf"\s*(?P<pre>{_CURRENCY})?\s*(?P<sign>[+-])?\s*(?P<pre2>{_CURRENCY})?\s*(?P<num>{_NUMBER})"
                   rf"\s*(?P<post>{_CURRENCY})?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str | None  # ISO 4217; None: no currency written and no default, or an ambiguous "$"/"kr"
    written: str | None = None  # the currency as the text wrote it ("zł", "CA$"), None where none was
    span: tuple[int, int] | None = field(default=None, compare=False)  # where free text held it


def currency_of(word: str | None, default: str | None = None) -> str | None:
    """ISO code for a written currency ("zł" -> PLN, "CA$" -> CAD); a bare "$" or "kr" is
    ``default`` when that is a dollar or a krone; with no default a "$" is the US dollar."""
    if not word:
        return default
    token = re.sub(r"\s+", "", word).upper()
    if token in _AMBIGUOUS:
        if default in _AMBIGUOUS[token]:
            return default
        return "USD" if token == "$" and default is None else None
    return CURRENCY_WORDS.get(token) or CURRENCY_WORDS.get(token.replace("$", " $"))


def parse_amount(text: str, *, decimal: str | None = None) -> float | None:
    """The number ``text`` is, written as prices are written, or None ("1.234,56" -> 1234.56)."""
    raw = text.strip().replace("\u00a0", " ").replace("\u202f", " ")
    if not raw or not re.fullmatch(_NUMBER, raw):
        return None
    return _number(raw, decimal)


def parse_price(text: str, *, default: str | None = None, decimal: str | None = None,
                signed: bool = False) -> Money | None:
    """A cell that is one price: an amount with at most one currency before or after it
    ("EUR 1.234,56", "1 234,56 zł", "US $1,200.00", "499,99"); None when it is anything else.
    ``signed`` reads a leading sign (an import reports a negative price rather than an unreadable one)."""
    if _PLAIN.fullmatch(text):  # most cells of an export: "600", "10.9"
        return Money(float(text), default, None)
    return _parse_price(text, default, decimal, signed)


_PLAIN = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,2})?")


@lru_cache(maxsize=8192)  # an export repeats its prices ("$1,200.00") row after row
def _parse_price(text: str, default: str | None, decimal: str | None, signed: bool) -> Money | None:
    match = _CELL.fullmatch(text.replace("\u00a0", " ").replace("\u202f", " "))
    if match is None:
        return None
    words = [w for w in (match.group("pre"), match.group("pre2"), match.group("post")) if w]
    if len({currency_of(w, default) for w in words}) > 1 or (match.group("sign") and not signed):
        return None  # "EUR 5 USD": two currencies for one amount
    value = _number(match.group("num"), decimal)
    if value is None:
        return None
    if match.group("sign") == "-":
        value = -value
    word = words[0] if words else None
    return Money(value, currency_of(word, default), word)


def iter_prices(text: str, *, default: str | None = None, decimal: str | None = None) -> Iterator[Money]:
    """Every amount in free text that has a currency written beside it, in order.

    A currency between two numbers belongs to the one it is written against: "RTX 3090 $500" is
    500 (the "$" touches 500), and a number that names a model ("RTX 3090 USD 700") is never an
    amount, whatever is written after it."""
    clean = text.replace("\u00a0", " ").replace("\u202f", " ")
    position = 0
    while True:
        match = _MONEY.search(clean, position)
        if match is None:
            return
        position = match.end()
        word = match.group("pre") or match.group("post")
        if not word:
            continue
        raw = match.group("num").rstrip()
        start = match.start("num")
        value = _number(raw, decimal)
        if value is None and " " in raw:
            # "RTX 3080 450 CAD": the spaces were no grouping; the amount is the part beside the currency.
            if match.group("pre"):
                raw = raw.split(" ")[0]
            else:
                start += raw.rindex(" ") + 1
                raw = raw.rsplit(" ", 1)[1]
            value = _number(raw, decimal)
        if not match.group("pre") and _post_belongs_elsewhere(clean, match, start):
            position = match.end("num")  # read the currency again, as the next number's
            continue
        if value is not None:
            yield Money(value, currency_of(word, default), word, span=match.span())


# A product family written before its model number: the number names the card, never its price.
_MODEL_FAMILY = re.compile(
    r"(?<![A-Za-z])(?:rtx|gtx|gts|gt|rx|r9|r7|hd|titan|quadro|radeon|arc|tesla|geforce|vega|xeon|ryzen\s?[3579]?"
    r"|core\s?i[3579])\s?-?\s?$",
    re.IGNORECASE,
)


# A card's number written alone ("4090 USD 1600"): GeForce 1050 to 5090 and 1650/1660, Radeon 5500 to 7900 and
# 9060/9070. Only read as a model where another amount follows the currency.
_MODEL_NUMBER = re.compile(r"[1-5]0[5-9]0|16[56]0|[5-7][0-9]00|90[67]0")


def _post_belongs_elsewhere(text: str, match: re.Match[str], amount_start: int) -> bool:
    """Whether a currency written after a number is not that number's: it touches the next number
    ("3090 $500"), it is a sign as near the next number as this one ("3090 $ 500": signs lead), or
    the number (starting at ``amount_start``) is a model's and an amount follows ("RTX 3090 USD 700")."""
    after = text[match.end():match.end() + 2]
    if after[:1].isdigit():
        return True
    sign = not match.group("post").rstrip(".")[-1:].isalpha()
    spaced = match.start("post") > match.end("num") or match.group("num").endswith(" ")
    if sign and spaced and after[:1] == " " and after[1:2].isdigit():
        return True
    # "RTX 3090 USD 700": with an amount after it the currency is that amount's; "Titan RTX 300$" is money.
    if not re.match(r"\s?[0-9]", after):
        return False
    amount = text[amount_start:match.start("post")].strip()
    return bool(_MODEL_NUMBER.fullmatch(amount) or _MODEL_FAMILY.search(text, max(0, amount_start - 20), amount_start))


def find_price(text: str, *, default: str | None = None, decimal: str | None = None) -> Money | None:
    """The first amount in free text with a currency beside it, else a lone amount in ``default``."""
    for money in iter_prices(text, default=default, decimal=decimal):
        return money
    bare = [m for m in _MONEY.finditer(text.replace("\u00a0", " ").replace("\u202f", " "))]
    if len(bare) == 1:
        value = _number(bare[0].group("num").rstrip(), decimal)
        if value is not None:
            return Money(value, default, None)
    return None


def _number(raw: str, decimal: str | None) -> float | None:
    if decimal is None:
        decimal = _decimal_mark(raw)
        if decimal is None:
            return None
    if decimal and raw.count(decimal) > 1:
        return None
    whole, fraction = raw.rsplit(decimal, 1) if decimal and decimal in raw else (raw, "")
    if fraction and not fraction.isdigit():
        return None
    separators = {c for c in whole if c in _GROUP_SEPARATORS}
    if len(separators) > 1:
        return None  # "1.234 567": two kinds of grouping in one number
    groups = re.split(r"[,.'\u00a0\u202f ]", whole) if separators else [whole]
    if len(groups) > 1 and (not 1 <= len(groups[0]) <= 3 or (groups[0].startswith("0"))
                            or any(len(g) != 3 for g in groups[1:])):
        return None
    return float("".join(groups) + (f".{fraction}" if fraction else ""))


def _decimal_mark(raw: str) -> str | None:
    """Which of "," and "." is the decimal mark ("" for neither), None when no rule can tell."""
    last_comma, last_dot = raw.rfind(","), raw.rfind(".")
    if last_comma >= 0 and last_dot >= 0:
        return "," if last_comma > last_dot else "."
    mark = "," if last_comma >= 0 else "." if last_dot >= 0 else ""
    if not mark or raw.count(mark) > 1:
        return ""  # no mark, or "1.234.567": grouping only
    head, tail = raw.rsplit(mark, 1)
    if len(tail) in (1, 2):
        return mark
    if len(tail) == 3:
        if head.startswith("0") or any(c in head for c in "'\u00a0\u202f "):
            return mark  # "0.125", "1 234.567": not a thousands group
        return ""
    if mark == ".":
        return mark  # "8.449999999999999": a program's decimal point (a thousands group has three digits)
    return None  # "4,9999": neither a grouping nor a price's decimals
