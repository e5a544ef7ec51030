"""Shared fixtures of the stats tests: metric specs built from the registry."""

import pytest

from fairdesk.metrics.registry import ratio_metric


@pytest.fixture
def wer():
    return ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"])


@pytest.fixture
def em():
    return ratio_metric("em", "EM", ["em"], ["n_items"], higher_is_better=True, kind="proportion")


@pytest.fixture
def specs(wer, em):
    return [wer, em]
