-- What each source is and whom it credits, written by every run from the source registry, so
-- exports, the feed and ad-hoc SQL name a source's kind, attribution and licence from the warehouse
-- itself. label: the short name a user reads beside a number the source supplied (an index price's
-- "Tom's Hardware eBay index"); NULL for a source that declares none: outputs show its name.
-- statistic: what a price index's figure is (NULL: an average of sold cards).
CREATE TABLE IF NOT EXISTS sources (
    name         VARCHAR PRIMARY KEY,
    kind         VARCHAR NOT NULL,   -- spec, listing, benchmark, inference, price_index, rental
    export_kind  VARCHAR NOT NULL,   -- the word exports have used for the kind since v1
    attribution  VARCHAR NOT NULL,
    licence      VARCHAR NOT NULL,
    label        VARCHAR,
    statistic    VARCHAR            -- a price index's figure, "{n}" its count: "mean of the {n} cheapest asking prices"
);
