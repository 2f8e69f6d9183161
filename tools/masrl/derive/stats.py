"""Corpus statistics: headline counts, per-axis counts, cross-tabs and the screening log.

Everything is computed from the loaded corpus and returned as plain tables (``Counts`` and
``CrossTab`` of ``masrl.derive.tables``) in a ``Stats`` value; ``masrl.render.stats`` renders it
as Markdown, JSON and CSV. The site, ``STATS.md``, the gap tables, the claim ledger and the
figures all read the same tables.

Conventions every table follows:

- Rows of an axis come in taxonomy order and every taxonomy value is listed, zeros included.
- An entry whose field is empty (``[]`` or ``null``) is counted in a row of its own, labelled
  "not applicable"; fields that can never be empty have no such row.
- A multi-valued field (e.g. ``reward_types``) counts an entry once per value, so the counts of
  such an axis can add up to more than the number of entries.
- Cross-tabs count each pair of values an entry holds, and only entries that have a value on
  both axes (a "not applicable" entry has nothing to cross).

Fields are named as in ``corpus/*.yaml``, plus ``reward_families``, derived from an entry's
reward types through the taxonomy (an entry counts once per family even with two reward types
of the same family).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import product
from types import MappingProxyType

from masrl.derive.tables import Counts, CrossTab
from masrl.model.project import Corpus
from masrl.model.records import Entry, entry_specs
from masrl.model.taxonomy import Taxonomy

NOT_APPLICABLE = "not applicable"

# Which axes are counted, cross-tabulated and in what order comes from the axis registry
# (each taxonomy file's `show:`); the year is the one counted field that is not an axis.
NON_AXIS_FIELDS = ("year",)


def axis_fields(taxonomy: Taxonomy) -> tuple[str, ...]:
    """The per-axis tables, in the order STATS.md and the site show them."""
    return (*taxonomy.shown("stats"), *NON_AXIS_FIELDS)


def exclusion_fields(taxonomy: Taxonomy) -> dict[str, str]:
    """Screening-log fields counted in the exclusion tables, with their taxonomy axes."""
    return {
        name: taxonomy.axis_of_field[name] for name in taxonomy.shown("stats", record="exclusion")
    }


HEADLINE_LABELS = {
    "retained": "Retained entries",
    "excluded": "Excluded records",
    "audited": "Audited records",
}


# ---------------------------------------------------------------------------------------------
# Fields: which taxonomy axis orders them and how to read their values off an entry.


@dataclass(frozen=True)
class Field:
    """A countable field of an entry: its taxonomy axis (None for year) and whether it may be empty."""

    name: str
    axis: str | None
    label: str
    multi: bool
    nullable: bool


def countable_fields(taxonomy: Taxonomy) -> Mapping[str, Field]:
    """Every field that statistics, gaps and claims can count, by name (read-only)."""
    return taxonomy.derived("countable fields", lambda t: MappingProxyType(_countable_fields(t)))


def _countable_fields(taxonomy: Taxonomy) -> dict[str, Field]:
    fields = {}
    for spec in entry_specs(taxonomy):
        if spec.axis:
            multi = spec.kind == "tags"
            fields[spec.name] = Field(
                spec.name, spec.axis, taxonomy[spec.axis].label, multi, multi or spec.nullable
            )
    fields["reward_families"] = Field(
        "reward_families", "reward_families", taxonomy["reward_families"].label, True, True
    )
    fields["year"] = Field("year", None, "Year", False, False)
    return fields


def entry_values(entry: Entry, field_name: str, taxonomy: Taxonomy) -> tuple[str, ...]:
    """The values an entry holds on a field, as strings; () when not applicable."""
    if field_name == "reward_families":
        return taxonomy.reward_families_of(entry.reward_types)
    value = getattr(entry, field_name)
    if isinstance(value, tuple):
        return tuple(map(str, value))
    return () if value is None else (str(value),)


def field_values(corpus: Corpus, field_name: str) -> list[str]:
    """The values a field can take, in display order: taxonomy order, or ascending years."""
    field = countable_fields(corpus.taxonomy)[field_name]
    if field.axis is None:
        return sorted({str(e.year) for e in corpus.entries})
    return list(corpus.taxonomy[field.axis].ids)


def value_label(corpus: Corpus, field_name: str, value: str) -> str:
    """The human label of a value ("not applicable" for the empty row)."""
    if value == NOT_APPLICABLE:
        return NOT_APPLICABLE
    field = countable_fields(corpus.taxonomy)[field_name]
    return corpus.taxonomy[field.axis].label_of(value) if field.axis else value


def _value_rows(corpus: Corpus, field_name: str) -> list[str]:
    """The rows a field is counted in, in display order: its values, then "not applicable" when
    the field may be empty."""
    rows = field_values(corpus, field_name)
    if countable_fields(corpus.taxonomy)[field_name].nullable:
        rows.append(NOT_APPLICABLE)
    return rows


def _entry_values(corpus: Corpus, field_name: str) -> Iterator[tuple[str, str]]:
    """(value, entry key) for each value of each entry ("not applicable" for an empty field)."""
    taxonomy, not_applicable = corpus.taxonomy, (NOT_APPLICABLE,)
    for entry in corpus.entries:
        key = entry.key
        for value in entry_values(entry, field_name, taxonomy) or not_applicable:
            yield value, key


def entries_with_value(corpus: Corpus, field_name: str) -> dict[str, list[str]]:
    """Entry keys behind each value of a field (and "not applicable"), sorted, in display order."""
    keys: dict[str, list[str]] = {value: [] for value in _value_rows(corpus, field_name)}
    for value, key in _entry_values(corpus, field_name):
        if value in keys:
            keys[value].append(key)
        else:
            keys[value] = [key]
    return {value: sorted(members) for value, members in keys.items()}


def entries_in_cell(
    corpus: Corpus, row_field: str, column_field: str, row: str, column: str
) -> list[str]:
    """Keys of the entries counted in one cross-tab cell, sorted."""
    taxonomy = corpus.taxonomy
    return sorted(
        e.key
        for e in corpus.entries
        if row in entry_values(e, row_field, taxonomy)
        and column in entry_values(e, column_field, taxonomy)
    )


# ---------------------------------------------------------------------------------------------
# Tables.


@dataclass(frozen=True)
class Stats:
    """All statistics of one corpus.

    headline: retained, excluded and audited records (a ``Counts`` of field "headline").
    axis_counts: field name -> ``Counts`` by value (taxonomy order, then "not applicable").
    crosstabs: "<row>_x_<column>" -> ``CrossTab`` of the two fields (taxonomy order).
    exclusion_counts: screening-log field (stage, source, query_family, reason_code) -> ``Counts``.
    entries: number of retained entries (the denominator of shares).
    labels: field name (entry or screening-log field) -> its taxonomy label, for headings.
    """

    headline: Counts
    axis_counts: dict[str, Counts]
    crosstabs: dict[str, CrossTab]
    exclusion_counts: dict[str, Counts]
    entries: int
    labels: dict[str, str]

    def count(self, field_name: str, value: str) -> int:
        """Shortcut: how many retained entries hold ``value`` on ``field_name``."""
        return self.axis_counts[field_name][value]


def crosstab_name(row_field: str, column_field: str) -> str:
    return f"{row_field}_x_{column_field}"


def compute_stats(corpus: Corpus) -> Stats:
    """Every table of the statistics page, from a loaded corpus."""
    return Stats(
        headline=headline_counts(corpus),
        axis_counts={name: axis_counts(corpus, name) for name in axis_fields(corpus.taxonomy)},
        crosstabs={
            crosstab_name(r, c): crosstab(corpus, r, c) for r, c in corpus.taxonomy.crosstabs()
        },
        exclusion_counts={
            name: exclusion_counts(corpus, name) for name in exclusion_fields(corpus.taxonomy)
        },
        entries=len(corpus.entries),
        labels=field_labels(corpus.taxonomy),
    )


def field_labels(taxonomy: Taxonomy) -> dict[str, str]:
    """Field name -> label, e.g. credit_units -> Credit-bearing unit."""
    labels = {name: field.label for name, field in countable_fields(taxonomy).items()}
    labels.update({name: taxonomy[axis].label for name, axis in exclusion_fields(taxonomy).items()})
    return labels


def headline_counts(corpus: Corpus) -> Counts:
    counts = {
        "retained": len(corpus.entries),
        "excluded": len(corpus.exclusions),
        "audited": corpus.audited,
    }
    return Counts.of("headline", counts, HEADLINE_LABELS)


def axis_counts(corpus: Corpus, field_name: str) -> Counts:
    """Entries per value of one field (see the module docstring for the conventions): the counts
    of entries_with_value, in its order, without listing and sorting the keys."""
    counts: dict[str, int] = dict.fromkeys(_value_rows(corpus, field_name), 0)
    for value, _ in _entry_values(corpus, field_name):
        counts[value] = counts.get(value, 0) + 1
    return Counts.of(
        field_name, counts, {value: value_label(corpus, field_name, value) for value in counts}
    )


def crosstab(corpus: Corpus, row_field: str, column_field: str) -> CrossTab:
    """Count of entries per pair of values; every taxonomy value on both axes, zeros included."""
    taxonomy = corpus.taxonomy
    counts = Counter(
        pair
        for entry in corpus.entries
        for pair in product(
            entry_values(entry, row_field, taxonomy), entry_values(entry, column_field, taxonomy)
        )
    )
    return CrossTab.of(
        row_field,
        column_field,
        field_values(corpus, row_field),
        field_values(corpus, column_field),
        counts,
    )


def exclusion_counts(corpus: Corpus, field_name: str) -> Counts:
    """Excluded records per value of a screening-log field, in taxonomy order."""
    axis = corpus.taxonomy[corpus.taxonomy.axis_of_field[field_name]]
    counts = {value: 0 for value in axis.ids}
    for record in corpus.exclusions:
        counts[getattr(record, field_name)] += 1
    return Counts.of(field_name, counts, {value: axis.label_of(value) for value in counts})


def exclusion_crosstab(corpus: Corpus, row_field: str, column_field: str) -> CrossTab:
    """Excluded records per pair of screening-log values, e.g. stage x reason_code."""
    taxonomy = corpus.taxonomy
    counts = Counter(
        (getattr(record, row_field), getattr(record, column_field)) for record in corpus.exclusions
    )
    return CrossTab.of(
        row_field,
        column_field,
        taxonomy[taxonomy.axis_of_field[row_field]].ids,
        taxonomy[taxonomy.axis_of_field[column_field]].ids,
        counts,
    )
