"""The living review's screening room: rounds, discovery, the ranked queue, decisions and ASReview LAB.

rounds.py checks screening/rounds.yaml; discover.py searches arXiv by query family and fills
screening/queue/; queue.py reads and writes the queue and reads decisions and rounds; rank.py
scores candidates; decide.py writes decisions and the records they create; asreview_io.py
exports to and imports from ASReview LAB. File formats: CONTRIBUTING.md.
"""
