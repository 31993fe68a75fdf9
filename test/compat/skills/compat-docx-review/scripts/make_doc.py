"""A short draft with python-docx."""
import sys

from docx import Document

document = Document()
document.add_heading('Team meeting', level=1)
document.add_paragraph('We meet on Tuesday at ten.')
document.save(sys.argv[1])
print(f'wrote {sys.argv[1]}')
