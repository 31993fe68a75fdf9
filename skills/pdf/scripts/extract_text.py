"""Writes a PDF's text page by page: extract_text.py IN.pdf OUT.txt"""
import sys

from pypdf import PdfReader

if len(sys.argv) != 3:
    sys.exit('usage: extract_text.py IN.pdf OUT.txt')
reader = PdfReader(sys.argv[1])
with open(sys.argv[2], 'w', encoding='utf-8') as out:
    for number, page in enumerate(reader.pages, start=1):
        out.write('--- page %d ---\n%s\n' % (number, page.extract_text() or ''))
print('%s: text of %d pages' % (sys.argv[2], len(reader.pages)))
