-- What each source is and whom it credits: exports and the feed name their sources from this table.
INSERT OR REPLACE INTO sources (name, kind, export_kind, attribution, licence, label, statistic)
VALUES ($name, $kind, $export_kind, $attribution, $licence, $label, $statistic);
