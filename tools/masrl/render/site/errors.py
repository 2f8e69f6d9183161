"""The one exception of the site package: what stops a build, with a message for the user."""

from __future__ import annotations

from masrl.errors import MasrlError


class SiteError(MasrlError):
    """The site cannot be built; the message says why (and lists mkdocs' warnings in strict mode)."""
