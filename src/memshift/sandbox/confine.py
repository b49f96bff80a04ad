"""The operating system's layers around a sandbox worker: what the kernel stops once a program has
got round the allow-list and runs any Python it likes inside the worker.

`confine` is called once, in the worker, after its imports and before its first program. Each
layer is measured after it is set up; a layer the kernel refuses is reported inactive with the
kernel's reason, never skipped in silence (docs/sandbox.md says what each one stops). Nothing
here needs root: root is dropped, not used. Linux only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Layer:
    """One layer of the sandbox, and whether it is in force (measured, not assumed)."""

    name: str
    active: bool
    note: str


NOBODY = 65534
# An existing directory that the worker's own mount namespace covers with an empty filesystem.
EMPTY_ROOT = "/tmp"

CLONE_NEWNS = 0x0002_0000
CLONE_NEWUSER = 0x1000_0000
CLONE_NEWNET = 0x4000_0000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REC = 0x4000
MS_PRIVATE = 0x4_0000
CAPABILITY_VERSION_3 = 0x2008_0522

# Limits that are zero for good: no file content, no new process, no core file, no locked
# memory, no POSIX message queue.
ZERO_LIMITS = {
    "RLIMIT_FSIZE": resource.RLIMIT_FSIZE,
    "RLIMIT_NPROC": resource.RLIMIT_NPROC,
    "RLIMIT_CORE": resource.RLIMIT_CORE,
    "RLIMIT_MEMLOCK": resource.RLIMIT_MEMLOCK,
    "RLIMIT_MSGQUEUE": resource.RLIMIT_MSGQUEUE,
}


def confine(address_space: Callable[[], int], growth_bytes: int) -> list[Layer]:
    """Confines the calling process for good: no root, its own user, mount and network
    namespaces, an empty read-only filesystem, no capabilities and hard resource limits (its
    address space may grow by growth_bytes at most). Returns the layers, measured."""
    highest = _highest_descriptor()
    root = _drop_root()
    namespaces = _unshare()
    network = _network_layer(namespaces.active)
    filesystem = _filesystem_layer(namespaces.active)
    limits = _limit_resources(address_space() + growth_bytes, highest + 1)
    return [root, namespaces, network, filesystem, limits, _processes_layer()]


# ---------------------------------------------------------------- system calls


class _CapabilityHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapabilitySet(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _libc_call(name: str, *args: Any) -> None:
    """Calls a C library function that returns 0 on success; OSError otherwise."""
    function = getattr(ctypes.CDLL(None, use_errno=True), name, None)
    if function is None:
        raise OSError(errno.ENOSYS, f"the C library has no {name}")
    if function(*args) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def _capabilities(*, clear: bool) -> ctypes.Array[_CapabilitySet]:
    """The process's capability sets, cleared first if asked (all zeros is no capability)."""
    header = _CapabilityHeader(CAPABILITY_VERSION_3, 0)
    sets = (_CapabilitySet * 2)()
    if clear:
        _libc_call("capset", ctypes.byref(header), sets)
    _libc_call("capget", ctypes.byref(header), sets)
    return sets


def _unshare_call(flags: int) -> None:
    unshare: Callable[[int], None] | None = getattr(os, "unshare", None)  # Python 3.12+
    if unshare is not None:
        unshare(flags)
    else:
        _libc_call("unshare", flags)


# ---------------------------------------------------------------- the layers


def _highest_descriptor() -> int:
    listed = [int(name) for name in os.listdir("/proc/self/fd")]
    return max(fd for fd in listed if _is_open(fd))  # the listing's own descriptor is closed


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _drop_root() -> Layer:
    if os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
        except OSError as error:
            return Layer("no root", False, f"root could not become uid {NOBODY}: {error.strerror}")
        return Layer("no root", os.getresuid() == (NOBODY,) * 3, f"root dropped for uid {NOBODY}")
    return Layer("no root", True, f"the worker runs as uid {os.geteuid()}")


