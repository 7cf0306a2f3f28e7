

def test_a_ranking_older_than_yesterday_gets_a_note_with_its_age():
    from datetime import date

    from gpuvalue.models.price_age import ranking_day_note

    assert ranking_day_note(date(2026, 12, 2), date(2026, 12, 2)) is None
    assert ranking_day_note(date(2026, 12, 1), date(2026, 12, 2)) is None
    assert ranking_day_note(date(2025, 12, 1), date(2026, 12, 2)).startswith(
        "Note: this ranking is of 2025-12-01, 12 mo before today (2026-12-02)")
