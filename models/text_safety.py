"""Control characters in third-party text: removed on ingest, shown escaped on output.

Sellers and posters write listing titles, and a title holding ``ESC ] 0 ; ... BEL`` or ``ESC [ 31 m``
printed raw retitles or recolours the reader's terminal (some terminals act on C1 controls such as
U+009B too). Text coming in loses its terminal escape sequences whole (their payload is no words a
buyer wrote) and every other C0/C1 control; text going out, which may be older than that rule or
come from elsewhere, shows any control left as a visible ``\\x1b``.
"""

from __future__ import annotations

import re

# Whole escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other ESC + one byte.
ESCAPE_SEQUENCE = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
# Every C0 control, DEL and every C1 control (U+0080-U+009F).
CONTROL = r"[\x00-\x1f\x7f-\x9f]"
WHITESPACE_CONTROL = r"[\t\n\r\x0b\x0c]"
# The same for Arrow's RE2, which writes a code point above 0x7f as \x{..}.
ARROW_ESCAPE_SEQUENCE = ESCAPE_SEQUENCE
ARROW_CONTROL = r"[\x00-\x1f\x7f-\x{9f}]"

_SEQUENCE = re.compile(ESCAPE_SEQUENCE)
_CONTROL = re.compile(CONTROL)
_WHITESPACE_CONTROL = re.compile(WHITESPACE_CONTROL)
_SHOWN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline stay where text may hold them
_JSON_UNESCAPED = re.compile(r"[\x7f-\x9f]")  # json.dumps(ensure_ascii=False) escapes C0 only




def clean_text(text: str) -> str:
    """One line of third-party text without controls: escape sequences dropped whole, tabs and line
    breaks as spaces, every other control dropped."""
    if text.isprintable():
        return text
    return _CONTROL.sub("", _WHITESPACE_CONTROL.sub(" ", _SEQUENCE.sub("", text)))


def escape_controls(text: str) -> str:
    """Text fit for a terminal or a file: each control but tab and newline as ``\\xNN``."""
    if text.isprintable():
        return text
    return _SHOWN.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def json_controls_escaped(text: str) -> str:
    """JSON written with ``ensure_ascii=False`` with DEL and the C1 controls as ``\\u00NN`` too
    (they can stand only inside its strings, where the escape means the same character)."""
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
