"""Rank screening candidates by predicted relevance, and say why.

The model is a logistic regression over blocks of features, all computed with scikit-learn:

- text: TF-IDF of title + abstract (word 1-2 grams, sublinear tf, function words kept) and of
  character 3-5 grams (short titles share few whole words);
- taxonomy: cosine similarity of the text to each definition in the taxonomy (reward types,
  credit units, sub-decisions, categories), so a paper that talks like a tagged entry scores up;
- families: which query families' search terms occur in the text;
- reasons: similarity to each exclusion reason's definition, and to the records already excluded
  for that reason (negative evidence; leave-one-out for the records being trained on);
- categories, authors: arXiv categories and the share of authors who wrote an included record.
  These two are used only when both included and excluded training records carry them: the
  published entries have no categories and the exclusion records no authors, and a field that only
  one class carries would teach the model "has field => include" rather than anything true.

Every block can be switched off (RankSettings), which is how the benchmark measures each one's
gain. The ranking is deterministic: liblinear runs with a fixed random_state, ties are broken by
record id, and the seed only matters to callers that sample (the benchmark's prior knowledge).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from masrl.model import yamlio
from masrl.screening.queue import Document

if TYPE_CHECKING:  # scikit-learn takes two seconds to import: only making a ranking needs it
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

TAXONOMY_AXES = ("reward_types", "reward_families", "credit_units", "sub_decisions", "categories")
MIN_CARRIERS = 3  # records of each class that must carry a field before its block is used


@dataclass(frozen=True)
class RankSettings:
    text: bool = True
    taxonomy: bool = True
    families: bool = False  # on label words alone it cost 7 points of WSS@95; see the closing note
    reasons: bool = True
    categories: bool = True
    authors: bool = True
    C: float = 4.0
    include_weight: float | None = (
        None  # weight of an include relative to an exclude; None: balanced classes
    )
    stop_words: bool = False  # keeping "no", "not", "only" measured better on our decisions
    # weight of a character 3-5-gram TF-IDF block (0: off): at 0.3 it helps short titles; at 1.0
    # it drowned the word block (WSS@95 22.5 against 24.3 on the 176 decisions of round 2026-11)
    char_ngrams: float = 0.3
    model: str = "logistic"  # or "svm"
    field_weight: float = 0.5  # scale of the dense field blocks next to the unit-norm TF-IDF rows

    def only_text(self) -> RankSettings:
        return replace(
            self, taxonomy=False, families=False, reasons=False, categories=False, authors=False
        )


@dataclass(frozen=True)
class FieldKnowledge:
    """What masrl knows about the field, read from taxonomy/*.yaml."""

    definitions: tuple[tuple[str, str], ...] = ()  # (feature name, label + definition)
    family_terms: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (family id, search terms)
    reason_definitions: tuple[tuple[str, str], ...] = ()  # (reason code, label + definition)

    @classmethod
    def from_taxonomy_dir(cls, folder: Path) -> FieldKnowledge:
        def values(axis: str) -> list[dict]:
            path = folder / f"{axis}.yaml"
            data = yamlio.load_file(path) if path.is_file() else {}
            return [v for v in (data.get("values") or []) if isinstance(v, dict) and "id" in v]

        definitions = tuple(
            (
                f"{axis}/{v['id']}",
                f"{v.get('label', '')} {v.get('name', '')} {v.get('definition', '')}",
            )
            for axis in TAXONOMY_AXES
            for v in values(axis)
        )
        families = tuple(
            (v["id"], tuple(v.get("terms") or ()) or (str(v.get("label", v["id"])),))
            for v in values("query_families")
        )
        reasons = tuple(
            (v["id"], f"{v.get('label', '')} {v.get('definition', '')}")
            for v in values("exclusion_reasons")
        )
        return cls(definitions, families, reasons)


def _normal(text: str) -> str:
    return " " + " ".join(re.sub(r"[^0-9a-z]+", " ", text.casefold()).split()) + " "


def author_key(author: str) -> str:
    """'Luo, Xufang' -> 'luo x': surname and first initial, so name forms compare equal."""
    surname, _, given = author.partition(",")
    given = given.strip()
    return f"{_normal(surname).strip()} {given[:1].casefold()}".strip()


class Ranker:
    """Features for a fixed set of documents; fit on some, score the others.

    Features that do not depend on labels are computed once (as ASReview computes its feature
    matrix once per simulation); the label-dependent ones (author overlap, excluded-by-reason
    centroids) are recomputed at every fit from the training records only.
    """

    def __init__(
        self,
        documents: list[Document],
        knowledge: FieldKnowledge,
        settings: RankSettings | None = None,
    ):
        self.documents = documents
        self.knowledge = knowledge
        self.settings = settings or RankSettings()
        from sklearn.feature_extraction.text import TfidfVectorizer

        s = self.settings
        self.vectorizer = TfidfVectorizer(
            ngram_range=(1, 2),
            sublinear_tf=True,
            min_df=1,
            max_df=0.95,
            stop_words="english" if self.settings.stop_words else None,
            dtype=np.float64,
        )
        texts = [d.text for d in documents]
        self.tfidf = self.vectorizer.fit_transform(texts).tocsr()
        vocabulary = self.vectorizer.get_feature_names_out()
        blocks, names = [], []
        if s.text:
            blocks.append(self.tfidf)
            names += [f"term:{t}" for t in vocabulary]
        if s.text and s.char_ngrams:
            characters = TfidfVectorizer(
                analyzer="char_wb",
                ngram_range=(3, 5),
                sublinear_tf=True,
                min_df=2,
                dtype=np.float64,
            )
            blocks.append(characters.fit_transform(texts) * s.char_ngrams)
            names += [f"chars:{t.strip()}" for t in characters.get_feature_names_out()]
        if s.taxonomy and knowledge.definitions:
            blocks.append(
                sparse.csr_matrix(
                    self._similarity([t for _, t in knowledge.definitions]) * s.field_weight
                )
            )
            names += [f"taxonomy:{n}" for n, _ in knowledge.definitions]
        if s.families and knowledge.family_terms:
            normal = [_normal(t) for t in texts]
            matches = np.array(
                [
                    [
                        float(any(_normal(term) in doc for term in terms))
                        for _, terms in knowledge.family_terms
                    ]
                    for doc in normal
                ]
            )
            blocks.append(sparse.csr_matrix(matches * s.field_weight))
            names += [f"family:{f}" for f, _ in knowledge.family_terms]
        if s.reasons and knowledge.reason_definitions:
            blocks.append(
                sparse.csr_matrix(
                    self._similarity([t for _, t in knowledge.reason_definitions]) * s.field_weight
                )
            )
            names += [f"reason-definition:{r}" for r, _ in knowledge.reason_definitions]
        self.static = (
            sparse.hstack(blocks).tocsr() if blocks else sparse.csr_matrix((len(documents), 0))
        )
        self.static_names = names
        self.categories = sorted({c for d in documents for c in d.categories})
        self.category_matrix = sparse.csr_matrix(
            np.array(
                [[float(c in d.categories) for c in self.categories] for d in documents]
            ).reshape(len(documents), -1)
        )
        self.author_keys = [frozenset(author_key(a) for a in d.authors) for d in documents]
        self.reason_codes = sorted({d.reason_code for d in documents if d.reason_code})
        self.model: LogisticRegression | LinearSVC | None = None
        self.names: list[str] = []
        self._train: np.ndarray | None = None

    def _similarity(self, texts: list[str]) -> np.ndarray:
        reference = self.vectorizer.transform(texts)
        return (self.tfidf @ reference.T).toarray()

    # -- label-dependent blocks ---------------------------------------------------------------

    def _carried(self, train: np.ndarray, labels: np.ndarray, has) -> bool:
        counts = [sum(1 for i in train[labels == y] if has(self.documents[i])) for y in (0, 1)]
        return min(counts) >= MIN_CARRIERS

    def _dynamic(
        self, train: np.ndarray, labels: np.ndarray
    ) -> tuple[sparse.csr_matrix, list[str]]:
        s, n = self.settings, len(self.documents)
        blocks, names = [], []
        if (
            s.categories
            and self.categories
            and self._carried(train, labels, lambda d: bool(d.categories))
        ):
            blocks.append(self.category_matrix * s.field_weight)
            names += [f"category:{c}" for c in self.categories]
        if s.authors and self._carried(train, labels, lambda d: bool(d.authors)):
            included = train[labels == 1]
            counts: dict[str, int] = {}
            for i in included:
                for key in self.author_keys[i]:
                    counts[key] = counts.get(key, 0) + 1
            own = set(included.tolist())
            overlap = np.zeros((n, 1))
            for i, keys in enumerate(self.author_keys):
                if keys:  # leave one out: a record's own authors do not count as overlap
                    overlap[i, 0] = sum(1 for k in keys if counts.get(k, 0) - (i in own) > 0) / len(
                        keys
                    )
            blocks.append(sparse.csr_matrix(overlap * s.field_weight))
            names.append("authors:share-in-included")
        if s.reasons and self.reason_codes:
            columns, reason_names = [], []
            for code in self.reason_codes:
                members = [
                    i
                    for i, y in zip(train, labels)
                    if y == 0 and self.documents[i].reason_code == code
                ]
                if not members:
                    continue
                total = np.asarray(self.tfidf[members].sum(axis=0)).ravel()
                dots = self.tfidf @ total
                self_dots = np.asarray(self.tfidf.multiply(self.tfidf).sum(axis=1)).ravel()
                member = np.zeros(n, dtype=bool)
                member[members] = True
                # leave one out: a training record is compared with the others excluded for its reason
                loo_dots = np.where(member, dots - self_dots, dots)
                loo_norm_sq = np.where(member, total @ total - 2 * dots + self_dots, total @ total)
                norms = np.sqrt(np.clip(loo_norm_sq, 0, None))
                columns.append(np.divide(loo_dots, norms, out=np.zeros(n), where=norms > 1e-12))
                reason_names.append(f"excluded-like:{code}")
            if columns:
                blocks.append(sparse.csr_matrix(np.column_stack(columns) * s.field_weight))
                names += reason_names
        if not blocks:
            return sparse.csr_matrix((n, 0)), []
        return sparse.hstack(blocks).tocsr(), names

    # -- fit, score, explain --------------------------------------------------------------------

    def fit(self, train: list[int] | np.ndarray, labels: list[int] | np.ndarray) -> Ranker:
        train, labels = np.asarray(train, dtype=int), np.asarray(labels, dtype=int)
        if len(set(labels.tolist())) < 2:
            self.model, self._train = None, train
            return self
        from sklearn.linear_model import LogisticRegression
        from sklearn.svm import LinearSVC

        dynamic, dynamic_names = self._dynamic(train, labels)
        self.matrix = sparse.hstack([self.static, dynamic]).tocsr()
        self.names = self.static_names + dynamic_names
        s = self.settings
        if s.include_weight is None:
            weights = "balanced"
        else:  # ASReview's balancer: includes weigh include_weight times as much, over the classes' sizes
            weights = {1: 1.0, 0: (labels == 1).sum() / (s.include_weight * (labels == 0).sum())}
        if s.model == "svm":
            self.model = LinearSVC(C=s.C, class_weight=weights, random_state=0)
        else:
            self.model = LogisticRegression(
                C=s.C, class_weight=weights, solver="liblinear", random_state=0
            )
        self.model.fit(self.matrix[train], labels)
        self._train = train
        return self

    def scores(self, rows: list[int] | np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=int)
        if self.model is None or len(rows) == 0:
            return np.full(len(rows), 0.5)
        if self.settings.model == "svm":
            return 1 / (1 + np.exp(-self.model.decision_function(self.matrix[rows])))
        return self.model.predict_proba(self.matrix[rows])[:, 1]

    def order(self, rows: list[int] | np.ndarray) -> list[int]:
        """Rows by descending score, ties by document id (so the order never depends on input order)."""
        rows = list(rows)
        if not rows:
            return []
        scores = self.scores(rows)
        return [
            r
            for _, _, r in sorted(
                zip(-np.round(scores, 12), (self.documents[r].id for r in rows), rows)
            )
        ]

    def explain(self, row: int, top: int = 5) -> list[tuple[str, float]]:
        """The features that pushed this record's score up most, with their contribution to the log-odds."""
        if self.model is None:
            return []
        values = self.matrix[row].toarray().ravel() * self.model.coef_[0]
        candidates = [(v, self.names[j]) for j, v in enumerate(values) if v > 0]
        candidates.sort(key=lambda item: (-item[0], item[1]))
        return [(name, float(v)) for v, name in candidates[:top]]


@dataclass(frozen=True)
class Ranked:
    document: Document
    score: float
    reasons: tuple[tuple[str, float], ...]


def rank(
    labelled: list[Document],
    candidates: list[Document],
    knowledge: FieldKnowledge,
    settings: RankSettings | None = None,
    top_terms: int = 5,
) -> list[Ranked]:
    """Candidates in screening order, each with its score and the features behind it."""
    documents = labelled + candidates
    ranker = Ranker(documents, knowledge, settings)
    labelled_rows = list(range(len(labelled)))
    ranker.fit(labelled_rows, [d.label for d in labelled])
    rows = list(range(len(labelled), len(documents)))
    scores = dict(zip(rows, ranker.scores(rows)))
    return [
        Ranked(documents[r], float(scores[r]), tuple(ranker.explain(r, top_terms)))
        for r in ranker.order(rows)
    ]


def rank_project(project, settings: RankSettings | None = None, top_terms: int = 5) -> list[Ranked]:
    """The project's screening queue in ranked order, trained on every decision so far."""
    from masrl.screening.queue import labelled_documents, queue_documents, read_queue

    queue = read_queue(project)
    knowledge = FieldKnowledge.from_taxonomy_dir(project.taxonomy_dir)
    return rank(labelled_documents(project), queue_documents(queue), knowledge, settings, top_terms)
