"""Dating a file kept in a GitHub repository by the commit that last changed it: the commits API's
answer read, and the rules for a version's date when that answer, a known version or both say."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime

import pytest

from gpuvalue.scrapers.github_commits import (
    LastCommit,
    TableDate,
    dated_table_parsers,
    last_commit_url,
    raw_url,
    read_last_commit,
    table_date,
)
from gpuvalue.scrapers.http import DEFAULT_ROBOTS_EXEMPT_HOSTS
from gpuvalue.scrapers.source import page_from_file

SHA = "b646e30673738a5a60ab299659bf2f012e59be93"
READ = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def _answer(date_text: str, sha: str = SHA) -> bytes:
    return json.dumps([{"sha": sha, "commit": {"author": {"date": "2020-01-01T00:00:00Z"},
                                               "committer": {"date": date_text}}}]).encode()


def test_the_urls():
    assert last_commit_url("owner/name", "docs/a b.csv") == (
        "https://api.github.com/repos/owner/name/commits?path=docs/a%20b.csv&per_page=1")
    assert raw_url("owner/name", SHA, "docs/t.csv") == f"https://raw.githubusercontent.com/owner/name/{SHA}/docs/t.csv"
    assert "api.github.com" in DEFAULT_ROBOTS_EXEMPT_HOSTS


def test_the_committer_date_in_utc_is_the_date_not_the_authors():
    commit = read_last_commit(_answer("2025-03-07T20:25:40+01:00"))
    assert commit == LastCommit(SHA, datetime(2025, 3, 7, 19, 25, 40, tzinfo=UTC))
    assert read_last_commit(_answer("2024-05-20T23:30:00-07:00")).day == date(2024, 5, 21)
    assert read_last_commit(_answer("2025-03-07T19:25:40Z")).day == date(2025, 3, 7)


@pytest.mark.parametrize(("body", "why"), [
    (b"", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b'{"message": "Not Found"}', "not a list"),
    (b"[]", "no commit"),
    (b"[1]", "no 40-digit sha"),
    (b'[{"sha": "b646e30", "commit": {"committer": {"date": "2025-03-07T19:25:40Z"}}}]', "no 40-digit sha"),
    (json.dumps([{"sha": SHA, "commit": {"author": {"date": "2025-03-07T19:25:40Z"}}}]).encode(), "committer.date"),
    (_answer("yesterday"), "not an ISO 8601 time"),
    (_answer("2025-03-07T19:25:40"), "no time zone"),
])
def test_an_answer_naming_no_commit_says_why(body, why):
    with pytest.raises(ValueError, match=why):
        read_last_commit(body)


KNOWN = {"a" * 64: date(2024, 5, 20)}


def _page(body: bytes = b"table", read: datetime = READ):
    return page_from_file("s", body, "https://raw.githubusercontent.com/o/n/main/t.csv", read, "text/csv")


def test_a_version_is_dated_by_its_commit_by_a_known_version_the_earlier_of_both_and_never_after_its_read():
    commit = LastCommit(SHA, datetime(2025, 3, 7, 19, 25, tzinfo=UTC))
    assert table_date(_page(), commit=commit, known_versions={}, unknown_as_of=date(2000, 1, 1)).day == date(2025, 3, 7)
    known = {hashlib.sha256(b"table").hexdigest(): date(2024, 5, 20)}
    both = table_date(_page(), commit=commit, known_versions=known, unknown_as_of=date(2000, 1, 1))
    assert (both.day, both.known) == (date(2024, 5, 20), True)  # the same bytes were already there in 2024
    ahead = LastCommit(SHA, datetime(2026, 12, 1, tzinfo=UTC))  # a clock ahead of the read
    assert table_date(_page(), commit=ahead, known_versions={}, unknown_as_of=date(2000, 1, 1)).day == READ.date()


def test_a_version_nothing_dates_is_of_the_date_given_for_it_never_of_the_day_it_was_read():
    dated = table_date(_page(), commit=None, known_versions=KNOWN, unknown_as_of=date(2025, 3, 7))
    assert (dated.day, dated.known) == (date(2025, 3, 7), False)
    assert "unknown date" in dated.how and "not the day it was read" in dated.how


def test_a_fetch_s_commit_dates_only_the_file_pinned_to_it():
    repo, path = "owner/name", "docs/table.csv"
    given: list[tuple[str, LastCommit | None]] = []

    def data_date(page, commit):
        given.append((page.url, commit))
        return TableDate(commit.day if commit else date(2024, 5, 20), True, "test")

    def read(body, url, as_of):
        return [as_of], []

    _, parse_fetch = dated_table_parsers("s", "rental", repo, path, read=read, data_date=data_date)
    answer = page_from_file("s", _answer("2025-03-07T10:00:00Z"), last_commit_url(repo, path), READ)
    pinned, main = (page_from_file("s", b"table", raw_url(repo, ref, path), READ) for ref in (SHA, "main"))
    parsed = parse_fetch([answer, pinned, main])
    assert parsed.records == [date(2025, 3, 7), date(2024, 5, 20)]
    assert [(url, c.sha if c else None) for url, c in given] == [(pinned.url, SHA), (main.url, None)]
