"""The one job runner of the window (``runner.JobRunner``: a worker thread for the model) and the
process that adds PDFs beside it (``ingest_process``: pypdf holds the GIL, so ingest runs apart)."""
