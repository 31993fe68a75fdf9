# Writes into a file it has already deleted, holding it open: space no folder walk can see.
import os, sys, time
path, mib = sys.argv[1], int(sys.argv[2])
handle = open(path, 'wb')
os.unlink(path)
written = 0
try:
    for _ in range(mib):
        handle.write(b'h' * (1 << 20))
        handle.flush()
        written += 1
except OSError as error:
    print('stopped after', written, 'MiB:', error.strerror, flush=True)
    sys.exit(1)
print('hid', written, 'MiB', flush=True)
time.sleep(5)
