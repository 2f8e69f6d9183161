"""Screening: the ranked queue of candidates, decisions on them, and ASReview LAB interop.

queue.py reads and checks screening/queue/*.yaml, screening/decisions/*.yaml and the rounds
file; rank.py scores candidates; decide.py writes decisions and the records they create;
asreview_io.py exports to and imports from ASReview LAB. File formats: docs in CONTRIBUTING.md.
"""
