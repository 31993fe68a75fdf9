"""The computer's supervisor: process 1 of one run's sandbox (DESIGN §14).

It holds the run's one bash shell and does the file tools' work inside the sandbox, so every
path a tool names is resolved by the kernel against the sandbox's own mounts (read-only skill
and uploads, bounded writable space) and never against the server's. It reads one JSON request
per line on stdin and answers each with one JSON line on stdout, in order.

As process 1 of its PID namespace it cannot be killed from inside (the kernel drops signals
to a namespace's init that it has no handler for), so `kill -9 -1` in a command ends the
command's processes, not the computer. Being init, it also reaps every orphan.
"""

import base64
import fnmatch
import json
import os
import re
import resource
import secrets
import signal
import socket
import sys
import threading
import time

WORKSPACE = '/workspace'
OUTPUT_CAP = 30 * 1024
READ_LINE_LIMIT = 2000
READ_LINE_CHARS = 2000
READ_BYTES_CAP = 10 * 1024 * 1024
IMAGE_BYTES_CAP = 5 * 1024 * 1024
LIST_CAP = 1000
GREP_CAP = 500
GREP_FILE_CAP = 5 * 1024 * 1024
KILL_GRACE_S = 2.0
IMAGE_MAGIC = [
    (b'\x89PNG\r\n\x1a\n', 'image/png'),
    (b'\xff\xd8\xff', 'image/jpeg'),
    (b'GIF87a', 'image/gif'),
    (b'GIF89a', 'image/gif'),
]


class Refused(Exception):
    """A tool call the model got wrong: its message goes back to the model as a tool error."""


class Capture:
    """One of the shell's output streams, cut into one piece per command at the end marker."""

    def __init__(self, fd, marker):
        self.fd = fd
        self.marker = marker
        self.ready = threading.Condition()
        self.pieces = []
        self.eof = False
        self._start_piece()
        threading.Thread(target=self._read, daemon=True).start()

    def _start_piece(self):
        self.kept = bytearray()
        self.total = 0

    def _take(self, data):
        self.total += len(data)
        room = OUTPUT_CAP - len(self.kept)
        if room > 0:
            self.kept += data[:room]

    def _read(self):
        pending = b''
        keep = len(self.marker) - 1
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b''
            with self.ready:
                if not chunk:
                    self.eof = True
                    self.ready.notify_all()
                    return
                data = pending + chunk
                while True:
                    at = data.find(self.marker)
                    if at < 0:
                        break
                    self._take(data[:at])
                    self.pieces.append((bytes(self.kept), self.total))
                    self._start_piece()
                    data = data[at + len(self.marker):]
                    self.ready.notify_all()
                # Bytes that may be the start of a marker wait for the next chunk.
                if len(data) > keep:
                    self._take(data[:len(data) - keep])
                    pending = data[len(data) - keep:]
                else:
                    pending = data

    def next_piece(self, deadline):
        with self.ready:
            while not self.pieces and not self.eof:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.ready.wait(left)
            if self.pieces:
                return self.pieces.pop(0)
            return bytes(self.kept), self.total


class Shell:
    """One bash process whose working folder, variables and functions outlive each command."""

    def __init__(self, env):
        self.env = env
        self.marker_text = '\x1eskillet-' + secrets.token_hex(12) + '\x1e'
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        status_r, status_w = os.pipe()
        command_r, command_w = os.pipe()
        # Pipes are close-on-exec; the shell gets exactly these four, in a session of its own,
        # with the signals Python ignores (SIGPIPE) back at their defaults.
        pid = os.posix_spawn('/bin/bash', ['bash', '--noprofile', '--norc'], env, file_actions=[
            (os.POSIX_SPAWN_DUP2, command_r, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
            (os.POSIX_SPAWN_DUP2, status_w, 3),
        ], setsid=True, setsigdef=(signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGCHLD))
        for fd in (out_w, err_w, status_w, command_r):
            os.close(fd)
        self.pid = pid
        self.commands = os.fdopen(command_w, 'wb', buffering=0)
        self.status = os.fdopen(status_r, 'rb', buffering=0)
        marker = self.marker_text.encode()
        self.stdout = Capture(out_r, marker)
        self.stderr = Capture(err_r, marker)
        self.statuses = []
        self.status_ready = threading.Condition()
        threading.Thread(target=self._read_statuses, daemon=True).start()

    def _read_statuses(self):
        buffered = b''
        while True:
            try:
                chunk = self.status.read(4096)
            except OSError:
                chunk = b''
            with self.status_ready:
                if not chunk:
                    self.statuses.append(None)
                    self.status_ready.notify_all()
                    return
                buffered += chunk
                while b'\n' in buffered:
                    line, buffered = buffered.split(b'\n', 1)
                    self.statuses.append(int(line or b'0'))
                    self.status_ready.notify_all()

    def wait_status(self, deadline):
        with self.status_ready:
            while not self.statuses:
                left = deadline - time.monotonic()
                if left <= 0:
                    return 'timeout'
                self.status_ready.wait(left)
            return self.statuses.pop(0)

    def send(self, command):
        # ANSI-C quoting carries any text through the shell's reader unchanged; eval then runs it
        # in the shell itself, so cd and export last.
        quoted = "$'" + ''.join(
            ch if (ch.isascii() and (ch.isalnum() or ch in ' ._-/:=,+@%')) else ''.join(
                '\\x%02x' % byte for byte in ch.encode('utf-8', 'surrogatepass'))
            for ch in command
        ) + "'"
        marker = "$'" + self.marker_text.replace('\x1e', '\\x1e') + "'"
        line = (
            'eval ' + quoted + ' </dev/null; __skillet_status=$?; '
            'printf %s ' + marker + '; printf %s ' + marker + ' >&2; '
            'printf "%d\\n" "$__skillet_status" >&3\n'
        )
        self.commands.write(line.encode())


def child_pids():
    pids = []
    for name in os.listdir('/proc'):
        if name.isdigit() and int(name) != 1:
            pids.append(int(name))
    return pids


def kill_all_but(keep):
    """Kills every process of the sandbox but those kept, until none is left (forks race a single pass)."""
    for _ in range(50):
        targets = [pid for pid in child_pids() if pid not in keep]
        if not targets:
            return
        for pid in targets:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)


