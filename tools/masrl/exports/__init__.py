"""Exports: one module per output format (CSV, BibTeX, JSON)."""
