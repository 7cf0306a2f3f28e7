"""What a daily run says about itself beyond its table of sources: the quality alarms (volume, match
rate, price index against own sales), and the run's summary and top 20 as the Prefect UI shows them.

Kept apart from the flow module (``flows/daily.py``) so that these rules, and the queries behind
them, are read and tested without importing Prefect: the flow publishes what this builds.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.settings import Settings
from gpuvalue.warehouse import queries, sql_files
from gpuvalue.warehouse.db import open_database

ALARM_HISTORY_RUNS = 14  # trailing window: the last two weeks of daily runs
ALARM_MIN_HISTORY = 3
ALARM_VOLUME_SHARE = 0.5  # fewer than half the usual rows
ALARM_MATCH_RATE_DROP = 0.2  # matched share 20 points below its usual level


def quality_alarms(con, summary: P.RunSummary) -> list[str]:
    """Today's volume and match rate per source against their trailing medians.

    A source yielding far fewer rows than usual is the usual sign of a block or a markup change; a
    listing source whose titles suddenly match far less often points at changed titles (or a
    scraped page that is no longer the search results) even when the volume looks normal.
    """
    params = {"run": summary.run_id, "window": ALARM_HISTORY_RUNS, "min_n": ALARM_MIN_HISTORY}
    alarms = []
    volume = sql_files.rows(con, "quality_volume_alarms", {**params, "share": ALARM_VOLUME_SHARE})
    for source, n, med in volume:
        alarms.append(f"{source}: {n} rows today against a trailing median of {med:.0f} (markup change or block?)")
    rates = sql_files.rows(con, "quality_match_alarms", {**params, "drop": ALARM_MATCH_RATE_DROP})
    for source, rate, med in rates:
        alarms.append(f"{source}: {rate:.0%} of listings matched a GPU model today against a trailing median of "
                      f"{med:.0%} (titles or page changed?)")
    alarms.extend(price_index_alarm_lines(con))
    return alarms


def price_index_alarm_lines(con) -> list[str]:
    """Model-months where a published used-price index and the own sold prices disagree by more than
    25 %: the matcher may be pulling in other cards, junk may be getting through, or the index's
    name may mean another variant. The difference itself is stored (view price_index_vs_own)."""
    from gpuvalue.warehouse.price_index import price_index_alarms

    return [f"{a['model']}: own sold median ${a['own_median_usd']:,.0f} ({a['own_n']} sales) in "
            f"{a['month']:%Y-%m} is {a['rel_diff']:+.0%} off {a['source']}'s ${a['index_avg_usd']:,.0f} "
            "(matching, junk or another variant?)" for a in price_index_alarms(con)]


def artifact_contents(settings: Settings, summary: P.RunSummary) -> tuple[list[dict], str]:
    """The run's top 20 (every value as text, as a Prefect table artifact holds it) and its markdown
    summary, read from the warehouse the run wrote."""
    con = open_database(settings.db, read_only=True)
    try:
        top = [{c: (str(v) if v is not None else None) for c, v in r.items()}
               for r in queries.ranking_top(con, summary.as_of, 20)]
        movers = sql_files.rows(con, "biggest_movers", {"as_of": summary.as_of, "limit": 5})
        freshness = sql_files.rows(con, "listing_freshness")
    finally:
        con.close()
    return top, summary_markdown(summary, movers=movers, freshness=freshness)


def summary_markdown(summary: P.RunSummary, *, movers: Sequence[tuple] = (), freshness: Sequence[tuple] = ()) -> str:
    lines = [f"# gpuvalue run {summary.run_id} for {summary.as_of}" + (" (replay)" if summary.replay else ""), ""]
    if summary.replay:
        lines += [f"**Replay:** {P.replay_sentence(summary.as_of)}", ""]
    lines += ["| source | status | rows | note |", "|---|---|---|---|"]
    for name, o in summary.outcomes.items():
        note = o.note(200).replace("|", "/")
        lines.append(f"| {name} | {o.status} | {o.rows} | {note} |")
    lines += ["", f"Catalog: {summary.catalog_models} models, {summary.spec_conflicts} spec conflicts between sources "
              "(table spec_conflicts)", f"Ranked models: {summary.ranked}"]
    if summary.coverage_models:
        lines.append(f"Coverage: {summary.coverage_models} models in {summary.coverage_searches} searches")
    if freshness:
        lines += ["", "## Listing freshness", "| source | listings | matched | newest observation |", "|---|---|---|---|"]
        lines += [f"| {src} | {n} | {m} | {newest} |" for src, n, m, newest in freshness]
    if movers:
        lines += ["", "## Biggest movers since the previous ranked day"]
        lines += [f"- {model}: #{was} -> #{now} ({'up' if up > 0 else 'down'} {abs(up)}), ${price:,.0f}"
                  for model, was, now, up, price, _ in movers]
    if summary.alarms:
        lines += ["", "## Alarms", *[f"- {a}" for a in summary.alarms]]
    return "\n".join(lines)
