"""The operating-system boundary around a program pasted into the playground's watch view.

A pasted program is not trusted (users paste snippets from the web), and nothing inside its own
interpreter can hold it: whatever guard lives there, the program can rewrite. So the boundary is
built outside it, by the kernel, with well-kept tools:

- **bubblewrap** (``bwrap``, Debian's ``bubblewrap``): fresh user, mount, pid, network, IPC, UTS
  and cgroup namespaces. The program sees a root file system that holds only the interpreter's
  own files, read-only (the Python installation, the virtual environment, the strided package,
  the system libraries the interpreter links), plus one private writable tmpfs of 64 MiB at
  ``/tmp`` (its working directory; nosuid, in memory, gone with the sandbox); the root and ``/dev``
  are read-only, and there is no ``/proc`` (the sysctls, the host's kernel tables). ``/etc/passwd``, the home directory, the project and every
  other file of the user are not there to read. No network interface but its own loopback; it
  runs as ``nobody`` with every capability dropped, in a session of its own (no terminal
  injection), and dies with the server.
- **seccomp** (libseccomp through the ``pyseccomp`` bindings, a thin ctypes layer): no new
  processes and no threads (``fork``, ``vfork``, ``clone``; ``clone3`` answers ENOSYS): each would
  take one of the host's pids, and a thread bomb can exhaust them in the time limit; no signals
  to other processes, no change of any file's owner, mode, times or extended attributes (``/dev``
  holds the host's own device nodes), no SysV/POSIX IPC, inotify, memfd or shared mappings
  (memory and quotas outside the rlimits, charged to the server's user), no sockets at all, no
  file locks or leases (the interpreter's files are the host's too), on x86-64 nothing newer
  than syscall 447 (libseccomp's table may not know it by name), and none of the kernel interfaces a sandboxed program has no use for (``ptrace``, ``mount``,
  ``unshare``, ``setns``, ``bpf``, ``keyctl``, ``perf_event_open``, ``io_uring``, ...).

:func:`probe` tells, once per process, whether the boundary can be set up here (and if not, why
not, in one line); :func:`command` builds the command line that runs ``argv`` inside it. The
runner (:mod:`.sandbox`) adds the time limit (killing the whole process group), the resource
limits and the capped reading of what comes out.

    >>> b = probe()
    >>> b.available in (True, False) and isinstance(b.reason, str)
    True
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["PACKAGE_PARENT", "SANDBOX_TMP", "Boundary", "command", "probe", "readable_roots", "seccomp_filter"]

PACKAGE_PARENT = Path(__file__).resolve().parents[2]
"""The directory that holds the strided package (for an editable install, the project's ``src``)."""

SANDBOX_TMP = "/tmp"
"""Where the program's private writable directory appears inside the boundary."""

NOBODY = 65534
"""The uid and gid the program runs as inside its user namespace."""

TMP_BYTES = 64 * 2**20
"""The size of the program's private ``/tmp`` (a tmpfs in memory: the one place it may write)."""

# Syscalls a watch program never needs: refused with EPERM. The namespaces already confine what
# they could reach; refusing them also shrinks the kernel surface the program can poke at.
_REFUSED = (
    "fork", "vfork", "kill", "tkill", "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "ptrace",
    "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root", "chroot", "unshare",
    "setns", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "init_module",
    "finit_module", "delete_module", "acct", "swapon", "swapoff", "reboot", "syslog", "personality",
    "open_by_handle_at", "name_to_handle_at", "fanotify_init", "move_mount", "open_tree", "fsopen",
    "fsmount", "fsconfig", "fspick", "mount_setattr", "open_tree_attr",
    # ownership, modes, times and extended attributes: /dev holds the host's own device nodes,
    # bound one by one, and a user namespace mapped to root may change them on the host
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes",
    "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr",
    "lremovexattr", "fremovexattr", "removexattrat",
    # memory and quotas outside RLIMIT_AS, charged to the user that started the server
    "shmget", "shmat", "msgget", "semget", "mq_open", "inotify_init", "inotify_init1", "memfd_secret",
    "rt_sigqueueinfo", "rt_tgsigqueueinfo", "kcmp", "modify_ldt", "memfd_create",
    # no sockets at all (descriptors in flight over a Unix socket pin memory and outlive the program)
    "socket", "socketpair",
    # locks and leases: the program may lock the interpreter's files, which the host reads too
    "flock",
)
_FCNTL_REFUSED = (6, 7, 37, 38, 1024, 1026)
"""fcntl commands refused: F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_NOTIFY."""
_MAP_SHARED = 0x01
_X86_64_FIRST_UNLISTED = 448
"""On x86-64, every syscall from this number on (newer than what the watch view needs, some newer
than libseccomp's own table, which would otherwise let them through unnamed) answers ENOSYS."""
_X86_64_LAST = 511


@dataclass(frozen=True)
class Boundary:
    """Whether the boundary can be set up on this machine: ``available``, the ``bwrap`` path,
    and ``reason`` (one line: what it is, or why it is missing and how to get it)."""

    available: bool
    bwrap: str
    reason: str


def seccomp_filter(out: IO[bytes]) -> None:
    """Write the watch view's seccomp program (raw BPF, as ``bwrap --seccomp FD`` reads it) to ``out``.

    Raises ImportError / RuntimeError / OSError when libseccomp or its bindings are missing.
    """
    import pyseccomp as sc  # lazily: only the watch view needs it (a ctypes binding to libseccomp)

    rules = sc.SyscallFilter(defaction=sc.ALLOW)
    native = sc.system_arch()
    refused: set[int] = set()
    for name in _REFUSED:
        number = sc.resolve_syscall(native, name)
        if number < 0:
            continue  # not in libseccomp's table for this architecture: see the x86-64 range below
        rules.add_rule(sc.ERRNO(errno.EPERM), number)
        refused.add(number)
    # no processes and no threads: every new task would take a pid of the host's (a thread bomb
    # exhausts them within the time limit, and RLIMIT_NPROC does not hold for a root-mapped user);
    # a watch program needs neither (BLAS runs on one thread)
    rules.add_rule(sc.ERRNO(errno.EPERM), "clone")
    # clone3 passes its flags in memory, which seccomp cannot read: ENOSYS, as glibc expects of old kernels
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    refused |= {sc.resolve_syscall(native, "clone"), sc.resolve_syscall(native, "clone3")}
    # shared mappings hold memory that RLIMIT_AS no longer counts once they are unmapped
    rules.add_rule(sc.ERRNO(errno.EPERM), "mmap", sc.Arg(3, sc.MASKED_EQ, _MAP_SHARED, _MAP_SHARED))
    for command in _FCNTL_REFUSED:
        rules.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.EQ, command, 0))
    if native == sc.Arch.X86_64:
        for number in range(_X86_64_FIRST_UNLISTED, _X86_64_LAST + 1):
            if number not in refused:
                rules.add_rule(sc.ERRNO(errno.ENOSYS), number)
    rules.export_bpf(out)


