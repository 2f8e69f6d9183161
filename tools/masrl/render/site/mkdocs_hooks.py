"""mkdocs hooks of every masrl site build and preview: ``mkdocs_config`` and ``site serve`` name
this file, and mkdocs loads it afresh for each build, so what it does lives in modules loaded once."""

from masrl.render.site import navigation, search_index
from masrl.render.site.html_pages import on_pre_page  # noqa: F401 - pages written as HTML
from masrl.render.site.page_memory import on_post_page  # noqa: F401 - memory
from masrl.render.site.raw_html import on_page_content, on_page_markdown  # noqa: F401 - page events
from masrl.render.site.templates import on_env  # noqa: F401 - the env event


def on_config(config):
    """mkdocs' config event: the generated pages in the menu, the quicker search index."""
    return search_index.on_config(navigation.on_config(config))
