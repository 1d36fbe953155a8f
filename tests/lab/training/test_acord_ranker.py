"""The ACORD fine-tuning's groups and reordering (lab/training/acord_ranker.py), without a model."""

from __future__ import annotations

import random

from lab.training.acord_ranker import acord_groups, linear_weight, reordered


def test_each_group_puts_a_relevant_clause_above_clauses_graded_lower_for_its_query() -> None:
    corpus = {f"c{i}": f"clause {i}" for i in range(60)}
    grades = {"q": {"c0": 4, "c1": 2, "c2": 1, "c3": 0, "c4": 0, "c5": 3}}
    candidates = {"q": ["c5", "c9", "c10", "c0", "c11"]}
    groups = acord_groups(["q"], grades, candidates, corpus, random.Random(0), size=8, per_head=3)
    assert len(groups) == 3 * 3  # c0, c1, c5 are relevant (2 or more), 3 groups each
    by_text = {v: k for k, v in corpus.items()}
    for query, texts, labels, head in groups:
        ids = [by_text[t] for t in texts]
        assert query == "q" and head == 0 and len(ids) == 8 == len(set(ids))
        top = grades["q"][ids[0]]
        assert top >= 2 and all(grades["q"].get(c, 0) < top for c in ids[1:])
        assert labels == [1.0] + [float(grades["q"].get(c, 0) >= 2) for c in ids[1:]]


def test_reordering_fuses_the_rankers_order_with_the_hybrids_as_search_does() -> None:
    hybrid = ["a", "b", "c", "d"]
    scores = {"a": 0.0, "b": 1.0, "c": 5.0, "d": 9.0}
    assert reordered(hybrid, scores, 3, None) == ["c", "b", "a", "d"]  # the ranker alone, top 3 only
    # k = 5: a 1/6 + w/8, b 1/7 + w/7, c 1/8 + w/6; a small weight keeps the hybrid's order
    assert reordered(hybrid, scores, 3, 0.1) == ["a", "b", "c", "d"]
    assert reordered(hybrid, scores, 3, 3.0) == ["c", "b", "a", "d"]


def test_onnx_weights_are_named_as_the_pytorch_model_names_them() -> None:
    out = "/bert/encoder/layer.3/attention/self/query/MatMul_output_0_output_quantized"
    assert linear_weight("onnx::MatMul_892_quantized", out) == "bert.encoder.layer.3.attention.self.query.weight"
    assert linear_weight("bert.pooler.dense.weight_Transposed_quantized", "x") == "bert.pooler.dense.weight"
    assert linear_weight("classifier.weight_Transposed_quantized", "logits") == "classifier.weight"
