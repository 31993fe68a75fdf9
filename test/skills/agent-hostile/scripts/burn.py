# Burns the CPU seconds given as its argument, then exits cleanly.
import sys, time
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass
print("burned", sys.argv[1])
