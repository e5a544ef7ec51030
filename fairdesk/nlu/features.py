"""TF-IDF features and a linear classifier evaluated with numpy only.

The same analyzers are handed to scikit-learn's ``TfidfVectorizer(analyzer=...)`` at build
time (``resources/nlu/train_music_nlu.py``) and used here at run time, so the features are
identical by construction; :class:`LinearTextClassifier` then reproduces
``LogisticRegression.decision_function`` / ``predict_proba`` from the saved coefficients.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

__all__ = ["LinearTextClassifier", "TfidfSpace", "char_ngrams", "word_ngrams"]

_TOKEN = re.compile(r"\w+")
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (2, 4)


def word_ngrams(text: str) -> list[str]:
    """Word 1- and 2-grams of already normalised text (single-character words kept)."""
    tokens = _TOKEN.findall(text)
    grams = list(tokens)
    lo, hi = WORD_NGRAMS
    for n in range(max(lo, 2), hi + 1):
        grams += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return grams


def char_ngrams(text: str) -> list[str]:
    """Character 2- to 4-grams inside word boundaries (like scikit-learn's ``char_wb``)."""
    lo, hi = CHAR_NGRAMS
    grams: list[str] = []
    for word in text.split():
        w = f" {word} "
        for n in range(lo, hi + 1):
            if len(w) < n:
                break
            grams += [w[i : i + n] for i in range(len(w) - n + 1)]
    return grams


ANALYZERS = {"word": word_ngrams, "char": char_ngrams}


class TfidfSpace:
    """One TF-IDF vocabulary (sublinear tf, smooth idf, l2 rows), as fitted by scikit-learn.

    Parameters
    ----------
    analyzer : {"word", "char"}
        Which of :data:`ANALYZERS` produced the vocabulary.
    vocabulary : list of str
        Feature names in column order.
    idf : sequence of float
        ``idf_`` of the fitted vectorizer, same order.
    """

    def __init__(self, analyzer: str, vocabulary: Sequence[str], idf: Sequence[float]):
        if analyzer not in ANALYZERS:
            raise ValueError(f"unknown analyzer {analyzer!r}; expected one of {sorted(ANALYZERS)}")
        if len(vocabulary) != len(idf):
            raise ValueError(
                f"{analyzer} vocabulary has {len(vocabulary)} terms but idf has {len(idf)}"
            )
        self.analyzer = analyzer
        self.index = {term: i for i, term in enumerate(vocabulary)}
        self.idf = np.asarray(idf, dtype=np.float64)

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """Dense TF-IDF matrix, shape ``(len(texts), len(vocabulary))``."""
        fn = ANALYZERS[self.analyzer]
        x = np.zeros((len(texts), len(self.idf)))
        for row, text in enumerate(texts):
            for term, count in Counter(fn(text)).items():
                col = self.index.get(term)
                if col is not None:
                    x[row, col] = 1.0 + math.log(count)
        x *= self.idf
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        np.divide(x, norms, out=x, where=norms > 0)
        return x

    def to_dict(self) -> dict:
        vocab = sorted(self.index, key=self.index.__getitem__)
        return {"analyzer": self.analyzer, "vocabulary": vocab, "idf": self.idf.tolist()}

    @classmethod
    def from_dict(cls, d: dict) -> TfidfSpace:
        return cls(d["analyzer"], d["vocabulary"], d["idf"])


class LinearTextClassifier:
    """Multinomial logistic regression over concatenated TF-IDF spaces.

    Parameters
    ----------
    spaces : list of TfidfSpace
        Feature blocks, concatenated left to right.
    classes : list of str
        Class labels in the order of the coefficient rows.
    coef : array-like, shape (n_classes, n_features)
    intercept : array-like, shape (n_classes,)
    """

    def __init__(self, spaces, classes, coef, intercept):
        self.spaces = list(spaces)
        self.classes = [str(c) for c in classes]
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        n_features = sum(len(s.idf) for s in self.spaces)
        if self.coef.shape != (len(self.classes), n_features) or self.intercept.shape != (
            len(self.classes),
        ):
            raise ValueError(
                f"classifier shapes disagree: coef {self.coef.shape}, intercept "
                f"{self.intercept.shape}, {len(self.classes)} classes, {n_features} features"
            )

    def features(self, texts: Sequence[str]) -> np.ndarray:
        return np.hstack([s.transform(texts) for s in self.spaces])

    def decision_function(self, texts: Sequence[str]) -> np.ndarray:
        return self.features(texts) @ self.coef.T + self.intercept

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        z = self.decision_function(texts)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, texts: Sequence[str]) -> list[str]:
        return [self.classes[i] for i in self.decision_function(texts).argmax(axis=1)]

    def to_dict(self, digits: int = 6) -> dict:
        def r(a):
            return [float(f"{v:.{digits}g}") for v in np.ravel(a)]

        return {
            "classes": self.classes,
            "spaces": [s.to_dict() | {"idf": r(s.idf)} for s in self.spaces],
            "coef": [r(row) for row in self.coef],
            "intercept": r(self.intercept),
        }

    @classmethod
    def from_dict(cls, d: dict) -> LinearTextClassifier:
        spaces = [TfidfSpace.from_dict(s) for s in d["spaces"]]
        return cls(spaces, d["classes"], d["coef"], d["intercept"])
