"""One module per source. Each declares ``SOURCE = Source(...)`` (see ``gpuvalue.scrapers.source``);
``gpuvalue.scrapers.registry`` collects them. A module here without ``SOURCE`` fails the registry test."""
