"""Each window finding's GUI test fails on the commit before its fix and passes on the fix.

Issue 12 asks the closing note to show it. For every (fix commit, tests) pair below, the code
of the fix's parent is checked out in a temporary worktree, the test files are taken from
``tests_from`` (the fix itself, or a later commit that added the test), and pytest runs the named
tests there; then the same at the fix. Prints a Markdown table (the first failure line of each
"before" run says how it failed: an assertion, or a name the old code lacks).

    python -m scripts.check_fixes_fail_before > docs/data/fail-before/fail-before.md
    python -m scripts.check_fixes_fail_before 526169e     # only the fixes of these commits
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Fix:
    finding: str
    commit: str
    tests: tuple[str, ...]
    tests_from: str = ""  # the commit whose test files are used (default: the fix)


FIXES = (
    Fix("banners pile up; a banner stays after its condition ends", "934dc33", (
        "tests/app/test_messages.py::test_at_most_two_banners_the_newest_and_each_text_once",
        "tests/app/test_messages.py::test_a_banner_goes_when_its_condition_ends")),
    Fix("status bar shows a stale (remote) model", "934dc33", (
        "tests/app/controllers/test_model_setup.py::"
        "test_the_status_line_follows_a_switch_from_a_remote_server_to_a_local_model",)),
    Fix("a file listed twice while it is added", "1ac6fb3", (
        "tests/app/test_library_panel.py::test_a_file_being_added_is_listed_once",)),
    Fix("small windows cut text and collapse panes", "11ce284", (
        "tests/app/test_small_windows.py::test_a_small_window_keeps_each_part_usable",)),
    Fix("no sources when the model does not cite", "0d6072f", (
        "tests/app/test_conversation.py::test_an_answer_without_citations_shows_the_passages_it_was_given",)),
    Fix("Summarize offered on a scanned PDF", "1959d62", (
        "tests/app/controllers/test_summary.py::test_a_scanned_pdf_is_not_offered_for_summary",)),
    Fix("a stopped answer loses its citation links", "367a3f6", (
        "tests/app/test_conversation.py::test_a_stopped_answer_keeps_its_citation_links",)),
    Fix("encrypted PDF asks again", "18f285c", (
        "tests/app/test_library_panel.py::test_an_encrypted_pdf_over_an_open_one_asks_once",)),
    Fix("progress freezes on a finished step", "18f285c", (
        "tests/app/test_jobs.py::test_a_new_stage_right_after_a_finished_one_is_not_dropped",)),
    Fix("state leaks between documents (page, Find)", "18f285c", (
        "tests/app/test_pdf_viewer.py::test_a_new_document_starts_clean",
        "tests/app/test_pdf_viewer.py::test_enter_right_after_typing_waits_for_the_search")),
    Fix("'1 pages', '~0 s left'; About shows no version", "18f285c", (
        "tests/app/test_job_progress.py::test_small_words_read_right",
        "tests/app/test_job_progress.py::test_about_names_the_version")),
    Fix("GPU layers planned with a CPU-only llama.cpp", "18f285c", (
        "tests/app/test_one_plan.py::test_a_gpu_with_a_cpu_only_llama_cpp_is_planned_for_the_cpu_everywhere",)),
    Fix("the window's start-up error does not name the missing system libraries", "d3a4cc6", (
        "tests/app/test_system_libraries.py::test_window_start_names_the_missing_libraries",)),
    Fix("the plan names the model by its GGUF-internal name", "526169e", (
        # the test's path at the fix (since moved: tests/inference/planning/test_policy.py)
        "tests/inference/test_plan_policy.py::test_the_plan_names_the_model_by_its_file",)),
    Fix("the context-size help says 0 while the field shows auto", "04ca16e", (
        "tests/app/test_settings.py::test_the_context_size_hint_names_what_the_field_shows",), tests_from="HEAD"),
    Fix("a full disk is reported as a damaged library (issue 24, item 6)", "de4dc73", (
        "tests/summarizer/library/test_disk_space.py",), tests_from="HEAD"),
    Fix("an unverified value looks verified: grid, header count, panel (24.1, finding 2)", "89e4db4", (
        "tests/app/controllers/test_review_cells.py::test_an_unverified_value_has_its_own_style_count_and_words",)),
    Fix("unverified and error cells in the exports, MD flags, DOCX header and date (2, 11, 19, 27)", "89e4db4", (
        "tests/summarizer/review/test_answers.py::test_an_unverified_value_is_marked_in_every_export_instead_of_its_flag",)),
    Fix("a correction lands on another item after arrow keys (24.2, finding 1)", "89e4db4", (
        "tests/app/controllers/test_review_cells.py::test_the_correction_panel_follows_the_keyboard_and_save_writes_the_named_item",)),
    Fix("Tab trapped in the grid, Enter opens nothing (finding 7)", "89e4db4", (
        "tests/app/controllers/test_review_cells.py::test_tab_leaves_the_grid_and_enter_opens_the_passage",)),
    Fix("an evidence review hidden after a switch or restart (findings 12, 28)", "89e4db4", (
        "tests/app/controllers/test_review_cells.py::test_an_evidence_review_stays_after_a_checklist_switch_and_a_restart",
        "tests/app/controllers/test_review_cells.py::test_evidence_only_over_model_answers_keeps_the_answers",)),
    Fix("'Reviewing 3/18' for a 9-cell grid (finding 22)", "89e4db4", (
        "tests/summarizer/review/test_answers.py::test_the_progress_counts_the_grid_cells_beside_the_readings",
        "tests/app/test_job_progress.py::test_a_review_says_its_total_counts_readings",)),
    Fix("a scanned PDF gets an ungrounded answer (24.1, finding 3), window and CLI", "c3262a4", (
        "tests/app/test_conversation.py::test_a_scanned_pdf_gets_a_notice_instead_of_an_answer",
        "tests/app/commands/test_summarize_ask.py::test_asking_about_a_scanned_pdf_gives_a_notice_not_an_answer",)),
    Fix("an answer without a valid citation does not say so (24.1)", "c3262a4", (
        "tests/app/test_conversation.py::test_an_answer_without_a_valid_citation_says_so_above_its_sources",)),
    Fix("downloads break once the embedding model loaded (24.3, finding 5)", "c7ba477", (
        "tests/inference/models/test_catalog.py::test_download_works_after_the_embedding_model_was_loaded",)),
    Fix("messages cut mid-word (24.3)", "31febd0", (
        "tests/inference/models/test_catalog.py::test_the_hubs_words_are_quoted_whole_not_cut_mid_word",
        "tests/app/test_messages.py::test_a_long_banner_ends_in_an_ellipsis_between_words",)),
    Fix("a remote server's API key: none sent, a wrong one unexplained (24.4)", "718fb36", (
        "tests/inference/engines/test_remote.py::test_a_server_that_wants_a_key_says_so_when_none_was_sent",
        "tests/inference/engines/test_remote.py::test_a_wrong_key_is_told_apart_from_a_missing_one",
        "tests/app/commands/test_summarize_ask.py::test_the_remote_servers_key_comes_from_the_keyring_or_the_environment",
        "tests/app/commands/test_summarize_ask.py::test_a_refused_key_says_whether_one_was_sent",
        "tests/app/controllers/test_model_setup.py::test_a_key_saved_in_the_settings_reaches_the_server_and_a_new_one_reconnects",)),
    Fix("a VRAM budget without a GPU gives a GPU plan; 'CPU only' said three times (findings 8, 22)", "0d7318f", (
        "tests/app/test_one_plan.py::test_a_budget_typed_in_without_a_gpu_plans_for_the_cpu",)),
    Fix("Settings' Download discards the edits; backticks in the help (findings 10, 22)", "0d7318f", (
        "tests/app/test_settings.py::test_the_help_texts_show_no_markdown_and_download_keeps_the_edits",)),
    Fix("a byte-identical copy is dropped silently (finding 14)", "0d7318f", (
        "tests/summarizer/library/test_ingest.py::test_adding_the_same_file_again_does_nothing",)),
    Fix("a non-GGUF file is saved as the model (finding 15)", "0d7318f", tests_from="HEAD", tests=(
        "tests/app/controllers/test_model_setup.py::test_a_file_that_is_not_a_gguf_model_is_refused_and_the_welcome_panel_stays",)),
    Fix("banners push the window down (finding 20)", "0d7318f", (
        "tests/app/test_messages.py::test_a_banner_floats_over_the_content_and_moves_nothing",)),
    Fix("file dialogs open in the working directory; a stale download banner (findings 26, 22)", "0d7318f", (
        "tests/app/controllers/test_model_setup.py::test_file_dialogs_open_where_the_user_was_last",
        "tests/app/controllers/test_model_setup.py::test_a_failed_download_banner_goes_when_a_model_is_chosen",)),
    Fix("closing during an ingest: tracebacks, no question (finding 13)", "f4b1317", (
        "tests/app/test_closing.py",)),
    Fix("a 7B offered to a CPU-only machine (finding 18)", "ce193ad", (
        "tests/app/test_welcome.py::test_without_a_gpu_the_welcome_panel_offers_the_small_model",)),
    Fix("no resume for an interrupted document; a failed row shows an empty viewer (findings 16, 28)", "198dec4", (
        "tests/app/test_library_panel.py::test_a_failed_row_says_why_and_an_interrupted_one_can_be_added_again",)),
    Fix("an encrypted document after a restart: red banner, drop hint (finding 24)", "198dec4", (
        "tests/app/test_library_panel.py::test_an_encrypted_pdf_asks_for_its_password",)),
    Fix("the Review tab cramped, unusable at 900×600 (finding 6)", "d2db60c", (
        "tests/app/test_small_windows.py::test_the_review_tab_has_room_at_the_default_size_and_scrolls_at_900x600",)),
    Fix("'sample-contrac' cut in the progress line; '(the model's: evidence)' (finding 22)", "90f5b05", (
        "tests/app/test_job_progress.py::test_a_progress_line_too_long_for_its_pane_ends_between_words",
        "tests/app/controllers/test_review_cells.py::test_a_correction_in_an_evidence_review_names_no_model_value",)),
    Fix("the conversation export drops the cited passages (finding 19)", "65ef6c2", (
        "tests/app/test_conversation.py::test_the_conversation_export_keeps_the_cited_passages_and_the_passages_given",)),
    Fix("the highlight includes the footer and page number (finding 23)", "6dd76ac", (
        "tests/app/test_conversation.py::test_a_passage_across_a_page_break_is_highlighted_without_the_footer_and_header",)),
    Fix("an early, low ingest estimate; a summary silent until its first segment (finding 21)", "0f18ccc", (
        "tests/app/test_job_progress.py::test_no_estimate_before_a_tenth_of_the_work_and_the_time_so_far_meanwhile",)),
    Fix("after a restart the page box says 3 on page 1 (finding 25)", "5651212", (
        "tests/app/test_pdf_viewer.py::test_after_a_restart_the_page_box_names_the_page_shown",)),
    Fix("walk 2026-12-05, 1: a finished add switches the window away from the document being read or asked about",
        "dd78d4d", (
        "tests/app/views/test_library_panel.py::test_a_finished_add_never_takes_the_selection_away",)),
    Fix("walk 2026-12-05, 2: whole-document answers carry no citation check and no 'cites no page' warning",
        "5711cac", (
        "tests/summarizer/answers/test_answer.py::test_whole_document_citations_are_checked_against_the_pages_given",
        "tests/app/views/test_conversation_view.py::"
        "test_a_whole_document_answer_without_a_valid_page_says_so_and_shows_what_was_read")),
    Fix("walk 2026-12-05, 3: 'probably absent' shown with a percentage the data does not support",
        "3c11b38", (
        "tests/summarizer/review/test_absence.py::test_the_reason_names_no_likelihood",
        "tests/summarizer/review/test_absence.py::"
        "test_the_exports_say_probably_absent_and_where_to_check_without_a_percentage",
        "tests/app/controllers/test_review_cells.py::"
        "test_an_absent_cell_says_why_and_where_to_check_without_a_percentage")),
    Fix("walk 2026-12-05, 4: banners clipped, see-through and sitting on controls", "fb2a9f6", (
        "tests/app/widgets/test_messages.py::"
        "test_a_banner_shows_its_text_whole_and_opaque_without_overlapping",
    )),
    Fix("walk 2026-12-05, 5: the mouse wheel over Settings changes values", "9b119a7", (
        "tests/app/services/test_settings.py::"
        "test_the_mouse_wheel_over_the_form_scrolls_it_and_changes_no_setting",
    )),
    Fix("walk 2026-12-05, 6: 'Add again to finish' moves the selection and leaves a stale banner", "aec3f28", (
        "tests/app/views/test_library_panel.py::"
        "test_adding_an_interrupted_document_again_keeps_it_selected_and_ends_the_reindex_banner",
    )),
    Fix("walk 2026-12-05, 7: a cut-off answer looks complete; a killed worker stops background summaries", "45b79c4", (
        "tests/summarizer/answers/test_answer.py::"
        "test_an_answer_cut_by_its_token_limit_says_so",
        "tests/app/controllers/test_background_summary.py::"
        "test_a_model_worker_killed_during_a_background_summary_is_loaded_again_and_the_summary_finishes",
        "tests/app/controllers/test_background_summary.py::"
        "test_background_summaries_that_keep_failing_rest_and_say_so",
    )),
    Fix("walk 2026-12-05, 8: Find in document does not search OCR text", "14979cf", (
        "tests/app/views/test_conversation_view.py::"
        "test_find_in_document_finds_the_words_ocr_read_on_a_scanned_page",
    )),
    Fix("walk 2026-12-05, 9: 'not found' next to the app's own evidence that holds the clause", "6cbcf36", (
        "tests/summarizer/review/test_item_answers.py::"
        "test_not_found_beside_a_passage_that_reads_like_the_clause_names_the_page_to_check",
        "tests/app/views/test_review_view.py::"
        "test_a_not_found_cell_beside_a_passage_that_reads_like_the_clause_says_which_page_to_check",
    )),
    Fix("walk 2026-12-05, 10: exports disagree with the grid or cut the decisive words", "6445c1e", (
        "tests/summarizer/review/test_evidence.py::"
        "test_evidence_leaves_out_the_running_footers_and_page_numbers_inside_a_passage",
        "tests/summarizer/review/test_item_answers.py::"
        "test_the_exports_mark_an_unverified_value_in_the_csv_flag_and_cut_quotes_between_words",
    )),
    Fix("walk 2026-12-05, 11: review progress gives no time left (evidence only)", "81bc4d4", (
        "tests/summarizer/review/test_evidence.py::"
        "test_the_evidence_review_reports_a_rate_so_its_progress_has_a_time_left",
    )),
    Fix("walk 2026-12-05, 19: status-bar pieces run together", "b2af7ef", (
        "tests/app/widgets/test_status_bar.py::"
        "test_the_status_pieces_are_set_apart",
    )),
    Fix("walk 2026-12-05, 20: wrong wording for citations", "ea0dd9f", (
        "tests/app/views/test_conversation_view.py::"
        "test_an_answer_without_a_valid_citation_says_so_above_its_sources",
        "tests/app/views/test_conversation_view.py::"
        "test_a_whole_document_answer_without_a_valid_page_says_so_and_shows_what_was_read",
    )),
    Fix("walk 2026-12-05, 21: the absent-cell panel speaks engine", "2588c20", (
        "tests/app/views/test_review_view.py::"
        "test_an_absent_cell_speaks_to_a_reader_and_a_none_found_correction_names_no_page",
    )),
    Fix("walk 2026-12-05, 22: the viewer toolbar overlaps when the Review tab widens", "de4bf25", (
        "tests/app/widgets/test_pdf_viewer.py::"
        "test_the_viewer_toolbar_never_overlaps_when_the_review_tab_narrows_it",
    )),
    Fix("walk 2026-12-05, 12: the Review list says 'interrupted' for a document being added", "1c11bc4", (
        "tests/app/controllers/test_review.py::"
        "test_a_contract_being_added_is_not_called_interrupted",
    )),
    Fix("walk 2026-12-05, 13: narrow and scaled windows", "184ff49", (
        "tests/app/test_small_windows.py::"
        "test_the_review_tab_takes_half_a_narrow_window_and_the_window_fits_its_screen",
    )),
    Fix("walk 2026-12-05, 14: 'We represent' is forgotten on restart", "4f347a2", (
        "tests/app/controllers/test_review.py::"
        "test_we_represent_is_kept_across_a_restart",
    )),
    Fix("walk 2026-12-05, 15: 'almost done' before minutes of OCR", "05140ed", (
        "tests/app/widgets/test_job_progress.py::"
        "test_a_finished_stage_is_not_called_almost_done",
    )),
    Fix("walk 2026-12-05, 16: a stopped answer vanishes after switching documents and back", "ab6cda3", (
        "tests/app/views/test_conversation_view.py::"
        "test_a_stopped_answer_stays_after_switching_documents_and_back",
    )),
    Fix("walk 2026-12-05, 17: the conversation export has no date, model or machine-generated line", "35ad9b0", (
        "tests/app/views/test_conversation_view.py::"
        "test_the_conversation_export_says_when_by_which_model_and_that_it_is_machine_generated",
    )),
    Fix("walk 2026-12-05, 18: background summaries hop between documents", "f620824", (
        "tests/app/controllers/test_background_summary.py::"
        "test_the_document_started_is_finished_before_the_selected_one",
    )),
    Fix("walk 2026-12-05, 23: library rows move", "6563490", (
        "tests/app/views/test_library_panel.py::"
        "test_library_rows_stay_in_place",
    )),
    Fix("walk 2026-12-05, 24: jargon and contradictory advice", "2fc848f", (
        "tests/app/controllers/test_reindex.py::"
        "test_the_words_for_an_interrupted_add_and_for_quitting_say_the_same_as_the_rest",
    )),
    Fix("walk 2026-12-05, 25: the DOCX grid splits rows and breaks words", "1a201ce", (
        "tests/summarizer/review/test_item_answers.py::"
        "test_the_docx_grid_keeps_rows_and_item_names_whole",
    )),
    Fix("walk 2026-12-05, 26: every add loads the embedding model again", "e89f625", (
        "tests/app/jobs/test_runner.py::"
        "test_adds_one_after_another_share_one_ingest_worker",
    )),
    Fix("walk 2026-12-05, 27: Settings' Download failure shown only behind the dialog", "47ea6d8", (
        "tests/app/services/test_settings.py::"
        "test_a_failed_download_is_said_in_the_settings_dialog",
    )),
    Fix("walk 2026-12-05, 28: no way to ask for dark mode", "1f2c093", (
        "tests/app/services/test_settings.py::"
        "test_dark_colours_can_be_asked_for_in_the_settings",
    )),
    Fix("walk 2026-12-05, 29: a cancelled password prompt gives a red banner", "0787922", (
        "tests/app/views/test_library_panel.py::"
        "test_a_cancelled_password_prompt_gives_no_red_banner",
    )),
    # 2c06e4e: the test checks the zoom before importing the fix's new constant (test_highlight_view
    # tests the fix's new module: it can only fail on its import before).
    Fix("walk 2026-12-06, 6: side by side, PDFs open at 27-30 % zoom and the toolbar buttons are cut", "52f636f",
        tests_from="2c06e4e", tests=(
        "tests/app/views/test_compare_versions.py::"
        "test_two_pdfs_compared_at_the_windows_first_size_are_readable",
    )),
    Fix("walk 2026-12-06, 6 (seen after): a compared PDF's highlight falls before the change under a header",
        "52f636f", (
        "tests/app/controllers/test_compare.py::"
        "test_the_changed_words_are_highlighted_on_pages_with_a_running_header",
    )),
    Fix("walk 2026-12-06, 19: the comment marker is an empty box", "52f636f", (
        "tests/app/widgets/test_word_view.py::"
        "test_a_comment_is_marked_by_a_word_not_a_pictograph_a_font_may_lack",
    )),
    Fix("walk 2026-12-06, 24: the Word bar's reference is cut", "52f636f", (
        "tests/app/widgets/test_word_view.py::"
        "test_the_word_bar_shows_the_whole_reference_above_its_buttons_when_narrow",
    )),
    # Tests from 838ab57 and 122a42d (written for this record): the fix's own test failed before only on
    # a name or an argument the fix added (5, 7, 10, 15, 22), or one test covered two findings (4 and 24,
    # 17 and 18).
    Fix("walk 2026-12-06, 4: the Text view chosen does not stay for a citation", "e2a4af1",
        tests_from="838ab57", tests=(
        "tests/app/controllers/test_word_pages.py::test_the_text_view_chosen_stays_for_a_citation",
    )),
    Fix("walk 2026-12-06, 24 (second part): no zoom percentage on pages after a Word text view", "e2a4af1",
        tests_from="838ab57", tests=(
        "tests/app/controllers/test_word_pages.py::test_the_zoom_shows_again_on_the_pages_after_the_text_view",
    )),
    Fix("walk 2026-12-06, 5: comparison labels drop the parent number ('(a)' for 5.2(a))", "2be7378",
        tests_from="838ab57", tests=(
        "tests/summarizer/compare/test_comparison.py::test_a_changed_item_is_named_with_the_numbers_it_sits_under",
    )),
    Fix("walk 2026-12-06, 7: 'Compare with…' preselects the library's first document", "925893c",
        tests_from="122a42d", tests=(
        "tests/app/controllers/test_compare.py::test_compare_with_offers_the_likeliest_other_version_first",
    )),
    Fix("walk 2026-12-06, 8: documents with the same title look identical in the library", "925893c", (
        "tests/app/views/test_library_panel.py::test_documents_with_the_same_title_show_their_file_names",
    )),
    Fix("walk 2026-12-06, 9: '1 not added (not documents)' with no name or advice; 'pagewise old.doc'", "c0b9cdf", (
        "tests/app/controllers/test_ingest.py::"
        "test_the_window_s_batch_summary_names_a_file_not_added_and_what_to_do",
        "tests/summarizer/library/batches/test_hostile_batches.py::"
        "test_files_not_added_are_named_with_what_to_do",
        "tests/app/test_cli_window.py::test_a_file_pagewise_does_not_open_is_said_not_a_list_of_commands",
    )),
    Fix("walk 2026-12-06, 10: Word paragraphs are called pages in summaries", "1a2e733", tests_from="122a42d", tests=(
        "tests/summarizer/summaries/test_compress.py::"
        "test_a_word_documents_segments_and_reductions_are_labelled_by_paragraphs",
        # the fix's own test (renamed since from test_word_summary_labels.py): the answer prompt's half
        "tests/summarizer/summaries/test_summary_prompts.py::test_a_word_documents_parts_are_labelled_by_paragraphs",
    )),
    Fix("walk 2026-12-06, 11: the Review tab forgets the checked contracts and 'Evidence only'", "59c05b4", (
        "tests/app/controllers/test_review.py::"
        "test_the_checked_contracts_and_evidence_only_are_kept_across_a_restart",
    )),
    Fix("walk 2026-12-06, 12: the library list wastes its space (cut names, side scroll bar, gaps)", "5d68336", (
        "tests/app/views/test_library_panel.py::"
        "test_long_names_fit_the_library_list_without_gaps_or_a_side_scroll_bar",
    )),
    Fix("walk 2026-12-06, 13: a data room's Word memo of 552 pages, hashes first", "022e693", (
        "tests/summarizer/review/test_export_xlsx.py::test_the_exports_of_a_data_room",
        "tests/summarizer/review/test_export_xlsx.py::test_a_data_room_memo_reads_as_a_memo",
    )),
    Fix("walk 2026-12-06, 14: Export conversation leaves out the library-wide question", "94374fc", (
        "tests/app/controllers/test_answer.py::"
        "test_a_question_across_the_library_lists_each_contract_with_its_best_passage",
    )),
    Fix("walk 2026-12-06, 15: rows move under the mouse when a progress line ends", "6e8fd5f",
        tests_from="838ab57", tests=(
        "tests/app/views/test_progress_space.py::"  # at 838ab57; now in tests/app/widgets/test_job_progress.py
        "test_the_review_grid_and_the_answer_stay_in_place_when_their_progress_line_ends",
    )),
    Fix("walk 2026-12-06, 16: 'Open PDF…' and 'Add a folder of PDF files' add Word files too", "b59c13b", (
        "tests/app/test_file_menu.py::test_the_file_menu_and_its_dialogs_say_pdf_or_word",
    )),
    Fix("walk 2026-12-06, 17: the Text view bolds short clauses", "7814769", tests_from="838ab57", tests=(
        "tests/app/widgets/test_word_view.py::test_only_titles_are_bold",
    )),
    Fix("walk 2026-12-06, 18: a deleted paragraph mark reads '¶ (deleted by …)'", "7814769",
        tests_from="838ab57", tests=(
        "tests/app/widgets/test_word_view.py::test_a_deleted_paragraph_mark_says_what_it_was",
    )),
    Fix("walk 2026-12-06, 20: a Word file's row says 'indexing 14/14 pages'", "389666b", (
        "tests/app/widgets/test_job_progress.py::test_a_word_file_is_indexed_by_paragraphs_not_pages",
    )),
    Fix("walk 2026-12-06, 21: 'X is ready. Show' banners stay until closed", "d7cf58e", (
        "tests/app/widgets/test_messages.py::test_an_information_with_a_button_goes_in_time",
    )),
    Fix("walk 2026-12-06, 22: the comparison's Markdown puts spaces before punctuation", "b5fdbba",
        tests_from="838ab57", tests=(
        "tests/summarizer/compare/test_comparison.py::"
        "test_the_comparison_markdown_writes_the_word_diff_as_the_words_are_written",
        "tests/summarizer/compare/test_comparison.py::test_the_markdown_word_diff_joins_words_as_written",
    )),
    Fix("walk 2026-12-06, 23: the Compare menu has no 'Word redline…'", "15332d8", (
        "tests/app/controllers/test_compare.py::"
        "test_the_word_redline_button_writes_each_difference_as_a_tracked_change",
    )),
    Fix("walk 2026-12-06, 25: Find in the Text view leaves the match on the bottom line", "18ae328", (
        "tests/app/widgets/test_word_view.py::test_find_puts_the_match_in_the_upper_part_of_the_text_view",
    )),
)  # fmt: skip


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def run_at(code: str, fix: Fix, where: Path) -> tuple[bool, str]:
    """Whether the tests pass with the code of ``code`` and the tests of ``fix.tests_from``."""
    subprocess.run(["git", "worktree", "add", "-f", "--detach", str(where), code], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    try:
        source = fix.tests_from or fix.commit
        if source == fix.commit:  # the fix's whole tests/ folder (its fixtures and helpers)
            archive = subprocess.run(["git", "archive", source, "tests"], cwd=ROOT, check=True, capture_output=True)
            subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
        else:  # only the named files from the later commit
            for path in {t.split("::")[0] for t in fix.tests}:
                (where / path).write_text(git("show", f"{source}:{path}"))
        # The checkout's editable install would hand a module the old code lacks to the test
        # (from this checkout): only the worktree's code may be imported.
        only_here = (
            "import sys, pytest; sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in "
            "getattr(f, '__module__', '')]; sys.exit(pytest.main(sys.argv[1:]))"
        )
        try:
            result = subprocess.run(
                [sys.executable, "-c", only_here, "-q", "-p", "no:cacheprovider", "-x", *fix.tests],
                cwd=where, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return False, "timed out after 600 s (a dialog waiting for a user?)"
        lines = (result.stdout + result.stderr).splitlines()
        first = next((ln for ln in lines if ln.startswith("E ")), "")
        if not first:
            first = next((ln for ln in lines if "Error" in ln), lines[-1] if lines else "")
        return result.returncode == 0, first.strip()[:110]
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commits", nargs="*", help="only these fix commits (default: every one listed)")
    commits = parser.parse_args().commits
    print("| finding | fix | before the fix | how it failed | at the fix |")
    print("|---|---|---|---|---|")
    bad = 0
    with tempfile.TemporaryDirectory(prefix="fail-before-") as tmp:
        for i, fix in enumerate(FIXES):
            if commits and fix.commit not in commits:
                continue
            before_ok, why = run_at(f"{fix.commit}^", fix, Path(tmp) / f"b{i}")
            after_ok, after_why = run_at(fix.commit, fix, Path(tmp) / f"a{i}")
            bad += before_ok or not after_ok
            why = why.replace("|", "\\|")
            after = "passes" if after_ok else f"FAILS: {after_why}"
            print(f"| {fix.finding} | {fix.commit} | {'passes (!)' if before_ok else 'fails'} | `{why}` | {after} |",
                  flush=True)  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
