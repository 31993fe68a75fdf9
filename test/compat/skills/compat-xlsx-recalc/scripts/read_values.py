"""Prints each formula cell with the value a spreadsheet program computed for it."""
import sys

from openpyxl import load_workbook

formulas = load_workbook(sys.argv[1])['Budget']
values = load_workbook(sys.argv[1], data_only=True)['Budget']
for cell in ('B1', 'B2', 'B3'):
    print(f'{cell} {formulas[cell].value} -> {values[cell].value}')
