"""The site's navigation for pages generated from the data: one browse page per taxonomy axis,
and the further pages of the entry index.

`site/mkdocs.yml` names the hand-written pages and each section's first page; the build stages,
per section, the labels and paths of the generated pages in ``.nav-<section>.json`` (mkdocs skips
dot files), and mkdocs' config event appends them to that section. So a new axis file gets its
page in the menu without an edit to mkdocs.yml, and so does a longer corpus's next index page."""

from __future__ import annotations

import json
from pathlib import Path

NAV_FILE = ".nav-{section}.json"


def nav_file(section: str, items: list[tuple[str, str]]) -> dict[str, str]:
    """The staged file that appends [(label, page)] to the menu section ``section``."""
    text = json.dumps([[label, page] for label, page in items], ensure_ascii=False, indent=0)
    return {NAV_FILE.format(section=section): text + "\n"}


def on_config(config):
    """mkdocs' config event: each section named by a staged file gets its generated pages."""
    if not config.nav:
        return config
    for section in config.nav:
        if not isinstance(section, dict):
            continue
        for name, items in section.items():
            staged = Path(config.docs_dir) / NAV_FILE.format(section=name)
            if staged.is_file() and isinstance(items, list):
                added = json.loads(staged.read_text(encoding="utf-8"))
                kept = [
                    i
                    for i in items
                    if not (isinstance(i, dict) and list(i.values())[0] in {p for _, p in added})
                ]
                section[name] = [*kept, *({label: page} for label, page in added)]
    return config
