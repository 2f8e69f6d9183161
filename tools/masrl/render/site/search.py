"""What search ranks by: each entry page's taxonomy terms as search tags, and the taxonomy page
(where every term is defined) boosted above the entries.

mkdocs-material's search weighs a document's tags a thousand times its title and a million times
its text (the search plugin's `fields`), and multiplies a page's score by its front matter's
`search: boost:`. An entry page's tags are the labels of the values it holds (and the short ids of
the axes named by them, O1-O5), with the label of each axis it holds a value on ("Credit-bearing
unit"); the taxonomy page holds every such term. So a taxonomy term ("when to stop", "O5",
"credit") brings the taxonomy page first, then the entries tagged with it, then pages that only
mention it. Without the tags plugin, material shows no tag list on the page itself.
"""

from __future__ import annotations

import json

from masrl.model.records import Entry
from masrl.render.site.context import SiteContext

# The definition page outranks the entries tagged with a term.
DEFINITION_BOOST = 10
# Axes whose values are known by their ids as well as their labels (O1-O5, the survey's names).
SHORT_BY_ID = ("sub_decisions", "reward_families")


def _terms(ctx: SiteContext, name: str, values) -> list[str]:
    terms = [ctx.value_label(name, value) for value in values]
    if name in SHORT_BY_ID:
        terms += list(values)
    if values:
        terms.append(ctx.field_label(name))
    return terms


def entry_search_tags(ctx: SiteContext, entry: Entry) -> str:
    """The front-matter line of an entry page's search tags (JSON is a YAML flow sequence)."""
    terms = []
    for name in ctx.tag_fields:
        terms += _terms(ctx, name, ctx.values_of(entry, name))
    return "tags: " + json.dumps(list(dict.fromkeys(terms)), ensure_ascii=False)


def definition_front_matter(ctx: SiteContext) -> str:
    """The taxonomy page's front matter: every term of the tag axes as its tags, and a boost."""
    terms = []
    for name in ctx.tag_fields:
        field = ctx.fields[name]
        if field.axis:
            terms += _terms(ctx, name, ctx.taxonomy[field.axis].ids)
    return "\n".join(
        [
            "---",
            "search:",
            f"  boost: {DEFINITION_BOOST}",
            "tags: " + json.dumps(list(dict.fromkeys(terms)), ensure_ascii=False),
            "---",
        ]
    )
