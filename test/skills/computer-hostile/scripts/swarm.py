# A swarm of allocators that give up the extra memory-killer score the computer gives its
# commands (the parent first, so every child inherits it), so that none of them stands out
# over the supervisor: they grow 2 MiB at a time until stopped. Prints how many the kernel
# stopped, and fails when any was.
import os, signal, sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
with open('/proc/self/oom_score_adj', 'w') as score:
    score.write('0')
children = []
for _ in range(count):
    pid = os.fork()
    if pid == 0:
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
