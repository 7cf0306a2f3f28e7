"""The eBay sites gpuvalue reads search pages of, each with its currency and decimal mark.

A bare "$" on ebay.ca is a Canadian dollar and "1.234" on ebay.de is 1,234 euros: the site a page
came from decides what its prices mean, so the site travels with the market's name.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EbayMarket:
    code: str  # eBay's marketplace id, as the Browse API and the listings' marketplace column name it
    label: str  # what a user reads: "eBay UK"
    site: str  # the host of its search pages
    currency: str  # ISO 4217 of its prices
    decimal: str  # its decimal mark


EBAY_MARKETS: dict[str, EbayMarket] = {m.code: m for m in (
    EbayMarket("EBAY_US", "eBay US", "www.ebay.com", "USD", "."),
    EbayMarket("EBAY_GB", "eBay UK", "www.ebay.co.uk", "GBP", "."),
    EbayMarket("EBAY_DE", "eBay DE", "www.ebay.de", "EUR", ","),
    EbayMarket("EBAY_CA", "eBay CA", "www.ebay.ca", "CAD", "."),
    EbayMarket("EBAY_AU", "eBay AU", "www.ebay.com.au", "AUD", "."),
)}
DEFAULT_EBAY_MARKETS = tuple(EBAY_MARKETS)
_ALIASES = {"US": "EBAY_US", "UK": "EBAY_GB", "GB": "EBAY_GB", "EBAY_UK": "EBAY_GB", "DE": "EBAY_DE",
            "CA": "EBAY_CA", "AU": "EBAY_AU"}
_BY_SITE = {m.site: m for m in EBAY_MARKETS.values()}


def market(name: str) -> EbayMarket:
    """A market by its code or short name ("EBAY_GB", "UK", "gb"); ValueError names the known ones."""
    key = name.strip().upper().replace("-", "_")
    key = _ALIASES.get(key, key)
    if key not in EBAY_MARKETS:
        raise ValueError(f"unknown eBay market {name!r}; known: {', '.join(EBAY_MARKETS)} (or US, UK, DE, CA, AU)")
    return EBAY_MARKETS[key]


def market_of_site(host: str) -> EbayMarket | None:
    return _BY_SITE.get(host.lower())
