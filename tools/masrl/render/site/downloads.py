"""Data files published with the site: the table's JSON, the .bib file, the JSON and CSV exports."""

from __future__ import annotations

import functools
import json

from masrl.model.project import Corpus
from masrl.model.records import Entry
from masrl.render.site.context import SiteContext, entry_page, page_url
from masrl.render.site.links import entry_links
from masrl.render.site.search import SHORT_BY_ID  # axes whose table chips show the value id

TABLE_DATA = "data/entries.json"
BIB_FILE = "masrl.bib"
CORPUS_JSON = "data/corpus.json"
STATS_JSON = "data/stats.json"
PAPERS_CSV = "data/papers.csv"
MASRL_CSV = "data/masrl.csv"
RIS_FILE = "masrl.ris"
EXCLUSIONS_CSV = "data/exclusions.csv"


def entry_bibtex(corpus: Corpus, entry: Entry) -> str:
    """The entry as `masrl export bib` writes it."""
    from masrl.exports.bibtex import export_bibtex

    return export_bibtex([entry])


def entry_ris(entry: Entry) -> str:
    from masrl.exports.ris import export_ris

    return export_ris([entry])


def entry_json(ctx: SiteContext, entry: Entry) -> str:
    """The entry's record with its derived reward families, as the table's JSON download holds it."""
    from masrl.exports.json import entry_record_text

    data = entry.to_data()
    data["reward_families"] = list(ctx.values_of(entry, "reward_families"))
    return entry_record_text(data)


def corpus_bibtex(ctx: SiteContext) -> str:
    """The whole corpus as `masrl export bib` writes it: the entries' BibTeX, already encoded once
    for the pages and the table (LaTeX encoding is the slow part), joined in key order. The writer
    separates entries by one blank line, so this equals export_bibtex(corpus.entries)."""
    return "\n".join(
        ctx.bibtex[entry.key] for entry in sorted(ctx.corpus.entries, key=lambda e: e.key)
    )


def entry_downloads(ctx: SiteContext) -> dict[str, dict[str, str]]:
    """Per entry key: its CSV header and row in both layouts and its RIS, written once for the
    table's data and the whole-corpus files (each writer writes a file row by row, so a file is
    its header and these rows joined in key order). The rows of each layout come from one
    writer: each row is written alone, so they equal what `masrl export csv` writes for each entry alone."""
    from masrl.exports.csv import entry_lines

    entries = ctx.entries
    csv_header, csv_rows = entry_lines(entries, ctx.taxonomy, "papers")
    masrl_header, masrl_rows = entry_lines(entries, ctx.taxonomy, "masrl")
    return {
        entry.key: {
            "csv_header": csv_header,
            "csv": csv_row,
            "masrl_csv_header": masrl_header,
            "masrl_csv": masrl_row,
            "ris": entry_ris(entry),
        }
        for entry, csv_row, masrl_row in zip(entries, csv_rows, masrl_rows, strict=True)
    }


