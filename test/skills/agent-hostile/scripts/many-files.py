# Writes 20,000 one-byte files into the run's output, a hundred to a folder.
import os
for i in range(20000):
    folder = f"batch-{i // 100}"
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"f{i}.txt"), "w") as out:
        out.write("x")
print("wrote 20000 files")
