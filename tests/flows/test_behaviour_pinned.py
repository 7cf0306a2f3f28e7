"""The replay ranking, its exports and the CLI's ranking output are pinned: a restructuring that
changes what a user sees fails here (see tests/fixtures/pinned/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

PINNED = Path(__file__).resolve().parents[1] / "fixtures" / "pinned"

pytestmark = pytest.mark.e2e


def test_ranking_export_is_unchanged(replay_db):
    exported = (replay_db.parent / "exports" / "ranking.csv").read_text(encoding="utf-8")
    assert exported == (PINNED / "replay_ranking_2026-11-30.csv").read_text(encoding="utf-8")


def test_feed_is_unchanged(replay_db):
    feed = json.loads((replay_db.parent / "exports" / "feed.json").read_text(encoding="utf-8"))
    for item in feed["items"]:
        item.pop("date_published", None)
        item.pop("date_modified", None)
    assert feed == json.loads((PINNED / "replay_feed_2026-11-30.json").read_text(encoding="utf-8"))


def test_rank_json_is_unchanged(replay_db):
    result = CliRunner().invoke(app, ["rank", "--json", "--db", str(replay_db)])
    assert result.exit_code == 0, result.output
    pinned = (PINNED / "replay_rank_2026-11-30.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in result.output.splitlines()] == [json.loads(line) for line in pinned]