def _unshare() -> Layer:
    try:
        _unshare_call(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET)
    except OSError as error:
        reason = f"the kernel refused them: {error.strerror}"
        return Layer("namespaces", False, f"no user, mount and network namespaces; {reason}")
    return Layer("namespaces", True, "its own user, mount and network namespaces")


def _network_layer(namespaced: bool) -> Layer:
    if not namespaced:
        return Layer("no network", False, "the worker shares the machine's network")
    try:
        interfaces = _interfaces()
    except OSError as error:
        return Layer("no network", False, f"could not list the interfaces: {error.strerror}")
    note = f"interfaces: {', '.join(interfaces) or 'none'} (a new namespace's loopback is down)"
    return Layer("no network", set(interfaces) <= {"lo"}, note)


def _interfaces() -> list[str]:
    # The file lists the interfaces of the reader's own network namespace.
    with open("/proc/self/net/dev") as table:
        return [line.split(":")[0].strip() for line in table.readlines()[2:]]


def _filesystem_layer(namespaced: bool) -> Layer:
    if not namespaced:
        return Layer("empty filesystem", False, "needs the mount namespace")
    problem = _enter_empty_root()
    # Even if the root was not changed: capabilities of a user namespace are no use to a program.
    problem = _drop_capabilities() or problem
    if problem:
        return Layer("empty filesystem", False, problem)
    empty = not os.listdir("/") and bool(os.statvfs("/").f_flag & os.ST_RDONLY)
    note = "the root is an empty read-only file system; no capabilities left"
    return Layer("empty filesystem", empty, note)


def _enter_empty_root() -> str | None:
    """None once the root is an empty read-only tmpfs, else what went wrong."""
    sealed = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    try:
        _libc_call("mount", None, b"/", None, MS_REC | MS_PRIVATE, None)
        _libc_call("mount", b"tmpfs", EMPTY_ROOT.encode(), b"tmpfs", sealed, b"size=4k,mode=0555")
        os.chroot(EMPTY_ROOT)
        os.chdir("/")
    except OSError as error:
        return f"could not enter an empty root at {EMPTY_ROOT}: {error.strerror}"
    return None


def _drop_capabilities() -> str | None:
    """None once the process holds no capability (in its user namespace), else why not. Without
    this a program could remount the empty root writable and climb out of it."""
    try:
        sets = _capabilities(clear=True)
    except OSError as error:
        return f"could not drop capabilities: {error.strerror}"
    if any(s.effective or s.permitted for s in sets):
        return "capabilities remain after dropping them"
    return None


def _limit_resources(address_space: int, descriptors: int) -> Layer:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails, not kills
    wanted = {
        "RLIMIT_AS": (resource.RLIMIT_AS, address_space),
        "RLIMIT_NOFILE": (resource.RLIMIT_NOFILE, descriptors),
        **{name: (limit, 0) for name, limit in ZERO_LIMITS.items()},
    }
    try:
        for limit, value in wanted.values():
            resource.setrlimit(limit, (value, value))
    except (OSError, ValueError) as error:
        return Layer("resource limits", False, f"could not set them: {error}")
    held = all(resource.getrlimit(limit) == (value, value) for limit, value in wanted.values())
    locked = not _can_raise(resource.RLIMIT_CORE)
    note = (
        f"address space at most {address_space >> 20} MB, no descriptor beyond {descriptors - 1}"
        ", no file content, no process, no core file; "
        + ("hard limits cannot be raised" if locked else "but the worker could raise them again")
    )
    return Layer("resource limits", held and locked, note)


def _can_raise(limit: int) -> bool:
    soft, hard = resource.getrlimit(limit)
    try:
        resource.setrlimit(limit, (soft, hard + 1))
    except (OSError, ValueError):
        return False
    resource.setrlimit(limit, (soft, hard))
    return True


def _processes_layer() -> Layer:
    try:
        child = os.fork()
    except OSError as error:
        return Layer("no processes", True, f"fork fails: {error.strerror}")
    if child == 0:  # pragma: no cover - the probe's child
        os._exit(0)
    os.waitpid(child, 0)
    return Layer("no processes", False, "fork still works: RLIMIT_NPROC does not bind this user")
