#!/usr/bin/env python3
"""Unpacks a Debian package's files into a folder, like `dpkg -x`, with Python alone (a GPU
machine may have neither dpkg nor ar). A .deb is an `ar` archive whose data.tar.* member holds
the files.

    python3 .ci/unpack_deb.py libcli11-dev_2.1.2+ds-1_all.deb .deps/root
"""
import io
import sys
import tarfile


def members(path):
    """Yields (name, bytes) for every member of the ar archive at path."""
    with open(path, "rb") as archive:
        if archive.read(8) != b"!<arch>\n":
            raise SystemExit(f"unpack_deb: {path} is not a Debian package (no ar header)")
        while True:
            header = archive.read(60)
            if len(header) < 60:
                return
            name = header[:16].decode().strip().rstrip("/")
            size = int(header[48:58].decode().strip())
            data = archive.read(size)
            if size % 2:
                archive.read(1)  # members are 2-byte aligned
            yield name, data


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: unpack_deb.py PACKAGE.deb TARGET_DIR")
    package, target = sys.argv[1], sys.argv[2]
    for name, data in members(package):
        if name.startswith("data.tar"):
            # tarfile reads gz, bz2 and xz itself; zstd (newer Ubuntu) it cannot.
            if name.endswith(".zst"):
                raise SystemExit(f"unpack_deb: {package}: {name} is zstd-compressed; use dpkg -x")
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                if hasattr(tarfile, "data_filter"):  # Python 3.12+: refuse unsafe paths
                    tar.extractall(target, filter="data")
                else:
                    tar.extractall(target)
            return
    raise SystemExit(f"unpack_deb: {package} has no data.tar member")


if __name__ == "__main__":
    main()
