"""The one job runner of the window (``runner.JobRunner``: a worker thread for the model) and the
process that adds PDFs beside it (``ingest_process``: pypdf holds the GIL, so ingest runs apart).

- ``side_lane``: the runner's side jobs, each in a thread of its own (LibreOffice's Word pages)
- ``held_objects``: what a long job holds kept out of Python's full garbage collections meanwhile
- ``process_exit``: how a child process that ended unasked ended, in words for a message
"""
