-- The catalog as the coverage rule (models/coverage.py) needs it: what decides whether a buyer could use a card.
SELECT model, vendor, segment, form_factor, memory_gb, release_date, released, framework_support FROM gpus;
