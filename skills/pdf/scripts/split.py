"""Splits a PDF: split.py IN.pdf OUT_FOLDER [RANGES], ranges like 1-3,4 (one file per page without them)."""
import os
import sys

from pypdf import PdfReader, PdfWriter


def ranges(text, count):
    for part in text.split(','):
        first, _, last = part.strip().partition('-')
        start, end = int(first), int(last or first)
        if not 1 <= start <= end <= count:
            sys.exit('range %s is outside pages 1-%d' % (part, count))
        yield start, end


if len(sys.argv) not in (3, 4):
    sys.exit('usage: split.py IN.pdf OUT_FOLDER [RANGES]')
reader = PdfReader(sys.argv[1])
folder = sys.argv[2]
os.makedirs(folder, exist_ok=True)
count = len(reader.pages)
chosen = list(ranges(sys.argv[3], count)) if len(sys.argv) == 4 else [(n, n) for n in range(1, count + 1)]
stem = os.path.splitext(os.path.basename(sys.argv[1]))[0]
for start, end in chosen:
    writer = PdfWriter()
    for index in range(start - 1, end):
        writer.add_page(reader.pages[index])
    label = str(start) if start == end else '%d-%d' % (start, end)
    path = os.path.join(folder, '%s-p%s.pdf' % (stem, label))
    with open(path, 'wb') as handle:
        writer.write(handle)
    print('%s: pages %s' % (path, label))
