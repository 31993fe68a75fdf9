# Fills the kernel buffers of many socket pairs, memory no process counts as its own.
import socket, time
pairs = []
for i in range(400):
    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    a.setblocking(False)
    try:
        while True:
            a.send(b"x" * 65536)
    except BlockingIOError:
        pass
    pairs.append((a, b))
print("holding", len(pairs), "pairs", flush=True)
time.sleep(300)
