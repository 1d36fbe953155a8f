"""Pagewise's top floor: the command line, the job runner and the desktop window.

Its top level is the entry points (``cli``, ``gui_main``, ``selftest``) and the window that
composes the rest (``main_window``). Below them, by rank: ``controllers`` (one per job of the
window), ``views`` (panels and dialogs), ``widgets`` and ``jobs`` (Qt building blocks, the job
runner), ``commands`` (one module per ``pagewise`` subcommand) and ``services`` (Qt-free: settings,
the model session, the adapter onto the summarizer). scripts/architecture_graph.py's ``LAYERS``
holds the order and tests/test_architecture.py checks it.
"""


def version() -> str:
    """The installed version (pyproject.toml's), or "development" from a plain source tree."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pagewise")
    except PackageNotFoundError:
        return "development"
