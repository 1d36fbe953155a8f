"""The one progress value every long operation reports through its callback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot of a long operation.

    ``done``/``total`` count work units of ``stage`` (pages, passages, segments, tokens);
    ``total`` is ``None`` when unknown. ``rate`` is units per second, when measured.
    """

    stage: str
    done: int = 0
    total: int | None = None
    message: str = ""
    rate: float | None = None

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    def eta_seconds(self) -> float | None:
        if self.total is None or not self.rate or self.rate <= 0:
            return None
        return max(0.0, (self.total - self.done) / self.rate)


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """The default callback: report nothing."""
