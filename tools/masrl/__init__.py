"""masrl: the open corpus and toolkit for RL in LLM-based multi-agent systems."""

__version__ = "0.1.0"