def table_data(ctx: SiteContext, downloads: dict[str, dict[str, str]] | None = None) -> dict:
    """What table.js needs: the axes with their values, and one row per entry.

    URLs are relative to the site root; the script resolves them against the JSON file's URL.
    downloads: entry_downloads(ctx), when the caller has them already.
    """
    downloads = entry_downloads(ctx) if downloads is None else downloads
    axes = []
    for name in ctx.filter_fields:
        field = ctx.fields[name]
        values = [
            {"id": v, "label": ctx.value_label(name, v)} for v in ctx.taxonomy[field.axis].ids
        ]
        if (
            name in SHORT_BY_ID
        ):  # O1-O5 are how the survey names sub-decisions; the label goes in a tooltip
            for value in values:
                value["short"] = value["id"]
        for value in values:
            value["tip"] = ctx.chip_tip(name, value["id"])
        axes.append({"field": name, "label": ctx.field_label(name), "values": values})
    from masrl.exports.json import entries_document_text

    rows = []
    csv_header = masrl_header = ""
    for entry in ctx.entries:
        written = downloads[entry.key]
        csv_header, masrl_header = written["csv_header"], written["masrl_csv_header"]
        rows.append(
            {
                "key": entry.key,
                "title": entry.title,
                "year": entry.year,
                "venue": entry.venue,
                "authors": list(entry.authors),
                "arxiv_id": entry.arxiv_id or "",
                "first_author": entry.first_author,
                "summary": entry.summary,
                "url": page_url(entry_page(entry.key)),
                "tags": {name: list(ctx.values_of(entry, name)) for name in ctx.tag_fields},
                "links": entry_links(entry),
                # The CLI writers' own output for this entry: the browser's exports of a filtered
                # view are these strings joined in key order, so they equal `masrl export` of it.
                "bibtex": ctx.bibtex[entry.key],
                "csv": written["csv"],
                "masrl_csv": written["masrl_csv"],
                "ris": written["ris"],
                "json": entry_json(ctx, entry),
                # the compare view's evidence lines, per sub-decision
                "evidence": dict(entry.sub_decision_evidence or {}),
            }
        )
    years = [e.year for e in ctx.entries] or [0]
    columns = list(ctx.taxonomy.shown("column"))
    return {
        "axes": axes,
        "columns": columns,
        "entries": rows,
        "years": {"min": min(years), "max": max(years)},
        "csv_header": csv_header or entry_csv_header(),
        "masrl_csv_header": masrl_header or masrl_csv_header(ctx),
        # The JSON download is this head, the rows' records joined by ",\n" between newlines, "]}\n"
        "json_head": entries_document_text([]).split("[", 1)[0] + "[",
    }


def entry_csv_header() -> str:
    from masrl.exports.csv import PAPERS_HEADER

    return ",".join(PAPERS_HEADER) + "\n"


def masrl_csv_header(ctx: SiteContext) -> str:
    from masrl.exports.csv import masrl_header

    return ",".join(masrl_header(ctx.taxonomy)) + "\n"


def download_files(ctx: SiteContext) -> dict[str, bytes]:
    from masrl.exports.csv import export_csv
    from masrl.render.stats import stats_json

    downloads = entry_downloads(ctx)
    in_key_order = [downloads[key] for key in sorted(downloads)]
    files = {
        BIB_FILE: corpus_bibtex(ctx),
        CORPUS_JSON: ctx.corpus_json,
        STATS_JSON: stats_json(ctx.stats),
        # = export_csv(corpus, "papers") and (..., "masrl"), from the rows already written
        PAPERS_CSV: _joined(in_key_order, "csv")
        if in_key_order
        else export_csv(ctx.corpus, "papers"),
        MASRL_CSV: _joined(in_key_order, "masrl_csv")
        if in_key_order
        else export_csv(ctx.corpus, "masrl"),
        RIS_FILE: "\n".join(written["ris"] for written in in_key_order),
        EXCLUSIONS_CSV: export_csv(ctx.corpus, "exclusions"),
    }
    encoded = {path: text.encode("utf-8") for path, text in files.items()}
    # Compact: the table's data is the heaviest file the table page loads.
    encoded[TABLE_DATA] = _compact_json(table_data(ctx, downloads))
    return encoded


def _compact_json(data: dict) -> bytes:
    """json.dumps(data) in compact form, keys sorted, with a newline, in UTF-8; its "entries"
    written one by one, so the whole text is never held as one string (at thousands of entries
    that string and the encoder's pieces were the largest memory of a site build)."""
    dump = functools.partial(json.dumps, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    head, tail = dump({**data, "entries": []}).split('"entries":[]')
    rows = b",".join(dump(row).encode("utf-8") for row in data["entries"])
    return b"".join(((head + '"entries":[').encode("utf-8"), rows, f"]{tail}\n".encode()))


def _joined(rows: list[dict[str, str]], layout: str) -> str:
    """A whole CSV file from the entries' rows in key order: the header, then the rows."""
    return rows[0][f"{layout}_header"] + "".join(row[layout] for row in rows)
