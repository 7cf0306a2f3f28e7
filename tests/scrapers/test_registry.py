"""The registry is the one list of sources: every module of scrapers/sources declares one, every
declared source has a recorded fixture and a parser test, and every list that names sources agrees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuvalue.scrapers import registry
from gpuvalue.scrapers.source import KNOWN_KINDS, Source

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "fixtures"


def _test_texts() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py")}


def test_every_source_module_declares_a_source():
    for module in registry.source_modules():
        assert isinstance(getattr(module, "SOURCE", None), Source), f"{module.__name__} declares no SOURCE"


def test_names_are_unique_and_kinds_known():
    sources = registry.all_sources()
    aliases = [a for s in sources.values() for a in s.aliases]
    assert len(aliases) == len(set(aliases)) and not set(aliases) & set(sources)
    assert all(s.kind in KNOWN_KINDS for s in sources.values())


def test_every_price_index_names_itself_for_the_prices_it_supplies():
    """Its prices are shown as "index price of <month> (<label>, ...)": a raw registry name there would
    read as a code, not as whose average it is."""
    for name, src in registry.all_sources().items():
        if src.kind == "price_index":
            assert src.label and src.label != name, f"{name}: a price index declares the label its prices show"


@pytest.mark.parametrize("name", registry.all_sources())
def test_every_source_has_a_fixture_and_a_parser_test(name):
    src = registry.get(name)
    short = registry.module_of(name).__name__.rsplit(".", 1)[1]
    if src.parse is not None:
        assert src.fixtures, f"{name}: no recorded fixture declared"
        for rel in src.fixtures:
            assert (FIXTURES / rel).exists(), f"{name}: declared fixture tests/fixtures/{rel} is missing"
    mention = re.compile(rf"scrapers\.sources\.{short}\b|scrapers\.sources import [^\n]*\b{short}\b")
    testing = [p for p, text in _test_texts().items() if mention.search(text)]
    assert testing, f"{name}: no test imports gpuvalue.scrapers.sources.{short}"


def test_every_list_that_names_sources_reads_the_registry():
    from gpuvalue.flows.cli.sources_cli import parsing_sources
    from gpuvalue.flows.settings import ALL_SOURCES, Settings

    sources = registry.all_sources()
    assert set(ALL_SOURCES) == {n for n, s in sources.items() if s.default}
    assert set(parsing_sources()) == {n for n, s in sources.items() if s.parse or s.inspect}
    assert set(registry.catalog()) == set(sources)
    spec = [n for n, s in sources.items() if s.kind == "spec"]
    assert set(registry.spec_precedence()) == set(spec)
    assert all(sources[n].spec_precedence is not None for n in spec), "a spec source without a precedence"
    # Each source's own settings are fields of the run's settings.
    fields = Settings.model_fields
    for s in sources.values():
        if s.settings is not None:
            assert set(s.settings.model_fields) <= set(fields), s.name


def test_every_source_is_named_with_its_licence_in_the_readme():
    """Adding a source includes its line under "Data sources and licences" in docs/sources.md: the
    attribution a user of the exports reads first."""
    readme = (TESTS.parent / "docs" / "sources.md").read_text(encoding="utf-8")
    section = readme.split("## Data sources and licences", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z0-9-]+)`", section))
    missing = sorted(set(registry.all_sources()) - named)
    assert missing == [], (f"no line names {', '.join(missing)} in docs/sources.md's \"Data sources and licences\" "
                           "(the source's name in backticks, where its data comes from and its licence)")


def test_the_sources_setting_points_to_the_one_list_of_sources():
    """docs/commands.md's GPUVALUE_SOURCES row keeps no list of its own (a new source would have to be
    added there too): it points to docs/sources.md, which names every source."""
    readme = (TESTS.parent / "docs" / "commands.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `GPUVALUE_SOURCES` |"))
    assert "docs/sources.md" in row
    named = set(re.findall(r"`([a-z0-9-]+)`", row)) & set(registry.all_sources())
    assert not named, f"the row names sources itself: {', '.join(sorted(named))}"


def test_former_names_still_resolve():
    assert registry.canonical("wikipedia-live") == "wikipedia"
    assert registry.canonical("wikipedia-gpus") == "wikipedia"
    with pytest.raises(KeyError, match="unknown source 'craigslist'"):
        registry.get("craigslist")


def test_the_replay_archive_is_what_the_sources_record():
    """Every recording in the shipped archive belongs to a registered source with a replay builder."""
    from gpuvalue.scrapers.archive import Archive
    from gpuvalue.scrapers.replay import packaged_replay_dir

    recorded = Archive(packaged_replay_dir()).sources()
    sources = registry.all_sources()
    assert recorded <= set(sources)
    assert all(sources[n].replay is not None for n in recorded)
