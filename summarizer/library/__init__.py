"""The library: PDFs and Word documents in, passages and vectors out, kept in one SQLite database.

Four groups, each a job, and the two steps that use them all at the top:

- ``reading``: a PDF's pages as text: pypdf (``pdf_extract``), PDFium (``page_render``), OCR of
  scanned pages (``ocr_engine``, ``ocr_pages``), pages of figures read row by row
  (``table_pages``), running headers and footers (``page_furniture``), what kind of document it
  is (``document_kind``) and what its pages came to (``page_status``); what a file really is
  (``file_type``); a Word document's paragraphs with the numbers Word shows (``docx_extract``, which
  puts together ``docx_package``, ``docx_styles``, ``docx_numbering`` and ``docx_body`` into a
  ``docx_document``) and the locators cited for them (``docx_locator``).
- ``cutting``: pages into clauses with heading paths (``normalize``, ``clauses``,
  ``filing_headings``) and into passages with page spans (``passages``).
- ``vectors``: embedding passages and questions: the model (``embedding_model``, ``embedder``,
  ``clause_embedder``, ``query_encoder``), long passages in windows (``embedding_windows``), the
  tokenizer passages are measured with (``chunk_tokenizer``), the FAISS cache
  (``vector_index``), embedding what has no vector (``embed_passages``) and switching models
  (``reembed``).
- ``storage``: the SQLite library (``store.Library``), its schema (``schema``) and migrations (one
  module each in ``migrations``), the queries other groups and floors read it through
  (``queries``), a document read back as text (``document_text``), the titles a list shows
  (``doc_titles``: the file name where two share one), where the data lives
  (``paths``) and a full disk told apart from a damaged library (``disk_space``).

``ingest`` adds a PDF or Word document step by step (read, cut, store, embed, index), its reading
step in ``ingest_read`` and its cutting step in ``ingest_cut``; ``reindex``
re-cuts the documents of a library made by an older version; ``word_parts`` keeps what Word shows
of a Word document's paragraphs, its tracked changes and comments, and makes its locators. By rank:
storage, reading, cutting, vectors, then ingest, reindex and word_parts
(scripts/architecture_graph.py: ``SUBGROUPS``). Callers use ``storage.store.Library``
(``Library.open()``), ``ingest.ingest_path`` and ``summarizer.errors``.
Nothing here imports the other groups of ``summarizer``.
"""
