"""The `masrl` command line: each command is a thin shell over a library function.

Commands live in small ``*_cli`` modules and are imported only when called (click's lazy-group
pattern), so `masrl validate` does not pay for pandas or matplotlib.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click

from masrl import __version__
from masrl.model.project import Project, find_project

# command name -> (module, attribute, one-line help shown by `masrl --help`)
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "validate": (
        "masrl.cli.validate",
        "validate",
        "Check every entry and exclusion record; exit 1 on any error.",
    ),
    "import": ("masrl.cli.io", "import_group", "Scaffold corpus files from a CSV or BibTeX file."),
    "export": ("masrl.cli.io", "export_group", "Write the corpus as CSV, BibTeX or JSON."),
    "build": ("masrl.cli.build", "build_command", "Regenerate every generated file from the YAML."),
    "check": (
        "masrl.cli.build",
        "check_command",
        "Fail with a diff when a committed generated file is stale.",
    ),
    "trace": (
        "masrl.cli.traces",
        "trace",
        "Orchestration traces: validate, metrics, figures, import, export, collect, query.",
    ),
    "release": (
        "masrl.cli.release",
        "release_command",
        "Write the versioned, citable release of a closed screening round.",
    ),
    "links": (
        "masrl.cli.links",
        "links_group",
        "Check every outgoing link of the corpus; record its health in links/health.yaml.",
    ),
    "add": (
        "masrl.cli.contribute",
        "add_command",
        "Scaffold an entry (or exclusion) from an arXiv id or URL.",
    ),
    "verify-metadata": (
        "masrl.cli.contribute",
        "verify_metadata_command",
        "Compare titles, years and first authors with arXiv; report new versions, journal references and DOIs.",
    ),
    "stats": (
        "masrl.cli.stats",
        "stats_command",
        "Print corpus statistics as Markdown, JSON or CSV.",
    ),
    "gaps": ("masrl.cli.gaps", "gaps_command", "Show empty and sparse cells and uncovered values."),
    "claims": (
        "masrl.cli.claims",
        "claims_command",
        "Check the claim ledger on the survey snapshot (fail = exit 1) and live (changes reported).",
    ),
    "plots": ("masrl.cli.plots", "plots_command", "Render the figures to figures/*.svg and *.png."),
    "site": ("masrl.cli.site", "site_group", "Build or preview the awesome-list site."),
    "agreement": (
        "masrl.cli.agreement",
        "agreement_command",
        "Agreement between screeners: kappa, alpha, disagreements.",
    ),
    "flow": (
        "masrl.cli.flow",
        "flow_command",
        "Show the screening flow (PRISMA style) per round and in all.",
    ),
    "discover": (
        "masrl.cli.discover",
        "discover_command",
        "Search arXiv with the query families; queue new candidates.",
    ),
    "snowball": (
        "masrl.cli.snowball",
        "snowball_command",
        "Chase citations of corpus entries through OpenAlex; queue new candidates.",
    ),
    "snapshot": (
        "masrl.cli.snapshot",
        "snapshot_group",
        "Freeze the corpus under a name (snapshots/NAME.json).",
    ),
    "screen": (
        "masrl.cli.screen",
        "screen_group",
        "Screen the candidate queue ranked by relevance; ASReview LAB export/import.",
    ),
}


DEBUG_ENV = "MASRL_DEBUG"


class ErrorReportingGroup(click.Group):
    """A command group that is masrl's one error handler: every MasrlError raised below it ends
    as one message on stderr and the error's exit code, never a traceback. So does anything else
    a command lets through: an OSError names its file and the fix, input nested too deeply for
    Python says so, and any other exception is reported as a bug in masrl. ``masrl --debug``
    (or MASRL_DEBUG=1) lets the exception through with its traceback."""

    def invoke(self, ctx):
        from masrl.check.validate import CorpusInvalid
        from masrl.errors import MasrlError
        from masrl.model.taxonomy import TaxonomyError
        from masrl.text import terminal_safe

        try:
            return super().invoke(ctx)
        except CorpusInvalid as exc:  # the whole validation report, as `masrl validate` prints it
            click.echo(terminal_safe(exc.report.render("text")), err=True)
            sys.exit(exc.exit_code)
        except TaxonomyError as exc:
            click.echo(terminal_safe(f"error: taxonomy: {exc}"), err=True)
            sys.exit(exc.exit_code)
        except MasrlError as exc:
            click.echo(terminal_safe(f"error: {exc}"), err=True)
            sys.exit(exc.exit_code)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:  # noqa: BLE001  (the last line of defence: one message, no traceback)
            if _debugging(ctx):
                raise
            click.echo(terminal_safe(f"error: {unexpected_error_message(exc)}"), err=True)
            sys.exit(1)


def _debugging(ctx: click.Context) -> bool:
    import os

    return bool(ctx.find_root().params.get("debug")) or os.environ.get(DEBUG_ENV, "") not in (
        "",
        "0",
    )


def unexpected_error_message(exc: Exception) -> str:
    """One line for an exception no library function turned into a MasrlError."""
    from masrl.files import WRITE_HINTS

    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        hint = WRITE_HINTS.get(exc.errno, "check the path and its permissions")
        return f"{where}{exc.strerror or exc} ({hint})"
    if isinstance(exc, RecursionError):
        return (
            "the input is nested too deeply to read (Python's recursion limit) "
            "(flatten the file; a real masrl file is never nested this deep)"
        )
    if isinstance(exc, MemoryError):
        return "out of memory (the input is too large for this machine)"
    return (
        f"masrl failed unexpectedly: {type(exc).__name__}: {exc} "
        "(this is a bug in masrl: run the command again with `masrl --debug` and report the "
        "traceback)"
    )


class LazyGroup(ErrorReportingGroup):
    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS:
            module_name, attribute, _ = LAZY_COMMANDS[name]
            return getattr(importlib.import_module(module_name), attribute)
        return super().get_command(ctx, name)

    def format_commands(self, ctx, formatter):
        # List help from the table, without importing every command module.
        rows = [(name, LAZY_COMMANDS[name][2]) for name in sorted(LAZY_COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def project_from(root: str | None) -> Project:
    """The checkout to work on, after rolling back a change a killed masrl command left half
    done there (masrl.files.transaction), so no command reads or builds on a partial change."""
    from masrl.files import recover

    project = Project(Path(root).resolve()) if root else find_project()
    restored = recover(project.root)
    if restored:
        click.echo(
            f"repaired: an interrupted masrl command was rolled back ({len(restored)} file(s) "
            f"restored: {', '.join(restored[:5])}{', ...' if len(restored) > 5 else ''})",
            err=True,
        )
    return project


def load_or_exit(root: str | None, allow_placeholders: bool = False):
    """The validated corpus; an invalid one raises CorpusInvalid, which the group reports (the
    validation report on stderr, exit status 1)."""
    from masrl.check.validate import load_corpus

    return load_corpus(project_from(root), allow_placeholders=allow_placeholders)


def emit(text: str, output: Path | None) -> None:
    """Write ``text`` to ``output`` (atomically) or to standard output."""
    if output:
        from masrl.files import write_atomic

        write_atomic(output, text)  # refuses devices, folders and symlinks leading elsewhere
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File to write (default: standard output).",
)

root_option = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    envvar="MASRL_ROOT",
    help="Corpus checkout to work on (default: the nearest folder holding corpus/).",
)


# Also given to groups a test may run on their own (click keeps the first help option it builds).
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="masrl")
@click.option(
    "--debug",
    is_flag=True,
    envvar=DEBUG_ENV,
    help="Show the traceback of an unexpected error (for a bug report).",
)
def main(debug: bool) -> None:
    """masrl: the corpus and toolkit for RL in LLM-based multi-agent systems."""
