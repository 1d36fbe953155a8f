"""A Word document's summaries and answer prompt call its parts paragraphs, not pages (walk
2026-12-06, finding 10: "Summary of pp. 121-150" beside the section links "¶ 120–150")."""

from __future__ import annotations

from summarizer.answers.answer_wording import DocumentLabel, segment_summaries_block, summary_block
from summarizer.summaries.summary_prompts import LabelledSummary, reduce_messages, segment_summary_messages


def test_a_word_documents_parts_are_labelled_by_paragraphs() -> None:
    segment = segment_summary_messages("Text.", "PSA", 120, 150, 200, word=True)[1].content
    assert "¶ 120-150" in segment and "pp." not in segment
    parts = [LabelledSummary("Term.", 1, 119, word=True), LabelledSummary("Notices.", 120, 150, word=True)]
    reduce = "\n".join(m.content for m in reduce_messages(parts, "PSA", 300, word=True))
    assert "Summary of ¶ 120-150:" in reduce and "pp." not in reduce
    psa = DocumentLabel("psa", "PSA", 150, word=True)
    assert "150 paragraphs" in summary_block(psa, "About services.")
    block = segment_summaries_block(psa, [LabelledSummary("Notices.", 120, 150)])
    assert "Summary of ¶ 120-150:" in block and "150 paragraphs" in block and "pages" not in block


def test_a_pdfs_parts_are_still_labelled_by_pages() -> None:
    assert "pp. 3-7" in segment_summary_messages("Text.", "Lease", 3, 7, 200)[1].content
    assert "12 pages" in summary_block(DocumentLabel("lease", "Lease", 12), "A lease.")
