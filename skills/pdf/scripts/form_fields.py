"""Lists a PDF form's fields and their values: form_fields.py IN.pdf"""
import json
import sys

from pypdf import PdfReader

if len(sys.argv) != 2:
    sys.exit('usage: form_fields.py IN.pdf')
fields = PdfReader(sys.argv[1]).get_fields() or {}
if not fields:
    print('This PDF has no form fields.')
for name, field in fields.items():
    print(json.dumps({'name': name, 'type': str(field.get('/FT', '')), 'value': str(field.get('/V', ''))}))
