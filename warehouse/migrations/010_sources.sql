-- Schema version 10: what each source is and whom it credits, written by every run from the
-- source registry, so exports, the feed and ad-hoc SQL name a source's kind, attribution and
-- licence from the warehouse itself.
CREATE TABLE sources (
    name         VARCHAR PRIMARY KEY,
    kind         VARCHAR NOT NULL,   -- spec, listing, benchmark, inference, price_index, rental
    export_kind  VARCHAR NOT NULL,   -- the word exports have used for the kind since v1
    attribution  VARCHAR NOT NULL,
    licence      VARCHAR NOT NULL
);
