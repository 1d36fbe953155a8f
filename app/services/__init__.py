"""What the window and the commands share, without Qt: the one settings source, the model session
and its load plan, the adapter onto answers and summaries, the API key, how commands report.

- ``settings``: the one settings schema and its reader
- ``model_session``: which engine the window talks to, loaded with which plan
- ``load_planning``: from settings to a load plan, and why a configuration cannot be loaded
- ``answering``: the app's one adapter onto answers, summaries and conversations
- ``library_question``: one question across the library, answered from each contract's best passage
- ``known_models``: the loaded model's identity for stored summaries, computed once a process
- ``api_key``: a remote server's API key (environment, then the OS keyring)
- ``output``: JSON on stdout with ``--json``, one-line errors, progress on a TTY
- ``power``: whether the computer runs on battery
- ``system_libraries``: the system libraries the window needs on Linux, and which are missing
- ``text_match``: a library passage found in the text QtPdf extracts from the same page
"""
