"""Fills a PDF form from a JSON object of field values: fill_form.py IN.pdf VALUES.json OUT.pdf"""
import json
import sys

from pypdf import PdfReader, PdfWriter

if len(sys.argv) != 4:
    sys.exit('usage: fill_form.py IN.pdf VALUES.json OUT.pdf')
reader = PdfReader(sys.argv[1])
with open(sys.argv[2], encoding='utf-8') as handle:
    values = json.load(handle)
known = set((reader.get_fields() or {}).keys())
unknown = sorted(set(values) - known)
if unknown:
    sys.exit('not fields of this form: %s (run form_fields.py to list them)' % ', '.join(unknown))
writer = PdfWriter()
writer.append(reader)
for page in writer.pages:
    writer.update_page_form_field_values(page, {key: str(value) for key, value in values.items()})
try:
    writer.set_need_appearances_writer(True)
except TypeError:  # pypdf before 3.x's later releases takes no argument
    writer.set_need_appearances_writer()
with open(sys.argv[3], 'wb') as handle:
    writer.write(handle)
print('%s: filled %d fields' % (sys.argv[3], len(values)))
