"""Prints one sheet of a workbook as CSV: read_sheet.py BOOK.xlsx [SHEET] [--formulas]"""
import csv
import sys

from openpyxl import load_workbook

args = [arg for arg in sys.argv[1:] if arg != '--formulas']
if len(args) not in (1, 2):
    sys.exit('usage: read_sheet.py BOOK.xlsx [SHEET] [--formulas]')
book = load_workbook(args[0], data_only='--formulas' not in sys.argv, read_only=True)
print('sheets: %s' % ', '.join(book.sheetnames), file=sys.stderr)
name = args[1] if len(args) == 2 else book.sheetnames[0]
if name not in book.sheetnames:
    sys.exit('no sheet named %r; the sheets are %s' % (name, ', '.join(book.sheetnames)))
writer = csv.writer(sys.stdout)
for row in book[name].iter_rows(values_only=True):
    writer.writerow(['' if value is None else value for value in row])
