"""GitHub Actions workflow commands, so a pull request shows each problem on its line."""

from __future__ import annotations


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(level: str, file: str, line: int | None, title: str, message: str) -> str:
    """`::error file=...,line=...,title=...::message` with GitHub's escaping rules."""
    where = f"file={_escape_property(file)}" + (f",line={line}" if line is not None else "")
    return f"::{level} {where},title={_escape_property(title)}::{_escape_data(message)}"
