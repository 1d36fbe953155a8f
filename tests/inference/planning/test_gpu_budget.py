"""Budgets written by the user."""

from __future__ import annotations

import pytest

from inference.errors import PlanError
from inference.planning.gpu_budget import gpu_unavailable_notice, parse_budget
from inference.planning.plan import GIB, MIB


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12GiB", 12 * GIB),
        ("12 GiB", 12 * GIB),
        ("12G", 12 * GIB),
        ("11.5GiB", int(11.5 * GIB)),
        ("900MiB", 900 * MIB),
        ("12GB", 12 * 10**9),
        ("0", 0),
        (4096, 4096),
    ],
)
def test_parse_budget(text: str | int, expected: int) -> None:
    assert parse_budget(text) == expected


@pytest.mark.parametrize("text", ["twelve", "12 parsecs", "1.2.3GiB", ""])
def test_parse_budget_rejects(text: str) -> None:
    with pytest.raises(PlanError, match="12GiB"):
        parse_budget(text)


def test_gpu_unavailable_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    sentence = "no NVIDIA driver found; this build needs driver 580 (CUDA 13) or newer"
    monkeypatch.setenv("PAGEWISE_GPU_UNAVAILABLE", sentence)
    assert gpu_unavailable_notice() == sentence
    monkeypatch.setenv("PAGEWISE_GPU_UNAVAILABLE", "  ")
    assert gpu_unavailable_notice() is None
    monkeypatch.delenv("PAGEWISE_GPU_UNAVAILABLE")
    assert gpu_unavailable_notice() is None
