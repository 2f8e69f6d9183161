"""Replay screening on labelled decisions: masrl's ranking against ASReview LAB and random order.

    python benchmarks/bench_screening.py                      # masrl's own decisions, 10 seeds
    python benchmarks/bench_screening.py --dataset FILE.csv   # any review in ASReview's CSV layout
    python benchmarks/bench_screening.py --ablation           # also masrl without each feature block
    python benchmarks/bench_screening.py --quick              # 2 seeds (what the test runs)

Every method starts from the same prior knowledge (one include and one exclude, drawn per seed),
then screens one record at a time, retraining after each (ASReview's simulation protocol):
- random: the rest in a seeded random order;
- asreview elas_u4 (default: SVM on TF-IDF 1-2 grams) and elas_u3 (naive Bayes), run through
  ASReview's own Simulate API on the same texts;
- masrl: masrl.screening.rank.Ranker with the field features, and with text alone.
Figures: WSS@95 (work saved over random at 95 % recall), recall after 10/25/50 % screened, time
per seed; mean and [min, max] over seeds. The last line is `WSS@95 ratio masrl/asreview: X.XX`
(masrl's mean WSS@95 over elas_u4's).

On masrl's decisions the texts are titles plus our own one-line summaries (entries) or rationales
(exclusions), not abstracts: those are all masrl keeps. That makes the task easier for every
method alike, so compare methods, not these figures with reviews in other fields.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from masrl.errors import MasrlError
from masrl.model.project import Project
from masrl.screening.queue import Document, labelled_documents
from masrl.screening.rank import FieldKnowledge, Ranker, RankSettings

# ---------------------------------------------------------------------------------------------
# Metrics on an order of labels (1 include, 0 exclude), priors first


def recall_after(labels_in_order: list[int], fraction: float) -> float:
    screened = math.ceil(fraction * len(labels_in_order))
    return sum(labels_in_order[:screened]) / sum(labels_in_order)


def wss(labels_in_order: list[int], level: float = 0.95) -> float:
    """Work saved over sampling at a recall level: (N - screened to reach it) / N - (1 - level)."""
    needed, found = math.ceil(level * sum(labels_in_order)), 0
    for position, label in enumerate(labels_in_order, start=1):
        found += label
        if found >= needed:
            return (len(labels_in_order) - position) / len(labels_in_order) - (1 - level)
    return -(1 - level)


# ---------------------------------------------------------------------------------------------
# Methods: each returns the order in which records were screened (row indices)


def random_order(labels: np.ndarray, prior: list[int], seed: int) -> list[int]:
    rest = np.setdiff1d(np.arange(len(labels)), prior)
    return prior + np.random.default_rng(seed + 1000).permutation(rest).tolist()


def asreview_order(
    documents: list[Document], labels: np.ndarray, prior: list[int], seed: int, model: str
) -> list[int]:
    import pandas as pd
    from asreview.learner import ActiveLearningCycle
    from asreview.models.models import get_ai_config
    from asreview.simulation.simulate import Simulate

    np.random.seed(seed)  # ASReview's models draw from the global generator where they draw at all
    frame = pd.DataFrame(
        {
            "title": [d.title for d in documents],
            "abstract": [d.text[len(d.title) :].lstrip(". ") for d in documents],
        }
    )
    cycle = ActiveLearningCycle.from_meta(get_ai_config(model)["value"])
    if hasattr(cycle.classifier, "random_state"):
        cycle.classifier.set_params(random_state=seed)
    simulation = Simulate(frame, labels.tolist(), [cycle], stopper=-1, print_progress=False)
    simulation.label(prior)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulation.review()
    order = [int(r) for r in simulation._results["record_id"].tolist()]
    seen = set(order)
    return order + [i for i in range(len(labels)) if i not in seen]


def masrl_order(
    documents: list[Document],
    labels: np.ndarray,
    prior: list[int],
    knowledge: FieldKnowledge,
    settings: RankSettings,
) -> list[int]:
    # Only what a screener would know: the reason code of a record is visible once it is excluded.
    ranker = Ranker(documents, knowledge, settings)
    order, pool = list(prior), sorted(set(range(len(labels))) - set(prior))
    while pool:
        ranker.fit(order, labels[order])
        best = ranker.order(pool)[0]
        order.append(best)
        pool.remove(best)
        if (
            labels[order].sum() == labels.sum()
        ):  # every include found: the rest cannot change a figure
            order += ranker.order(pool)
            break
    return order


def masrl_order_with(settings, documents, labels, knowledge, prior, seed):
    return masrl_order(documents, labels, prior, knowledge, settings)


# ---------------------------------------------------------------------------------------------
# Runs and the table


@dataclass
class Figures:
    wss95: list[float] = field(default_factory=list)
    recall10: list[float] = field(default_factory=list)
    recall25: list[float] = field(default_factory=list)
    recall50: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def add(self, labels_in_order: list[int], seconds: float) -> None:
        self.wss95.append(wss(labels_in_order))
        self.recall10.append(recall_after(labels_in_order, 0.10))
        self.recall25.append(recall_after(labels_in_order, 0.25))
        self.recall50.append(recall_after(labels_in_order, 0.50))
        self.seconds.append(seconds)


def cell(values: list[float], percent: bool = True) -> str:
    scale, unit = (100, "") if percent else (1, "")
    return f"{np.mean(values) * scale:6.1f} [{min(values) * scale:5.1f},{max(values) * scale:5.1f}]{unit}"


def draw_prior(labels: np.ndarray, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [
        int(rng.choice(np.flatnonzero(labels == 1))),
        int(rng.choice(np.flatnonzero(labels == 0))),
    ]


def run(
    documents: list[Document],
    knowledge: FieldKnowledge,
    seeds: int,
    field_features: bool,
    ablation: bool,
    include_asreview: bool = True,
) -> dict[str, Figures]:
    labels = np.array([d.label for d in documents])
    full = RankSettings() if field_features else RankSettings().only_text()
    methods: dict[str, object] = {"random": lambda prior, seed: random_order(labels, prior, seed)}
    if include_asreview:
        methods["asreview elas_u4 (default)"] = lambda prior, seed: asreview_order(
            documents, labels, prior, seed, "elas_u4"
        )
        methods["asreview elas_u3 (naive Bayes)"] = lambda prior, seed: asreview_order(
            documents, labels, prior, seed, "elas_u3"
        )
    methods["masrl"] = lambda prior, seed: masrl_order(documents, labels, prior, knowledge, full)
    if field_features:
        methods["masrl, text only"] = lambda prior, seed: masrl_order(
            documents, labels, prior, knowledge, full.only_text()
        )
    if ablation and field_features:
        variants = {
            "masrl without taxonomy": replace(full, taxonomy=False),
            "masrl without reasons": replace(full, reasons=False),
            "masrl with families": replace(full, families=True),
        }
        for name, settings in variants.items():
            methods[name] = partial(masrl_order_with, settings, documents, labels, knowledge)
    results = {name: Figures() for name in methods}
    for seed in range(seeds):
        prior = draw_prior(labels, seed)
        for name, method in methods.items():
            started = time.perf_counter()
            order = method(prior, seed)
            results[name].add(labels[order].tolist(), time.perf_counter() - started)
    return results


def print_table(
    results: dict[str, Figures], documents: list[Document], seeds: int, source: str
) -> None:
    labels = [d.label for d in documents]
    print(
        f"screening replay on {source}: {len(labels)} records, {sum(labels)} included, {seeds} seeds "
        "(prior: 1 include + 1 exclude per seed); mean [min,max] over seeds"
    )
    header = f"{'method':32} {'WSS@95 %':>20} {'recall@10% %':>20} {'recall@25% %':>20} {'recall@50% %':>20} {'s/seed':>8}"
    print(header)
    print("-" * len(header))
    for name, f in results.items():
        print(
            f"{name:32} {cell(f.wss95):>20} {cell(f.recall10):>20} {cell(f.recall25):>20} {cell(f.recall50):>20} "
            f"{np.mean(f.seconds):8.2f}"
        )
    masrl, asreview = results["masrl"], results.get("asreview elas_u4 (default)")
    if asreview is not None:
        ratio = (
            np.mean(masrl.wss95) / np.mean(asreview.wss95)
            if np.mean(asreview.wss95) > 0
            else float("nan")
        )
        print(f"WSS@95 ratio masrl/asreview: {ratio:.2f}")


def documents_from_csv(path: Path) -> list[Document]:
    """Records of a labelled CSV in ASReview's layout: title, abstract, [authors], label_included."""
    import pandas as pd

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise MasrlError(f"cannot read the CSV: {exc}".splitlines()[0], path=path) from exc
    label_column = next(
        (c for c in ("label_included", "included", "label") if c in frame.columns), None
    )
    if "title" not in frame.columns or label_column is None:
        raise MasrlError(
            "needs the columns 'title' and 'label_included' (0/1)",
            path=path,
            hint=f"found: {', '.join(frame.columns) or 'none'}",
        )
    documents = []
    for row, record in enumerate(frame.to_dict("records"), start=2):
        value = record[label_column].strip()
        if value not in ("0", "1"):
            raise MasrlError(
                f"'{label_column}' is {value!r}; every record needs 0 or 1", path=path, line=row
            )
        title, abstract = record["title"].strip(), record.get("abstract", "").strip()
        authors = tuple(a.strip() for a in record.get("authors", "").split(";") if a.strip())
        documents.append(
            Document(
                id=f"{row:08d}",
                title=title,
                text=f"{title}. {abstract}",
                authors=authors,
                label=int(value),
            )
        )
    labels = [d.label for d in documents]
    if sum(labels) < 2 or labels.count(0) < 2:
        raise MasrlError("needs at least two included and two excluded records", path=path)
    return documents


