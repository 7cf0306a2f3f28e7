"""When a file kept in a GitHub repository last changed, for dating the data it holds.

A table kept by hand in a repository (a CSV on ``main``) says what its prices were on the day it was
last committed, not on the day it is read: a fetch of a table last edited a year ago is a year-old
price list. GitHub's commits API, asked without a key, answers the newest commit that changed a path
(``GET https://api.github.com/repos/<owner>/<name>/commits?path=<path>&per_page=1``): its ``sha``
and ``commit.committer.date``. ``api.github.com`` is an API under GitHub's terms (60 keyless
requests an hour per address), not a site for crawlers, so robots.txt does not apply to it
(``DEFAULT_ROBOTS_EXEMPT_HOSTS``).

A source using this asks for the answer first, through the run's client like any page, then for the
file at the raw URL pinned to the commit it names: the body is then exactly the version the date is
of, whatever a cache between serves for ``main``. Both pages are archived together, so a reparse dates
the file as the run did. Without an answer (rate limited, unreachable, a shape it does not read) the
source reads ``main`` and dates it by what else it knows (``table_date``): never by the day it was
read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote

from gpuvalue.scrapers.bounded import json_document
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import FetchError
from gpuvalue.scrapers.source import FetchContext, get_page

API_HEADERS = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class LastCommit:
    """The newest commit that changed a file: its hash and when it was committed (UTC)."""

    sha: str
    committed_at: datetime

    @property
    def day(self) -> date:
        return self.committed_at.date()


def last_commit_url(repo: str, path: str) -> str:
    """The commits API's question "which commit last changed ``path``?" for ``owner/name``."""
    return f"https://api.github.com/repos/{repo}/commits?path={quote(path, safe='/')}&per_page=1"


def raw_url(repo: str, ref: str, path: str) -> str:
    """The file at ``ref`` (a branch, or a commit for a version that never changes)."""
    return f"https://raw.githubusercontent.com/{repo}/{ref}/{path}"


