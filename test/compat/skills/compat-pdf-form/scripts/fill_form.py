"""Fills a form's fields from a JSON file and notes the filling in a FreeText annotation."""
import json
import sys

from pypdf import PdfReader, PdfWriter
from pypdf.annotations import FreeText

source, values_file, out = sys.argv[1:4]
with open(values_file) as handle:
    values = json.load(handle)
reader = PdfReader(source)
writer = PdfWriter(clone_from=reader)
writer.set_need_appearances_writer(True)
for page in writer.pages:
    writer.update_page_form_field_values(page, values, auto_regenerate=False)
note = FreeText(text='Filled by compat-pdf-form', rect=(72, 600, 300, 630))
writer.add_annotation(page_number=0, annotation=note)
with open(out, 'wb') as handle:
    writer.write(handle)
print(f'filled {len(values)} fields into {out}')
