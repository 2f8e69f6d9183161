"""Derive: statistics, gap tables and the claim ledger computed from a valid corpus."""
