"""Qt building blocks the views and the window are made of, each knowing nothing of a job.

- ``pdf_viewer``: QPdfView with zoom, navigation, find and our passage highlights
- ``word_pages``: the viewer's Word documents, as text (``word_view``) or as LibreOffice's pages
- ``find_box``: the viewer's find field, its status ("1 of 3") inside it
- ``job_progress``: a progress row: what runs, a bar, the time left, a cancel button
- ``status_bar``: live VRAM, tokens/s, the active plan
- ``messages``: the one place that turns errors into (non-modal) messages
- ``elided_label``, ``file_dialogs``: a label that elides between words; dialogs that remember
  their folder
- ``appearance``: light or dark colours, as the desktop says or the setting asks
- ``single_instance``: one window per library; a second start hands its files to the first
- ``focus_wheel``: a combo box that takes the mouse wheel only when focused (forms scroll)
- ``menus``: a menu's entry, an action with its shortcut calling a slot
- ``wide_tabs``: while a tab that needs width is open, its pane takes a share of the window
- ``qt_wait``, ``pyside_refcount``: waiting while the event loop runs; a PySide6 workaround
"""
