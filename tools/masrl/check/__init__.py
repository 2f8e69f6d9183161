"""Check: validation of every record against the model and the vocabularies."""
