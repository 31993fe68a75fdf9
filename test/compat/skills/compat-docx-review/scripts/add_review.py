"""Adds a tracked change and a comment to a .docx by editing its XML parts (defusedxml parses them)."""
import shutil
import sys
import zipfile

from defusedxml import minidom

W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'
AUTHOR = 'Reviewer'
DATE = '2026-01-01T00:00:00Z'
source, out = sys.argv[1:3]

with zipfile.ZipFile(source) as archive:
    parts = {name: archive.read(name) for name in archive.namelist()}

document = minidom.parseString(parts['word/document.xml'])


def element(name, attributes=None, text=None):
    node = document.createElementNS(W, f'w:{name}')
    for key, value in (attributes or {}).items():
        node.setAttributeNS(W, f'w:{key}', value)
    if text is not None:
        node.appendChild(document.createTextNode(text))
    return node


def run_of(tag, text):
    run = element('r')
    piece = element(tag, {'space': 'preserve'} if tag == 't' else None, text)
    if tag == 't':
        piece.setAttribute('xml:space', 'preserve')
        piece.removeAttributeNS(W, 'space')
    run.appendChild(piece)
    return run


for paragraph in document.getElementsByTagNameNS(W, 'p'):
    text = ''.join(node.data for t in paragraph.getElementsByTagNameNS(W, 't') for node in t.childNodes)
    if 'Tuesday' not in text:
        continue
    for run in list(paragraph.getElementsByTagNameNS(W, 'r')):
        paragraph.removeChild(run)
    before, after = text.split('Tuesday', 1)
    paragraph.appendChild(run_of('t', before))
    paragraph.appendChild(element('commentRangeStart', {'id': '0'}))
    deleted = element('del', {'id': '1', 'author': AUTHOR, 'date': DATE})
    deleted.appendChild(run_of('delText', 'Tuesday'))
    paragraph.appendChild(deleted)
    inserted = element('ins', {'id': '2', 'author': AUTHOR, 'date': DATE})
    inserted.appendChild(run_of('t', 'Thursday'))
    paragraph.appendChild(inserted)
    paragraph.appendChild(element('commentRangeEnd', {'id': '0'}))
    reference = element('r')
    reference.appendChild(element('commentReference', {'id': '0'}))
    paragraph.appendChild(reference)
    paragraph.appendChild(run_of('t', after))
    break
else:
    sys.exit('no paragraph mentions Tuesday')

parts['word/document.xml'] = document.toxml(encoding='UTF-8')
parts['word/comments.xml'] = (
    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments xmlns:w="{W}">'
    f'<w:comment w:id="0" w:author="{AUTHOR}" w:date="{DATE}" w:initials="R"><w:p><w:r>'
    '<w:t>Thursday suits everyone better.</w:t></w:r></w:p></w:comment></w:comments>'
).encode()

relations = minidom.parseString(parts['word/_rels/document.xml.rels'])
root = relations.documentElement
link = relations.createElementNS(root.namespaceURI, 'Relationship')
link.setAttribute('Id', 'rIdSkilletComments')
link.setAttribute('Type', 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments')
link.setAttribute('Target', 'comments.xml')
root.appendChild(link)
parts['word/_rels/document.xml.rels'] = relations.toxml(encoding='UTF-8')

types = minidom.parseString(parts['[Content_Types].xml'])
override = types.createElementNS(types.documentElement.namespaceURI, 'Override')
override.setAttribute('PartName', '/word/comments.xml')
override.setAttribute('ContentType', 'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml')
types.documentElement.appendChild(override)
parts['[Content_Types].xml'] = types.toxml(encoding='UTF-8')

with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as archive:
    for name, data in parts.items():
        archive.writestr(name, data)
print(f'reviewed into {out}')
