"""The computer's file tools (read, write, edit, glob, grep), run by the supervisor inside the sandbox.

They run as the sandbox's user on the sandbox's mounts, so the kernel decides what may be
read or written: a read-only folder refuses a write however the path is spelt.
"""

import errno
import fnmatch
import os
import re

WORKSPACE = '/workspace'
READ_LINE_LIMIT = 2000
READ_LINE_CHARS = 2000
READ_BYTES_CAP = 10 * 1024 * 1024
IMAGE_BYTES_CAP = 5 * 1024 * 1024
LIST_CAP = 1000
GREP_CAP = 500
GREP_FILE_CAP = 5 * 1024 * 1024
IMAGE_MAGIC = [
    (b'\x89PNG\r\n\x1a\n', 'image/png'),
    (b'\xff\xd8\xff', 'image/jpeg'),
    (b'GIF87a', 'image/gif'),
    (b'GIF89a', 'image/gif'),
]


class Refused(Exception):
    """A tool call the model got wrong: its message goes back to the model as a tool error."""


def resolve(path_value, name='path'):
    if not isinstance(path_value, str) or path_value == '':
        raise Refused('`%s` is required: a path such as /workspace/notes.txt.' % name)
    if '\x00' in path_value:
        raise Refused('The path may not contain NUL characters.')
    return os.path.normpath(os.path.join(WORKSPACE, path_value))


def describe(error, path_value):
    messages = {
        'ENOENT': 'There is no file or folder at %s.',
        'EACCES': '%s cannot be written or read here: it is read only.',
        'EPERM': '%s cannot be written or read here: it is read only.',
        'EROFS': '%s is on a read-only folder: write under /workspace or /mnt/session/outputs instead.',
        'ENOSPC': 'Not written: %s would go over the space this run may use. Remove files you no longer need.',
        'EDQUOT': 'Not written: %s would go over the space this run may use. Remove files you no longer need.',
        'EISDIR': '%s is a folder, not a file.',
        'ENOTDIR': 'A part of %s is a file, not a folder.',
        'EFBIG': 'Not written: %s would be larger than a file may be here.',
    }
    code = errno_name(error)
    text = messages.get(code)
    return text % path_value if text else '%s: the file system answered %s.' % (path_value, code or 'an error')


def errno_name(error):
    return errno.errorcode.get(getattr(error, 'errno', None) or 0, '')


def read_tool(request):
    path = resolve(request.get('path'))
    offset = request.get('offset') or 1
    limit = request.get('limit') or READ_LINE_LIMIT
    if not isinstance(offset, int) or offset < 1 or not isinstance(limit, int) or limit < 1:
        raise Refused('`offset` and `limit` are whole numbers of lines, from 1.')
    with open(path, 'rb') as handle:
        head = handle.read(READ_BYTES_CAP + 1)
    for magic, media_type in IMAGE_MAGIC:
        if head.startswith(magic):
            if len(head) > IMAGE_BYTES_CAP:
                raise Refused('%s is an image over 5 MB: make a smaller copy with Pillow first.' % path)
            import base64  # only an image read pays for it

            return {'image': base64.b64encode(head).decode(), 'mediaType': media_type, 'path': path}
    if b'\x00' in head[:8192]:
        raise Refused('%s is a binary file of %d bytes; inspect it with bash (for example python3 or file).' % (
            path, os.path.getsize(path)))
    lines = head[:READ_BYTES_CAP].decode('utf-8', 'replace').splitlines()
    chosen = lines[offset - 1:offset - 1 + limit]
    shown = []
    for number, line in enumerate(chosen, start=offset):
        if len(line) > READ_LINE_CHARS:
            line = line[:READ_LINE_CHARS] + '… (line cut)'
        shown.append('%6d\t%s' % (number, line))
    text = '\n'.join(shown)
    if not chosen:
        text = '(%s has %d lines; nothing from line %d)' % (path, len(lines), offset)
    elif offset - 1 + limit < len(lines):
        text += '\n(showing lines %d-%d of %d; pass offset to read on)' % (offset, offset + len(chosen) - 1, len(lines))
    return {'text': text}