class Computer:
    def __init__(self, env):
        self.env = env
        self.shell = Shell(env)
        self.keep = set()

    def restart_shell(self):
        try:
            os.kill(self.shell.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kill_all_but(self.keep)
        self.shell = Shell(self.env)

    def bash(self, request):
        command = request.get('command')
        if not isinstance(command, str) or command.strip() == '':
            raise Refused('`command` is required: the shell command to run.')
        if '\x00' in command:
            raise Refused('The command may not contain NUL characters.')
        timeout_ms = request.get('timeout_ms', 120000)
        shell = self.shell
        shell.send(command)
        deadline = time.monotonic() + timeout_ms / 1000
        status = shell.wait_status(deadline)
        notes = []
        if status == 'timeout':
            # The command's processes die; the shell, its folder and its variables live on.
            kill_all_but(self.keep | {shell.pid})
            status = shell.wait_status(time.monotonic() + KILL_GRACE_S)
            notes.append('The command was stopped: it ran past its time limit of %d ms.' % timeout_ms)
            if status == 'timeout':
                # A loop of the shell's own (no child to kill): only a new shell ends it.
                self.restart_shell()
                notes.append('The shell itself was busy, so a new one was started in /workspace: '
                              'variables and the working folder were reset; files are kept.')
                return {'stdout': '', 'stderr': '', 'exitCode': None, 'notes': notes}
        if status is None:
            self.restart_shell()
            notes.append('The shell exited, so a new one was started in /workspace: variables and the '
                          'working folder were reset; files are kept.')
            return {'stdout': '', 'stderr': '', 'exitCode': None, 'notes': notes}
        end = time.monotonic() + KILL_GRACE_S
        out, out_total = shell.stdout.next_piece(end)
        err, err_total = shell.stderr.next_piece(end)
        for name, total in (('stdout', out_total), ('stderr', err_total)):
            if total > OUTPUT_CAP:
                notes.append('%s was cut to its first %d bytes (the command printed %d).' % (name, OUTPUT_CAP, total))
        return {
            'stdout': out.decode('utf-8', 'replace'),
            'stderr': err.decode('utf-8', 'replace'),
            'exitCode': status,
            'notes': notes,
        }


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
    import errno
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


def reap(computer):
    """Init's duty: collect every child that ends, the shell's orphans included."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            time.sleep(0.05)
        except InterruptedError:
            pass


def start_forwarder(socket_path):
    """The sandbox's end of the network (egress-forwarder.py), ready before the shell's first command."""
    pid = os.posix_spawn(sys.executable, [sys.executable, '-E', '-s', '-B', '/opt/skillet/egress-forwarder.py',
                                          socket_path], dict(os.environ), setsid=True)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            socket.create_connection(('127.0.0.1', 3128), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.02)
    return pid


def main():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    env = {key: value for key, value in os.environ.items() if key != 'SKILLET_EGRESS_SOCKET'}
    keep = {os.getpid()}
    if os.environ.get('SKILLET_EGRESS_SOCKET'):
        keep.add(start_forwarder(os.environ['SKILLET_EGRESS_SOCKET']))
    computer = Computer(env)
    computer.keep |= keep
    threading.Thread(target=reap, args=(computer,), daemon=True).start()
    out = sys.stdout
    out.write(json.dumps({'ready': True}) + '\n')
    out.flush()
    for line in sys.stdin:
        request = json.loads(line)
        answer = {'id': request.get('id')}
        try:
            op = request.get('op')
            if op == 'bash':
                answer.update(computer.bash(request))
            elif op in FILE_TOOLS:
                answer.update(FILE_TOOLS[op](request))
            else:
                raise Refused('unknown operation')
        except Refused as refusal:
            answer['error'] = str(refusal)
        except (OSError, UnicodeDecodeError) as error:
            target = request.get('path') or WORKSPACE
            answer['error'] = describe(error, target) if isinstance(error, OSError) else (
                '%s is not UTF-8 text; inspect it with bash.' % target)
        out.write(json.dumps(answer) + '\n')
        out.flush()


if __name__ == '__main__':
    main()
