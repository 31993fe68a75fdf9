"""Writes a workbook from a JSON spec: write_sheet.py SPEC.json OUT.xlsx (see SKILL.md for the spec)."""
import json
import sys

from openpyxl import Workbook
from openpyxl.styles import Font

if len(sys.argv) != 3:
    sys.exit('usage: write_sheet.py SPEC.json OUT.xlsx')
with open(sys.argv[1], encoding='utf-8') as handle:
    spec = json.load(handle)
sheets = spec.get('sheets') if isinstance(spec, dict) else None
if not isinstance(sheets, list) or not sheets:
    sys.exit('the spec needs "sheets": a list of {"name", "rows"}')
book = Workbook()
book.remove(book.active)
formulas = 0
for sheet_spec in sheets:
    sheet = book.create_sheet(str(sheet_spec.get('name') or 'Sheet%d' % (len(book.sheetnames) + 1))[:31])
    for row in sheet_spec.get('rows', []):
        sheet.append(row)
        formulas += sum(1 for value in row if isinstance(value, str) and value.startswith('='))
    if sheet_spec.get('bold_header', True) and sheet.max_row >= 1:
        for cell in sheet[1]:
            cell.font = Font(bold=True)
    for column, width in (sheet_spec.get('widths') or {}).items():
        sheet.column_dimensions[column].width = width
book.save(sys.argv[2])
print('%s: %d sheets, %d formulas' % (sys.argv[2], len(book.sheetnames), formulas))
