"""A scaffold written field by field (imports/bibtex.ScaffoldText, for bulk imports) is byte for
byte what yamlio.dumps writes for the whole record."""

from __future__ import annotations

import os

from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from masrl.imports.bibtex import BibRecord, ScaffoldText, scaffold_from_record
from masrl.model import yamlio
from masrl.model.records import ENTRY_SCHEMA_LINE
from masrl.model.taxonomy import load_taxonomy

TAXONOMY = load_taxonomy()
EXAMPLES = int(os.environ.get("MASRL_FUZZ_EXAMPLES", str(examples(100, deep=200))))

_text = st.text(max_size=120) | st.sampled_from(
    ["TODO", "null", "yes", "2025", "a: b", "a  b", "- x", "'q'", '"q"', "#x", "é", "x" * 150]
)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.lists(
        st.tuples(
            _text,
            st.lists(_text, max_size=3),
            st.booleans(),
            st.none() | st.integers(0, 3000),
            st.none() | _text,
            st.none() | _text,
            st.lists(_text, max_size=2),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_scaffold_text_is_what_dumps_writes(rows):
    text_of = ScaffoldText()  # one writer across records, as an import uses it
    for index, (title, authors, complete, year, venue, doi, urls) in enumerate(rows):
        record = BibRecord(
            f"k{index}",
            "article",
            1,
            title or None,
            authors,
            complete,
            year,
            venue,
            {"arxiv": None, "doi": doi, "openreview": None},
            urls,
        )
        data = scaffold_from_record(record, f"key{index}", TAXONOMY)
        assert text_of(data) == yamlio.dumps(data, header=ENTRY_SCHEMA_LINE)
