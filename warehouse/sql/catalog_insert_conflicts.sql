-- incoming_conflicts: where two spec sources disagreed on a card, which value the catalog kept.
INSERT OR REPLACE INTO spec_conflicts BY NAME SELECT * FROM incoming_conflicts;