def readable_roots() -> list[str]:
    """The directories the program may read (read-only): the interpreter's own files.

    The Python installation, the virtual environment, the standard library and site-packages, the
    directory that holds the strided package (for an editable install, the project's ``src``),
    and the system library directories the interpreter links against.
    """
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable)), str(PACKAGE_PARENT)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.add(sysconfig.get_paths()[key])
    for lib in ("/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32"):
        paths.add(lib)
    roots: list[str] = []
    for p in sorted({os.path.realpath(p) for p in paths} | paths):
        if os.path.isdir(p) and not any(p == r or p.startswith(r + os.sep) for r in roots):
            roots.append(p)
    return roots


def command(bwrap: str, argv: list[str], *, seccomp_fd: int) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` inside the boundary, with a private tmpfs of
    :data:`TMP_BYTES` as its ``/tmp`` and working directory, and the seccomp program read from
    ``seccomp_fd`` (an open file descriptor the caller passes on)."""
    cmd = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
           "--cap-drop", "ALL", "--uid", str(NOBODY), "--gid", str(NOBODY), "--hostname", "strided-watch",
           # the one writable place: memory of a capped size (nosuid, nodev), gone with the sandbox,
           # so nothing the program writes ever lands on the host's disk or needs cleaning up there.
           # Mounted first: a readable root may lie below /tmp (a clone and its venv in /tmp), and
           # its read-only bind must go on top of the tmpfs, not under it
           "--size", str(TMP_BYTES), "--tmpfs", SANDBOX_TMP]
    for root in readable_roots():
        cmd += ["--ro-bind", root, root]
    # merged-/usr systems link /lib, /lib64 and /bin into /usr: the dynamic loader looks there
    for top in ("/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    # no /proc at all: the program needs none, and much of it is the host's (kernel page flags,
    # slab and timer lists) or writable by a root-mapped user (the sysctls)
    cmd += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", "--dev", "/dev", "--chdir", SANDBOX_TMP,
            # everything else read-only: the root and /dev are bubblewrap's own tmpfs
            "--remount-ro", "/dev", "--remount-ro", "/",
            "--seccomp", str(seccomp_fd), "--"]
    return cmd + argv


@functools.cache
def probe() -> Boundary:
    """Whether the boundary works here: ``bwrap`` on the PATH, libseccomp loadable, and a trial
    run of the interpreter inside both that exits cleanly. Checked once per process."""
    if not sys.platform.startswith("linux"):
        return Boundary(False, "", f"the watch view's sandbox needs Linux namespaces and seccomp; this is {sys.platform}")
    bwrap = shutil.which("bwrap") or ""
    if not bwrap:
        return Boundary(False, "", "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    try:
        with tempfile.TemporaryFile() as rules:
            seccomp_filter(rules)
            rules.seek(0)
            fd = rules.fileno()
            argv = [sys.executable, "-s", "-c", "import os; os.fork()"]
            done = subprocess.run(command(bwrap, argv, seccomp_fd=fd), pass_fds=(fd,), cwd="/",
                                  capture_output=True, timeout=30, check=False)
    except (ImportError, RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        return Boundary(False, bwrap, f"seccomp cannot be set up ({type(exc).__name__}: {exc}); libseccomp and "
                                      "the pyseccomp package are needed")
    err = done.stderr.decode("utf-8", "replace")
    if "PermissionError" in err and "Operation not permitted" in err:
        return Boundary(True, bwrap, "bubblewrap namespaces + seccomp (no processes or threads, no network, "
                                     "only the interpreter's files, read-only, and a private 64 MiB /tmp)")
    last = (err.strip().splitlines() or ["no message"])[-1]
    return Boundary(False, bwrap, f"bubblewrap cannot create the sandbox here ({last}); user namespaces may be off "
                                  "(sysctl kernel.unprivileged_userns_clone)")
