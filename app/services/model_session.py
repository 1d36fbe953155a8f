"""The model the window talks to: which engine, loaded with which plan (no Qt here).

Only the LLM worker thread of ``app.jobs.runner`` calls ``ensure_loaded``/``restart``/``engine``, so
engine calls never overlap. Tests pass ``engine_factory`` to use ``FakeEngine``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from typing import Any

from app.services.load_planning import PlanPreview, preview
from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import Engine, LoadReport
from inference.errors import EngineError, PlanError
from inference.progress import ProgressCallback, no_progress

EngineFactory = Callable[[PlanPreview], Engine]


def default_engine_factory(chosen: PlanPreview) -> Engine:
    if chosen.remote_url:
        from app.services.api_key import api_key
        from app.services.settings import Settings
        from inference.engines.remote import RemoteEngine

        # requests at once: the server's slots where it says (/props), else the setting (a data room's review)
        parallel = int(Settings.load().effective("remote_parallel"))
        return RemoteEngine(chosen.remote_url, api_key=api_key(chosen.remote_url), max_parallel=parallel)
    from inference.engines.local import LocalEngine

    return LocalEngine()


class NoModelConfigured(EngineError):
    """Asking needs a model: the message says how to get one."""


class ModelSession:
    def __init__(
        self,
        settings: Mapping[str, Any],
        engine_factory: EngineFactory = default_engine_factory,
        n_threads: int | None = None,
        planner: Callable[[Mapping[str, Any]], PlanPreview] = preview,
    ) -> None:
        self._planner = planner
        self._settings = dict(settings)
        self._factory = engine_factory
        self.n_threads = n_threads
        self.engine: Engine | None = None
        self.report: LoadReport | None = None
        self.preview: PlanPreview | None = None
        self._lock = threading.Lock()
        self._reconnect = False

    def configure(self, settings: Mapping[str, Any]) -> None:
        """New settings: the next ``ensure_loaded`` reloads if the plan changed."""
        with self._lock:
            self._settings = dict(settings)

    def reconnect(self) -> None:
        """The server's API key changed: the next ``ensure_loaded`` connects anew with it (an
        engine keeps the key it was made with)."""
        with self._lock:
            self._reconnect = True

    def plan_preview(self) -> PlanPreview:
        with self._lock:
            values = dict(self._settings)
        return self._planner(values)

    @property
    def loaded(self) -> bool:
        return self.engine is not None and self.engine.loaded

    def crashed(self) -> bool:
        """The engine had a model and lost it (its worker died)."""
        return self.engine is not None and self.report is not None and not self.engine.loaded

    def ensure_loaded(self, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED) -> Engine:
        chosen = self.plan_preview()
        if chosen.problem:
            if chosen.plan is None and "No model configured" in chosen.summary:
                raise NoModelConfigured(
                    "Asking needs a language model. Open Settings (Ctrl+,) to choose a GGUF file or to "
                    "download the recommended model; documents can be added and searched meanwhile."
                )
            raise PlanError(chosen.problem)
        plan = chosen.plan
        if plan is not None and self.n_threads and plan.n_threads is None:
            plan = dataclasses.replace(plan, n_threads=self.n_threads)
        with self._lock:
            reconnect, self._reconnect = self._reconnect and bool(chosen.remote_url), False
        if self.engine is not None and self.engine.loaded and self.preview == chosen and not reconnect:
            return self.engine
        if self.engine is not None and (
            reconnect or self.preview is None or self.preview.remote_url != chosen.remote_url
        ):
            self.engine.close()
            self.engine = None
        if self.engine is None:
            self.engine = self._factory(chosen)
        self.report = self.engine.load(plan, progress, cancel)
        self.preview = chosen
        return self.engine

    def restart(self, progress: ProgressCallback = no_progress, cancel: CancelToken = NEVER_CANCELLED) -> LoadReport:
        """After a worker crash: a fresh worker with the same plan."""
        engine = self.engine
        if engine is None or self.preview is None:
            raise EngineError("No model was loaded, so there is nothing to restart.")
        self.report = engine.restart(progress, cancel)
        return self.report

    def cancel(self) -> None:
        if self.engine is not None:
            self.engine.cancel()

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
