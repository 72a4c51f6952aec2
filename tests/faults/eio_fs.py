"""A FUSE file system whose files fail with EIO past a given byte, as a disk with a bad sector
does: the kernel hands the error to the reader's read(2).

Usage: eio_fs.py BACKING_DIR MOUNT_POINT NAME=BAD_FROM_BYTE...
Serves the regular files of BACKING_DIR read-only under MOUNT_POINT. A read of file NAME that
reaches byte BAD_FROM_BYTE fails with EIO; bytes before it, and the other files, read as they
are. Runs in the foreground until unmounted. Needs python3-fusepy and /dev/fuse.
"""
import errno
import os
import stat
import sys

from fusepy import FUSE, FuseOSError, Operations


class BadSectors(Operations):
    def __init__(self, backing, bad_from):
        self.backing = backing
        self.bad_from = bad_from  # {"/name": first bad byte}

    def _real(self, path):
        name = path.lstrip("/")
        real = os.path.join(self.backing, name)
        if "/" in name or not os.path.isfile(real):
            raise FuseOSError(errno.ENOENT)
        return real

    def getattr(self, path, fh=None):
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2}
        st = os.stat(self._real(path))
        return {"st_mode": stat.S_IFREG | 0o444, "st_nlink": 1, "st_size": st.st_size,
                "st_mtime": st.st_mtime, "st_ctime": st.st_ctime, "st_atime": st.st_atime}

    def readdir(self, path, fh):
        return [".", ".."] + sorted(n for n in os.listdir(self.backing)
                                    if os.path.isfile(os.path.join(self.backing, n)))

    def open(self, path, flags):
        self._real(path)
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return 0

    def read(self, path, size, offset, fh):
        if offset + size > self.bad_from.get(path, float("inf")):
            raise FuseOSError(errno.EIO)
        with open(self._real(path), "rb") as f:
            f.seek(offset)
            return f.read(size)


def main():
    backing, mount_point = sys.argv[1], sys.argv[2]
    bad_from = {}
    for item in sys.argv[3:]:
        name, _, byte = item.partition("=")
        bad_from["/" + name] = int(byte)
    # direct_io: every read(2) reaches read() above, so the error is neither hidden by the page
    # cache nor widened by read-ahead to the bytes before it.
    FUSE(BadSectors(backing, bad_from), mount_point, foreground=True, ro=True, direct_io=True,
         nothreads=True)


if __name__ == "__main__":
    main()
