"""The ECB's euro reference-rate files as recorded (tests/fixtures/fx/ecb: the rates of 2025-11-10 and 2026-07-06)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import ecb

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def rates(fixture: str) -> dict[str, float]:
    parsed = ecb.parse_ecb_rates((FIXTURES / fixture).read_bytes(), ecb.DAILY_URL)
    assert len({r.rate_date for r in parsed}) == 1
    return {r.currency: r.usd_per_unit for r in parsed}


def test_usd_per_unit_is_the_euro_cross_rate():
    july = rates("fx/ecb/eurofxref-daily_2026-07-06.xml")
    assert july["EUR"] == pytest.approx(1.1415)  # the USD quote itself
    assert july["GBP"] == pytest.approx(1.1415 / 0.85538)
    assert july["JPY"] == pytest.approx(1.1415 / 185.31)
    assert "USD" not in july  # a dollar is a dollar
    assert len(july) == 29  # 29 quotes: USD becomes EUR's rate


def test_the_2025_file_still_has_the_lev():
    november = rates("fx/ecb/eurofxref-daily_2025-11-10.xml")
    assert "BGN" in november and len(november) == 30  # Bulgaria adopted the euro on 2026-01-01
    assert all(r.rate_date == date(2025, 11, 10) and r.source == "ecb"
               for r in ecb.parse_ecb_rates((FIXTURES / "fx/ecb/eurofxref-daily_2025-11-10.xml").read_bytes(), "x"))


def test_a_file_declaring_entities_is_refused_though_it_reads_otherwise():
    body = (FIXTURES / "fx/ecb/eurofxref-daily_2025-11-10.xml").read_bytes()
    declared = body.replace(b"?>", b'?><!DOCTYPE x [<!ENTITY a "b">]>', 1)
    assert declared != body and ecb.parse_ecb_rates(body, "x")
    with pytest.raises(ParseError, match="document type declaration"):
        ecb.parse_ecb_rates(declared, "x")


def test_a_history_file_gives_every_day():
    body = b"""<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time="2026-07-03"><Cube currency="USD" rate="1.14"/><Cube currency="GBP" rate="0.855"/></Cube>
<Cube time="2026-07-02"><Cube currency="USD" rate="1.13"/><Cube currency="GBP" rate="0.85"/></Cube>
<Cube time="2026-07-01"><Cube currency="GBP" rate="0.85"/></Cube></Cube></gesmes:Envelope>"""
    parsed = ecb.parse_ecb_rates(body, ecb.HIST_90D_URL)
    assert [(r.rate_date.day, r.currency) for r in parsed] == [(2, "EUR"), (2, "GBP"), (3, "EUR"), (3, "GBP")]


@pytest.mark.parametrize("body", [
    b"", b"<html><body>Access denied</body></html>", b"not xml at all",
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><gesmes:Envelope xmlns:gesmes="g">&lol;</gesmes:Envelope>',
    b'<gesmes:Envelope xmlns:gesmes="g"><Cube/></gesmes:Envelope>',
    b'<gesmes:Envelope xmlns:gesmes="g"><Cube><Cube time="July"><Cube currency="USD" rate="1.1"/></Cube></Cube></gesmes:Envelope>',
    b'<gesmes:Envelope xmlns:gesmes="g"><Cube><Cube time="2026-07-06"><Cube currency="USD" rate="-1"/></Cube></Cube></gesmes:Envelope>',
])
def test_a_page_that_is_not_a_rate_file_is_a_parse_error(body):
    with pytest.raises(ParseError):
        ecb.parse_ecb_rates(body, ecb.DAILY_URL)


def test_the_replay_serves_both_days_and_the_newest_under_the_ecbs_url():
    recordings = list(ecb._replay(FIXTURES))
    urls = [r.page.url for r in recordings]
    assert urls == [ecb.pinned_url(c) for c, _, _ in ecb.RECORDED] + [ecb.DAILY_URL]
    assert [r.page.fetched_at.date() for r in recordings] == [date(2025, 11, 10), date(2026, 7, 6), date(2026, 7, 6)]


class _Client:
    def __init__(self) -> None:
        self.urls: list[str] = []

    def get(self, url, *, source, headers=None):
        from gpuvalue.scrapers.source import page_from_file

        self.urls.append(url)
        return page_from_file(source, (FIXTURES / "fx/ecb/eurofxref-daily_2026-07-06.xml").read_bytes(), url)


@pytest.mark.parametrize(("replay", "full", "first"), [
    (False, False, ecb.HIST_90D_URL), (False, True, ecb.HIST_URL), (True, False, ecb.pinned_url(ecb.RECORDED[0][0]))])
def test_a_run_reads_the_daily_file_after_the_history_it_asks_for(replay, full, first):
    from gpuvalue.flows.settings import Settings
    from gpuvalue.scrapers.source import FetchContext

    client = _Client()
    fetched = ecb._fetch(FetchContext(client=client, settings=Settings(ecb_full_history=full), replay=replay))
    assert client.urls == [first, ecb.DAILY_URL] and len(fetched.pages) == 2
