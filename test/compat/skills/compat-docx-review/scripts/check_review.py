"""Reads a reviewed .docx back: its tracked insertions and deletions, its comments, and that python-docx opens it."""
import sys
import zipfile

from defusedxml import minidom
from docx import Document

W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'
with zipfile.ZipFile(sys.argv[1]) as archive:
    body = minidom.parseString(archive.read('word/document.xml'))
    comments = minidom.parseString(archive.read('word/comments.xml'))


def texts(nodes, tag):
    return [c.data for node in nodes for t in node.getElementsByTagNameNS(W, tag) for c in t.childNodes]


print('inserted:', texts(body.getElementsByTagNameNS(W, 'ins'), 't'))
print('deleted:', texts(body.getElementsByTagNameNS(W, 'del'), 'delText'))
print('comments:', texts(comments.getElementsByTagNameNS(W, 'comment'), 't'))
print('paragraphs:', len(Document(sys.argv[1]).paragraphs))
