"""The glossary entry written as the text wins over another entry's inflected form (issue #35): with entries
"activity" and "activities" (one lemma), "activity" is the first's occurrence and "activities" the second's,
whichever entry the glossary lists first."""
from __future__ import annotations

import pytest

from tests.helpers import run

H = ["id", "en", "sr"]


@pytest.mark.parametrize("rows", [
    [["plural", "activities", "aktivnosti"], ["singular", "activity", "aktivnost"]],
    [["singular", "activity", "aktivnost"], ["plural", "activities", "aktivnosti"]],
])
def test_the_entry_written_as_the_text_wins(tmp_path, rows):
    r = run(tmp_path, [("Start the activity.", "Pokreni aktivnost."), ("Recent activities", "Nedavne aktivnosti")],
            H, rows, tgt="sr")
    got = [(o["source_text"], o["reference"]["text"], o["outcome"]) for o in r["occurrences"]]
    assert got == [("activity", "aktivnost", "conforming"), ("activities", "aktivnosti", "conforming")]
