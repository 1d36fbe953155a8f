"""The window's panels and dialogs, each showing one part of the library or of a job.

- ``library_panel``: the documents with their state; drag-and-drop of PDFs and folders
- ``conversation_view``: the selected document's questions and streamed answers, citations as links
- ``summary_view``: the super-summary and each segment's summary
- ``review_view``: the Review tab: contracts, checklist, the grid or the table, corrections, exports
- ``review_grid``: the grid of a few contracts (checklist items by contracts)
- ``review_table``: the table of many contracts (contracts by items), sorted and filtered
- ``review_cells``: what a review cell says (text, tip, colour) and the correction panel's line
- ``settings_dialog``: settings built from the one schema, with a live plan preview
- ``welcome``: the first run's offer to pick or download a model
"""