def asreview_installed() -> bool:
    try:
        import asreview  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dataset",
        type=Path,
        help="labelled CSV in ASReview's layout (title, abstract, label_included)",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="corpus checkout whose decisions to replay"
    )
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="2 seeds")
    parser.add_argument(
        "--ablation", action="store_true", help="also run masrl without each field block"
    )
    parser.add_argument(
        "--text",
        choices=["title+prose", "title"],
        default="title+prose",
        help="masrl's decisions: titles with our summaries/rationales, or titles alone",
    )
    args = parser.parse_args(argv)
    seeds = 2 if args.quick else args.seeds
    try:
        if args.dataset:
            documents, knowledge, source = (
                documents_from_csv(args.dataset),
                FieldKnowledge(),
                args.dataset.name,
            )
        else:
            project = Project(args.root.resolve())
            documents = labelled_documents(project)
            if (
                args.text == "title"
            ):  # our rationales say why a record is out: titles alone cannot leak that
                documents = [replace(d, text=d.title) for d in documents]
            knowledge = FieldKnowledge.from_taxonomy_dir(project.taxonomy_dir)
            source = (
                f"masrl's decisions (entries include, exclusion records exclude; text: {args.text})"
            )
            if len({d.label for d in documents}) < 2:
                raise MasrlError(
                    "needs at least one entry and one exclusion record", path=args.root
                )
    except MasrlError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    include_asreview = asreview_installed()
    if not include_asreview:
        print(
            "ASReview LAB is not installed, so its rows are skipped: install the asreview extra "
            "(`make setup` does, or `pip install 'masrl[asreview]'`) to compare against it",
            file=sys.stderr,
        )
    results = run(
        documents,
        knowledge,
        seeds,
        field_features=not args.dataset,
        ablation=args.ablation,
        include_asreview=include_asreview,
    )
    started = time.perf_counter()
    Ranker(documents, knowledge, RankSettings()).fit(
        range(len(documents)), [d.label for d in documents]
    )
    print(
        f"one masrl retrain on all {len(documents)} decisions (features + fit): {time.perf_counter() - started:.3f} s"
    )
    print_table(results, documents, seeds, source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
