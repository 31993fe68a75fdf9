# Fills /dev/shm, then tries to make files in /dev itself; prints how each attempt ended.
import errno
import os
import sys

marker = sys.argv[1]
chunk = b"x" * (1024 * 1024)
written = 0
try:
    with open(f"/dev/shm/{marker}", "wb", buffering=0) as out:
        while written < 512 * 1024 * 1024:
            written += out.write(chunk)
    print(f"shm: wrote {written} bytes, no refusal")
except OSError as error:
    print(f"shm: {errno.errorcode.get(error.errno, error.errno)} after {written} bytes")
for attempt in (lambda: open(f"/dev/{marker}", "w"), lambda: os.mkdir(f"/dev/{marker}-dir")):
    try:
        attempt()
        print("dev: created")
    except OSError as error:
        print(f"dev: {errno.errorcode.get(error.errno, error.errno)}")
