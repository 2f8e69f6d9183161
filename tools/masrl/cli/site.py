"""`masrl site build` and `masrl site serve`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from masrl.cli import project_from, root_option

site_url_option = click.option(
    "--site-url",
    default=None,
    envvar="MASRL_SITE_URL",
    help="Public address of the site, a plain http(s) address (canonical links, sitemap, instant loading); default: url in CITATION.cff.",
)


@click.group("site")
def site_group() -> None:
    """Build or preview the awesome-list site (mkdocs-material, strict, offline)."""


@site_group.command("build")
@root_option
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the built site (default: build/site).",
)
@click.option(
    "--docs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the generated docs (default: build/site-src).",
)
@site_url_option
def build_command(
    root: str | None, output: Path | None, docs_dir: Path | None, site_url: str | None
) -> None:
    """Generate the pages from the YAML and build the site in strict mode."""
    from masrl.check.validate import CorpusInvalid
    from masrl.render.site import SiteError, build_site

    try:
        result = build_site(project_from(root), output=output, staging=docs_dir, site_url=site_url)
    except CorpusInvalid as exc:
        click.echo(exc.report.render("text"), err=True)
        sys.exit(1)
    except SiteError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(
        f"site: {result.pages} pages, {result.files} files in {result.seconds:.1f} s -> {result.paths.output}"
    )


@site_group.command("serve")
@root_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--docs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the generated docs (default: build/site-src).",
)
def serve_command(root: str | None, host: str, port: int, docs_dir: Path | None) -> None:
    """Preview the site with live reload; edits to the YAML or site/ regenerate the pages."""
    from masrl.check.validate import CorpusInvalid
    from masrl.render.site import SiteError
    from masrl.render.site.serve import serve_site

    try:
        serve_site(project_from(root), host=host, port=port, staging=docs_dir, echo=click.echo)
    except CorpusInvalid as exc:
        click.echo(exc.report.render("text"), err=True)
        sys.exit(1)
    except SiteError as exc:
        raise click.ClickException(str(exc)) from exc
