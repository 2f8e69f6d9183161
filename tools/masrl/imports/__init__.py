"""Imports: records from outside (CSV, BibTeX, arXiv) turned into corpus files."""
