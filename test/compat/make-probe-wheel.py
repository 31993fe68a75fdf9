"""Writes the wheel of a tiny package of our own, skillet-compat-probe, into the folder given.

The computer image's pip layer is tested with it where no package index answers: the image is
built with `--wheels <folder>` and a requirement naming it, and the compatibility suite imports
it inside the computer. Written by hand (a wheel is a zip of the module and its metadata), so
nothing needs downloading to build it.
"""

import base64
import hashlib
import os
import sys
import zipfile

NAME = 'skillet_compat_probe'
VERSION = '1.0.0'
DIST_INFO = f'{NAME}-{VERSION}.dist-info'

FILES = {
    f'{NAME}/__init__.py': 'def greeting():\n    return "installed by the pip layer"\n',
    f'{DIST_INFO}/METADATA': f'Metadata-Version: 2.1\nName: skillet-compat-probe\nVersion: {VERSION}\n',
    f'{DIST_INFO}/WHEEL': 'Wheel-Version: 1.0\nGenerator: skillet\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
}


def record_line(path, text):
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()
    return f'{path},sha256={digest},{len(text.encode())}'


def main(folder):
    os.makedirs(folder, exist_ok=True)
    wheel = os.path.join(folder, f'{NAME}-{VERSION}-py3-none-any.whl')
    record = '\n'.join([record_line(path, text) for path, text in FILES.items()] + [f'{DIST_INFO}/RECORD,,']) + '\n'
    with zipfile.ZipFile(wheel, 'w', zipfile.ZIP_DEFLATED) as archive:
        for path, text in FILES.items():
            archive.writestr(path, text)
        archive.writestr(f'{DIST_INFO}/RECORD', record)
    print(wheel)


if __name__ == '__main__':
    main(sys.argv[1])
