"""A sheet of three numbers, their sum and a formula on the sum: formulas only, no cached values."""
import sys

from openpyxl import Workbook

book = Workbook()
sheet = book.active
sheet.title = 'Budget'
for row, amount in enumerate([120, 80, 45], start=1):
    sheet.cell(row=row, column=1, value=amount)
sheet['B1'] = '=SUM(A1:A3)'
sheet['B2'] = '=B1*2'
sheet['B3'] = '=ROUND(AVERAGE(A1:A3),2)'
book.save(sys.argv[1])
print(f'wrote {sys.argv[1]}')
