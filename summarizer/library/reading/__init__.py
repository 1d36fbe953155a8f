"""Reading a document's pages: text per page with pypdf, pages drawn by PDFium, OCR of scans,
pages of figures read row by row, page furniture, the document's kind and its pages' status.

One module per source of text (``pdf_extract``, ``ocr_pages``); what they yield (a page number and
its text) is what the cutter takes, whatever the format.
"""
