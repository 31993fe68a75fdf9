"""Lists a form's fields: type and value, read through each widget annotation (pypdf 5 APIs)."""
import sys

from pypdf import PdfReader

reader = PdfReader(sys.argv[1])
for page in reader.pages:
    for annotation in page.get('/Annots', []):
        # An indirect reference answers .get itself in pypdf 5.
        if annotation.get('/Subtype') != '/Widget':
            continue
        widget = annotation.get_object()
        kind = widget.get_inherited('/FT', None)
        print(f"{widget.get('/T')}: {kind} = {widget.get('/V')}")
