"""Load: the records' shape, the vocabularies, strict YAML and the project on disk."""
