"""Writes a looping GIF of a moving square with imageio.v3, or (--check) reads one back."""
import sys

import imageio.v3 as iio
import numpy as np

if sys.argv[1] == '--check':
    frames = iio.imread(sys.argv[2], index=None)
    print(f'frames: {frames.shape[0]}, size: {frames.shape[2]}x{frames.shape[1]}')
    sys.exit(0)
frames = []
for step in range(8):
    frame = np.full((64, 64, 3), 255, dtype=np.uint8)
    frame[20:44, step * 5:step * 5 + 24] = (200, 30, 30)
    frames.append(frame)
iio.imwrite(sys.argv[1], np.stack(frames), duration=80, loop=0)
print(f'wrote {sys.argv[1]}')
