"""Joins PDFs in the order given: merge.py OUT.pdf IN1.pdf IN2.pdf ..."""
import sys

from pypdf import PdfWriter

if len(sys.argv) < 4:
    sys.exit('usage: merge.py OUT.pdf IN1.pdf IN2.pdf ...')
out, inputs = sys.argv[1], sys.argv[2:]
writer = PdfWriter()
for name in inputs:
    writer.append(name)
with open(out, 'wb') as handle:
    writer.write(handle)
print('%s: %d pages from %d files' % (out, len(writer.pages), len(inputs)))
