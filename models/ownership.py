"""The one ownership horizon: how long a bought card is owned, for its resale, its electricity and
rent or buy (GPUVALUE_OWNERSHIP_MONTHS). A module of its own so that the settings read it without
importing recommend's answers (models/budget_answers.py) or rent or buy (models/rent_vs_buy.py)."""

DEFAULT_OWNERSHIP_MONTHS = 24.0
