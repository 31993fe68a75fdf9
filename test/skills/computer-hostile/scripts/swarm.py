# A swarm of allocators that each give up the extra memory-killer score the computer gives its
# commands, so that none of them stands out over the supervisor: they grow 2 MiB at a time
# until the kernel stops them. Prints how many were stopped, and fails when any was.
import os, signal, sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
children = []
for _ in range(count):
    pid = os.fork()
    if pid == 0:
        try:
            with open('/proc/self/oom_score_adj', 'w') as score:
                score.write('0')
        except OSError:
            pass
        held = []
        while True:
            held.append(b'x' * (2 << 20))
    children.append(pid)
stopped = 0
for pid in children:
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        stopped += 1
print('stopped', stopped, 'of', count, flush=True)
sys.exit(1 if stopped else 0)
