"""Reading a document's pages: text per page with pypdf, pages drawn by PDFium, OCR of scans,
pages of figures read row by row, page furniture, the document's kind and its pages' status.

One module per source of text (``pdf_extract``, ``ocr_pages``, ``docx_extract``); what they yield (a
page number and its text) is what the cutter takes, whatever the format. A Word document is read
by jobs: its parts (``docx_package``), its styles and the numbers they give (``docx_styles``,
``docx_numbering``), the walk of its body (``docx_body``), all put together by ``docx_extract``
into what ``docx_document`` describes; ``docx_locator`` and ``docx_render`` cite and show it.
"""