def write_tool(request):
    path = resolve(request.get('path'))
    content = request.get('content')
    if not isinstance(content, str):
        raise Refused('`content` is required: the whole text of the file.')
    data = content.encode('utf-8', 'surrogatepass')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as handle:
        handle.write(data)
    return {'text': 'Wrote %d bytes to %s.' % (len(data), path)}


def edit_tool(request):
    path = resolve(request.get('path'))
    old, new = request.get('old_string'), request.get('new_string')
    if not isinstance(old, str) or not isinstance(new, str) or old == '':
        raise Refused('`old_string` (not empty) and `new_string` are required.')
    if old == new:
        raise Refused('`old_string` and `new_string` are the same: there is nothing to change.')
    with open(path, 'r', encoding='utf-8', newline='') as handle:
        text = handle.read()
    count = text.count(old)
    if count == 0:
        raise Refused('`old_string` was not found in %s; read the file and copy the text exactly.' % path)
    if count > 1 and not request.get('replace_all'):
        raise Refused('`old_string` is in %s %d times: give more surrounding text to pick one, or set replace_all.'
                      % (path, count))
    changed = text.replace(old, new) if request.get('replace_all') else text.replace(old, new, 1)
    with open(path, 'w', encoding='utf-8', newline='') as handle:
        handle.write(changed)
    return {'text': 'Replaced %d occurrence%s in %s.' % (count if request.get('replace_all') else 1,
                                                          '' if count == 1 or not request.get('replace_all') else 's',
                                                          path)}


def walk_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            yield os.path.join(folder, name)


def glob_tool(request):
    pattern = request.get('pattern')
    if not isinstance(pattern, str) or pattern == '':
        raise Refused('`pattern` is required, for example **/*.py.')
    root = resolve(request.get('path') or WORKSPACE)
    if pattern.startswith('/'):
        root, pattern = '/', pattern.lstrip('/')
    regex = glob_regex(pattern)
    found = []
    for file in walk_files(root):
        if regex.fullmatch(os.path.relpath(file, root)):
            found.append(file)
            if len(found) > LIST_CAP:
                break
    if not found:
        return {'text': 'No files match %s under %s.' % (pattern, root)}
    shown = found[:LIST_CAP]
    note = ['(more than %d files match; narrow the pattern)' % LIST_CAP] if len(found) > LIST_CAP else []
    return {'text': '\n'.join(shown + note)}


def glob_regex(pattern):
    """`**` spans folders, `*` and `?` stay within one name."""
    parts = []
    index = 0
    while index < len(pattern):
        if pattern.startswith('**/', index):
            parts.append('(?:.*/)?')
            index += 3
        elif pattern.startswith('**', index):
            parts.append('.*')
            index += 2
        else:
            char = pattern[index]
            parts.append('[^/]*' if char == '*' else '[^/]' if char == '?' else re.escape(char))
            index += 1
    return re.compile(''.join(parts))


def grep_tool(request):
    pattern = request.get('pattern')
    if not isinstance(pattern, str) or pattern == '':
        raise Refused('`pattern` is required: a regular expression.')
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise Refused('`pattern` is not a valid regular expression: %s.' % error)
    root = resolve(request.get('path') or WORKSPACE)
    name_glob = request.get('glob')
    files = [root] if os.path.isfile(root) else walk_files(root)
    lines = []
    for file in files:
        if name_glob and not fnmatch.fnmatch(os.path.basename(file), name_glob):
            continue
        try:
            if os.path.getsize(file) > GREP_FILE_CAP:
                continue
            with open(file, 'rb') as handle:
                data = handle.read()
        except OSError:
            continue
        if b'\x00' in data[:8192]:
            continue
        for number, line in enumerate(data.decode('utf-8', 'replace').splitlines(), start=1):
            if regex.search(line):
                lines.append('%s:%d:%s' % (file, number, line[:500]))
                if len(lines) > GREP_CAP:
                    break
        if len(lines) > GREP_CAP:
            break
    if not lines:
        return {'text': 'No lines match %s under %s.' % (pattern, root)}
    note = ['(more than %d lines match; narrow the search)' % GREP_CAP] if len(lines) > GREP_CAP else []
    return {'text': '\n'.join(lines[:GREP_CAP] + note)}


FILE_TOOLS = {'read': read_tool, 'write': write_tool, 'edit': edit_tool, 'glob': glob_tool, 'grep': grep_tool}
