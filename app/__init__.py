"""Pagewise's top floor: the command line, the job runner and the desktop window."""
