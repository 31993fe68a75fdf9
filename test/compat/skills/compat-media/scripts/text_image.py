"""Draws a line of text large and black on white (DejaVu Sans), for OCR."""
import sys

from PIL import Image, ImageDraw, ImageFont

font = ImageFont.truetype('DejaVuSans.ttf', 64)
image = Image.new('RGB', (1000, 160), 'white')
ImageDraw.Draw(image).text((30, 40), sys.argv[2], fill='black', font=font)
image.save(sys.argv[1])
print(f'wrote {sys.argv[1]}')
