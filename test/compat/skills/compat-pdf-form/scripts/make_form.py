"""Draws a one-page form with two text fields and a checkbox (reportlab's AcroForm)."""
import sys

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

out = sys.argv[1]
page = canvas.Canvas(out, pagesize=A4)
page.drawString(72, 760, 'Name')
page.acroForm.textfield(name='name', x=150, y=750, width=250, height=20)
page.drawString(72, 720, 'City')
page.acroForm.textfield(name='city', x=150, y=710, width=250, height=20)
page.drawString(72, 680, 'Subscribe')
page.acroForm.checkbox(name='subscribe', x=150, y=675, size=16)
page.save()
print(f'made {out}')
