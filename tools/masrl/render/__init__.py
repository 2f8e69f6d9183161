"""Render: README list, STATS.md, figures, the site, and the build that writes them."""
