import sys

text = sys.stdin.read()
print(f"words={len(text.split())}")