def read_last_commit(body: bytes) -> LastCommit:
    """The commit an answer of the commits API names; ValueError saying why when the answer names none."""
    try:
        answer = json_document(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the answer is not JSON") from None
    if not isinstance(answer, list):
        raise ValueError("the answer is not a list of commits")
    if not answer:
        raise ValueError("the answer lists no commit of the file")
    first = answer[0]
    sha = first.get("sha") if isinstance(first, dict) else None
    commit = first.get("commit") if isinstance(first, dict) else None
    committer = commit.get("committer") if isinstance(commit, dict) else None
    when = committer.get("date") if isinstance(committer, dict) else None
    if not isinstance(sha, str) or not _SHA.match(sha):
        raise ValueError("the newest commit has no 40-digit sha")
    if not isinstance(when, str):
        raise ValueError(f"commit {sha[:7]} has no commit.committer.date")
    try:
        committed_at = datetime.fromisoformat(when)
    except ValueError:
        raise ValueError(f"commit {sha[:7]}'s date {when!r} is not an ISO 8601 time") from None
    if committed_at.tzinfo is None:
        raise ValueError(f"commit {sha[:7]}'s date {when!r} has no time zone")
    return LastCommit(sha, committed_at.astimezone(UTC))


def fetch_last_commit(ctx: FetchContext, out: SourceFetch, repo: str, path: str) -> LastCommit | None:
    """The commit that last changed ``path``, its answer appended to ``out.pages``; None, said in
    ``out.warnings``, when there is no answer or it names no commit. Never fails the source: the file
    is still read, dated otherwise."""
    url = last_commit_url(repo, path)
    why = None
    try:
        page = get_page(ctx, out, url, headers=API_HEADERS)
    except FetchError as exc:
        page, why = None, exc.what
    if page is None:
        if why is not None:
            out.warnings.append(f"{out.source}: when {path} last changed is unknown, GitHub's commits API "
                                f"did not answer ({why})")
            ctx.report(out.warnings[-1])
        return None
    out.pages.append(page)
    try:
        return read_last_commit(page.body)
    except ValueError as exc:
        out.warnings.append(f"{out.source}: when {path} last changed is unknown: {exc} ({url})")
        ctx.report(out.warnings[-1])
        return None


def answered_commit(pages: list[FetchedPage], repo: str, path: str) -> tuple[LastCommit | None, str | None]:
    """The commit the fetch's answer names, read again from its archived page (pure, for parse); and
    a warning when an answer is there but names none."""
    url = last_commit_url(repo, path)
    answers = [p for p in pages if p.url == url]
    if not answers:
        return None, None
    try:
        return read_last_commit(answers[-1].body), None
    except ValueError as exc:
        return None, f"{url}: {exc}"


@dataclass(frozen=True)
class TableDate:
    """The date a version of a table is of, and how it was found."""

    day: date
    known: bool  # False: no fact dates this version; ``day`` is the newest date its prices can be said to be of
    how: str


def table_date(page: FetchedPage, *, commit: LastCommit | None, known_versions: Mapping[str, date],
               unknown_as_of: date) -> TableDate:
    """The date of the prices in a fetched version of a table, from what is known of it: the commit
    its fetch was pinned to (``commit``), and a version known by the SHA-256 of its bytes. Where both
    say, the earlier; and never after the page's capture. With neither, the version is of an unknown
    date: ``unknown_as_of`` (the newest known version's date: an unknown version read from ``main``
    is a later one, so its prices are at least that old), which keeps them old rather than today's."""
    sha = hashlib.sha256(page.body).hexdigest()  # of the bytes themselves, whatever the page says
    found: list[tuple[date, str]] = []
    if commit is not None:
        found.append((commit.day, f"last changed in {commit.sha[:7]} on {commit.day}"))
    if sha in known_versions:
        found.append((known_versions[sha], f"a known version of {known_versions[sha]}"))
    captured = page.fetched_at.date()
    if not found:
        day = min(unknown_as_of, captured)
        return TableDate(day, False, f"a version of unknown date, dated {day} (the newest known version's "
                                     "date), not the day it was read")
    day, how = min(found)
    if captured < day:
        return TableDate(captured, True, f"{how}, read on {captured}")
    return TableDate(day, True, how)


def dated_table_parsers(
    source: str, kind: str, repo: str, path: str, *,
    read: Callable[[bytes, str, date], tuple[list[Any], list[str]]],
    data_date: Callable[[FetchedPage, LastCommit | None], TableDate],
) -> tuple[Callable[[FetchedPage], ParsedSource], Callable[[list[FetchedPage]], ParsedSource]]:
    """A source's ``parse`` and ``parse_fetch`` for a table dated as above: each version is read
    (``read``: body, URL, the date its prices are of -> records and warnings) dated by ``data_date``,
    which ``parse_fetch`` gives the commit the fetch's answer names where the page is the file pinned
    to that commit (else None: a file read from ``main`` is not dated by it); the answer itself holds no
    records, and a version of unknown date says so in a warning before its own. One helper, so every
    table dated by its last commit is dated alike."""
    answer_url = last_commit_url(repo, path)

    def parse_dated(page: FetchedPage, commit: LastCommit | None) -> ParsedSource:
        if page.url == answer_url:  # the answer dating the table: no records of its own
            return ParsedSource(source, kind)
        pinned = commit if commit is not None and page.url == raw_url(repo, commit.sha, path) else None
        dated = data_date(page, pinned)
        records, warnings = read(page.body, page.url, dated.day)
        if not dated.known:
            warnings.insert(0, f"{page.url}: {dated.how}")
        return ParsedSource(source, kind, records=records, warnings=warnings)

    def parse(page: FetchedPage) -> ParsedSource:
        return parse_dated(page, None)

    def parse_fetch(pages: list[FetchedPage]) -> ParsedSource:
        """A fetch's pages, the table dated by the commits answer fetched beside it."""
        commit, warning = answered_commit(pages, repo, path)
        merged = ParsedSource(source, kind, warnings=[warning] if warning else [])
        for page in pages:
            merged.extend(parse_dated(page, commit))
        return merged

    return parse, parse_fetch
