"""Meeting notes as a .docx: a heading, a paragraph and a bulleted list."""
import sys

from docx import Document

document = Document()
document.add_heading('Launch notes', level=1)
document.add_paragraph('Decisions from the launch meeting.')
for item in ('Ship on Monday', 'Write the changelog'):
    document.add_paragraph(item, style='List Bullet')
document.save(sys.argv[1])
print(f'wrote {sys.argv[1]}')
