"""The computer's supervisor: process 1 of one run's sandbox (DESIGN §14).

It holds the run's one bash shell and does the file tools' work inside the sandbox, so every
path a tool names is resolved by the kernel against the sandbox's own mounts (read-only skill
and uploads, bounded writable space) and never against the server's. It reads one JSON request
per line on stdin and answers each with one JSON line on stdout, in order.

As process 1 of its PID namespace it cannot be killed from inside (the kernel drops signals
to a namespace's init that it has no handler for), so `kill -9 -1` in a command ends the
command's processes, not the computer. Being init, it also reaps every orphan.
"""

# The imports are few and cheap on purpose: the computer starts on a run's critical path
# (python3 -S, no site module; base64 and socket only where they are needed).
import json
import os
import resource
import signal
import sys
import threading
import time

from file_tools import FILE_TOOLS, WORKSPACE, Refused, describe

OUTPUT_CAP = 30 * 1024
KILL_GRACE_S = 2.0
# The shell and every command it starts are counted this much worse than the supervisor when
# the run's memory is full: the kernel then stops the command that passed the limit, not the
# computer (issue 49). 500 of 1000 adds half the limit to each command's score.
COMMAND_OOM_SCORE_ADJ = 500

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
        self.marker_text = '\x1eskillet-' + os.urandom(12).hex() + '\x1e'
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
        mark_first_to_stop(pid)
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
            'eval ' + quoted + ' </dev/null 3>&-; __skillet_status=$?; '
            'printf %s ' + marker + '; printf %s ' + marker + ' >&2; '
            'printf "%d\\n" "$__skillet_status" >&3\n'
        )
        self.commands.write(line.encode())


def mark_first_to_stop(pid):
    """Makes `pid` (the shell, before its first command) the memory killer's choice over the supervisor.

    Raising a score takes no privilege. A command may lower its own back to the supervisor's,
    no further; should the supervisor be stopped then, the server starts the computer again
    and the call still names the limit (computer-tools.ts).
    """
    try:
        with open('/proc/%d/oom_score_adj' % pid, 'w') as score:
            score.write(str(COMMAND_OOM_SCORE_ADJ))
    except OSError:
        pass  # a kernel without the file: the fallback above still holds


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
    import socket  # only a run with a network pays for it

    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            socket.create_connection(('127.0.0.1', 3128), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.02)
    return pid


def not_dumpable():
    """Out of reach of the sandbox's own processes: no /proc/1/fd, no ptrace (they run as the same user).

    Without it a command could open /proc/1/fd/1 and write into the answers the server reads.
    """
    import ctypes

    pr_set_dumpable = 4
    if ctypes.CDLL(None, use_errno=True).prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl(PR_SET_DUMPABLE) failed')


def main():
    not_dumpable()
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
