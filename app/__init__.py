"""Pagewise's top floor: the command line, the job runner and the desktop window."""


def version() -> str:
    """The installed version (pyproject.toml's), or "development" from a plain source tree."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pagewise")
    except PackageNotFoundError:
        return "development"
