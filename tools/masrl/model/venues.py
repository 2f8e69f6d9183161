"""Venue spellings: the vocabulary in ``taxonomy/venues.yaml`` applied to an entry's ``venue``.

An entry's venue is one label of that vocabulary, spelled exactly so, optionally followed by the
year of the venue: ``NeurIPS 2025``, ``ICLR 2026``, ``arXiv``. The validator, the JSON Schema and
the importers all read the labels and aliases from here, so one spelling per venue holds
everywhere and a new venue is one entry in the YAML file.
"""

from __future__ import annotations

import difflib
import re

from masrl.model.taxonomy import Axis, Taxonomy

VENUE_AXIS = "venues"
VENUE_PATTERN = re.compile(r"^(?P<name>.*?)(?: (?P<year>\d{4}))?$")
# Words that qualify a paper at its venue (presentation, track status) rather than name the venue.
QUALIFIERS = frozenset(
    {
        "spotlight",
        "oral",
        "poster",
        "submission",
        "submitted",
        "accepted",
        "main",
        "track",
        "conference",
        "proceedings",
        "paper",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    }
)


def venue_axis(taxonomy: Taxonomy) -> Axis | None:
    """The venue vocabulary, or None for a taxonomy that predates it (a frozen snapshot's)."""
    return taxonomy.axes.get(VENUE_AXIS)


def split_venue(text: str) -> tuple[str, int | None]:
    """'NeurIPS 2025' -> ('NeurIPS', 2025); 'arXiv' -> ('arXiv', None)."""
    match = VENUE_PATTERN.match(text)
    year = match.group("year") if match else None
    return (match.group("name") if match else text), (int(year) if year else None)


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z&]+", " ", text.casefold()).split())


# Per vocabulary (an Axis is not hashable): its spellings and the venues already looked up, so
# an import of 100,000 rows folds the vocabulary once and each distinct venue text once.
_LOOKUPS: dict[int, tuple[Axis, dict[str, str], dict[str, str | None]]] = {}


def _lookup(axis: Axis) -> tuple[dict[str, str], dict[str, str | None]]:
    """(every folded spelling (id, label, aliases) -> the label it stands for, venues looked up)."""
    cached = _LOOKUPS.get(id(axis))
    if cached is None or cached[0] is not axis:
        names: dict[str, str] = {}
        for value in axis.values:
            for spelling in (
                value.id.replace("_", " "),
                value.label,
                *(value.extra.get("aliases") or []),
            ):
                names.setdefault(_fold(str(spelling)), value.label)
        cached = _LOOKUPS[id(axis)] = (axis, names, {})
    return cached[1], cached[2]


def canonical_venue(axis: Axis, text: str) -> str | None:
    """The one spelling of a venue written another way, or None when none fits.

    'NeurIPS 2022 D&B' -> 'NeurIPS Datasets and Benchmarks 2022', 'ICLR 2024 Spotlight' ->
    'ICLR 2024', 'Tech Blog' -> 'Blog', 'OpenReview (ICLR 2026 submission)' -> 'OpenReview'.
    A year inside parentheses tells a status, not the venue's year, and is dropped with them.
    """
    text = str(text)
    names, found = _lookup(axis)
    if text not in found:
        if len(found) > 10_000:  # hostile input with endless distinct venues: bounded memory
            found.clear()
        found[text] = _canonical_venue(names, text)
    return found[text]


def _canonical_venue(names: dict[str, str], text: str) -> str | None:
    outside = re.sub(r"\([^)]*\)", " ", text)
    years = re.findall(r"\b(19\d{2}|20\d{2})\b", outside)
    words = re.sub(r"\b(19\d{2}|20\d{2})\b", " ", outside)
    folded = _fold(words)
    label = names.get(folded)
    if label is None:
        label = names.get(" ".join(w for w in folded.split() if w not in QUALIFIERS))
    if label is None:
        close = difflib.get_close_matches(folded, list(names), n=1, cutoff=0.75)
        label = names[close[0]] if close else None
    if label is None:
        return None
    return f"{label} {years[0]}" if years else label


def normalise_venue(taxonomy: Taxonomy, text: str | None) -> str | None:
    """For importers: the one spelling when the vocabulary knows the venue, else the text as given
    (validate then reports it with a hint)."""
    axis = venue_axis(taxonomy)
    if text is None or axis is None:
        return text
    return canonical_venue(axis, text) or text


def venue_pattern(axis: Axis) -> str:
    """The JSON Schema pattern of a venue: one label, optionally a space and a four-digit year."""
    labels = "|".join(re.escape(v.label) for v in axis.values)
    return f"^(?:{labels})(?: \\d{{4}})?$"
