"""Small Markdown builders. Cells and text passed in are already escaped (see escape.py)."""

from __future__ import annotations

import re


def table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table; ``align`` has one letter per column: l, r or c (default: all left)."""
    align = align or "l" * len(headers)
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule[a] for a in align) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def code_block(text: str, language: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def figure(src: str, title: str, caption: str) -> str:
    """An image with a caption, as raw HTML (src is a site-relative URL, title and caption escaped)."""
    return (
        f'<figure class="masrl-figure">\n'
        f'<img src="{src}" alt="{title}: {caption}" loading="lazy">\n'
        f"<figcaption><strong>{title}.</strong> {caption}</figcaption>\n"
        f"</figure>"
    )


def html_table(headers: list[str], rows: list[list[str]], css_class: str) -> str:
    """A raw HTML table (cells already escaped); for long tables Markdown would be slow on."""
    head = "".join(f'<th scope="col">{h}</th>' for h in headers)
    body = "\n".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table class="{css_class}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'


def compact_tables(tables: list[tuple[str, list[str], list[list[str]]]]) -> str:
    """Small count tables side by side, as raw HTML: (caption, headers, rows) each, cells escaped."""
    blocks = []
    for caption, headers, rows in tables:
        head = "".join(f'<th scope="col">{h}</th>' for h in headers)
        body = "".join(
            "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows
        )
        blocks.append(
            f'<table class="masrl-compact"><caption>{caption}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )
    return '<div class="masrl-grid">\n' + "\n".join(blocks) + "\n</div>"
