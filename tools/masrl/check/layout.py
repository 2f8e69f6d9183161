"""Files in the data folders that masrl would otherwise skip without a word.

corpus/ and exclusions/ are flat folders of ``*.yaml`` files. A ``*.yml`` file, a subfolder or a
stray file there is almost always a contributor's mistake (the record silently never counted),
so each is reported. Dotfiles (.gitkeep, editor swap files) are left alone.
"""

from __future__ import annotations

from pathlib import Path

from masrl.model.project import Project

# (path relative to the root, line, message, hint, severity, code)
LayoutProblem = tuple[str, int, str, str, str, str]


def stray_files(project: Project) -> list[LayoutProblem]:
    problems: list[LayoutProblem] = []
    for folder in (project.corpus_dir, project.exclusions_dir):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.name.startswith("."):
                continue
            rel = project.relative(path) if not path.is_symlink() else _lexical(project, path)
            if path.is_dir() and not path.is_symlink():
                problems.append(
                    (
                        rel,
                        1,
                        f"{folder.name}/ is a flat folder; files in the subfolder {path.name}/ are not read",
                        f"move the .yaml files up into {folder.name}/",
                        "error",
                        "layout",
                    )
                )
            elif path.suffix.lower() in (".yml", ".yaml") and path.suffix != ".yaml":
                problems.append(
                    (
                        rel,
                        1,
                        f"the file is named *{path.suffix} and is not read",
                        f"rename it to {path.stem}.yaml",
                        "error",
                        "layout",
                    )
                )
            elif path.suffix != ".yaml":
                problems.append(
                    (
                        rel,
                        1,
                        "this file is not a .yaml record and is not read",
                        f"move it out of {folder.name}/",
                        "warning",
                        "layout",
                    )
                )
    return problems


def _lexical(project: Project, path: Path) -> str:
    try:
        return path.absolute().relative_to(project.root.absolute()).as_posix()
    except ValueError:
        return str(path)
