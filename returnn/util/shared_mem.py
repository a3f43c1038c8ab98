"""Numpy arrays passed to another process of the same machine through System V shared memory.

When enabled (``SharedMemNumpyConfig["enabled"] = True``), :class:`returnn.util.task_system.Pickler` writes a numpy
array of at least ``auto_pickling_min_size`` bytes into a shared-memory segment owned by this process (a *server*
:class:`SharedNumpyArray`) and pickles only the segment's id, shape and dtype. Unpickling (in this or another
process) attaches the segment and gives a numpy array that views it; the array's ``base`` is the *client*
:class:`SharedNumpyArray`. A segment is reused for a later array once its reader let it go: when the client is
garbage-collected or :func:`numpy_set_unused` is called on its array.

Each segment starts with a header of :attr:`SharedNumpyArray.ExtraSpaceBytes` bytes; its first three machine words
(``ctypes.c_ulong``) are the in-use flag (1 while a reader holds the array), the id of the array currently stored
(counted up by the server each time it stores a new array, so that a late reader cannot mark a newer array unused)
and a constant sanity value (42). The array's bytes follow the header in C order.

Segments this process created are removed when it exits. Only Linux-style ``shmget``/``shmat`` through
:mod:`ctypes` are used; where they do not work, :meth:`SharedMem.is_shmget_functioning` is False and arrays are
pickled as usual.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import threading
from typing import Any, Dict, Optional, Set, Tuple

import numpy

__all__ = [
    "SharedMemNumpyConfig",
    "SharedMem",
    "SharedNumpyArray",
    "numpy_set_unused",
    "numpy_copy_and_set_unused",
    "use_shared_mem_for_numpy_array",
    "next_power_of_two",
]

SharedMemNumpyConfig: Dict[str, Any] = {
    "enabled": False,
    "auto_pickling_min_size": 8 * 1024 * 1024,  # bytes of array data from which an array goes to shared memory
    "min_shared_mem_size": 32 * 1024 * 1024,  # the smallest segment a server allocates (bytes)
    "max_server_instances": 10,  # server segments of this process at most
}

_SANITY_VALUE = 42


def next_power_of_two(n: int) -> int:
    """The smallest power of two ``>= n`` (1 for ``n <= 1``)."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def _log(msg: str) -> None:
    print("SharedMem[pid %i]: %s" % (os.getpid(), msg))


class SharedMem:
    """One System V shared-memory segment, attached to this process.

    :param size: the segment's size in bytes
    :param shmid: an existing segment's id to attach (a client); None creates a new segment (this process is its
        creator and removes it in :meth:`remove` or at exit)
    :raises SharedMem.ShmException: when the segment cannot be created or attached
    """

    class ShmException(Exception):
        """A shared-memory operation failed."""

    class CCallException(ShmException):
        """A libc call (``shmget``, ``shmat``, ``shmdt``, ``shmctl``) returned an error."""

    IPC_PRIVATE = 0
    IPC_CREAT = 0o1000
    IPC_RMID = 0

    _libc = None

    def __init__(self, size: int, shmid: Optional[int] = None):
        self.size = int(size)
        self.shmid: Optional[int] = None
        self.ptr: Optional[int] = None
        self.is_creator = shmid is None
        libc = self._get_libc()
        if shmid is None:
            shmid = self._create_segment(libc, self.size)
            _log("New shmid: %i (size %i)" % (shmid, self.size))
        self.shmid = int(shmid)
        ptr = libc.shmat(self.shmid, None, 0)
        if ptr is None or ptr == ctypes.c_void_p(-1).value:
            err = ctypes.get_errno()
            if self.is_creator:
                libc.shmctl(self.shmid, self.IPC_RMID, None)
            raise self.CCallException("shmat(%i) failed: %s" % (self.shmid, os.strerror(err)))
        self.ptr = ptr

    @classmethod
    def _get_libc(cls):
        if cls._libc is None:
            name = ctypes.util.find_library("c") or "libc.so.6"
            try:
                libc = ctypes.CDLL(name, use_errno=True)
                libc.shmget.argtypes = (ctypes.c_int, ctypes.c_size_t, ctypes.c_int)
                libc.shmget.restype = ctypes.c_int
                libc.shmat.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
                libc.shmat.restype = ctypes.c_void_p
                libc.shmdt.argtypes = (ctypes.c_void_p,)
                libc.shmdt.restype = ctypes.c_int
                libc.shmctl.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
                libc.shmctl.restype = ctypes.c_int
            except (OSError, AttributeError) as exc:
                raise cls.ShmException("libc shared-memory functions not available: %s" % exc) from exc
            cls._libc = libc
        return cls._libc

    @classmethod
    def _create_segment(cls, libc, size: int) -> int:
        def shmget() -> int:
            shmid_ = libc.shmget(cls.IPC_PRIVATE, size, cls.IPC_CREAT | 0o600)
            if shmid_ < 0:
                raise cls.CCallException("shmget(size=%i) failed: %s" % (size, os.strerror(ctypes.get_errno())))
            return shmid_

        shmid = shmget()
        if shmid == 0:
            # Id 0 reads as "no segment" to users of the id; take the next one and give 0 back.
            zero_id = shmid
            shmid = shmget()
            libc.shmctl(zero_id, cls.IPC_RMID, None)
        return shmid

    def remove(self) -> None:
        """Detaches the segment; the creator also marks it for removal. Calling it again does nothing."""
        if self.ptr is None:
            return
        libc = self._get_libc()
        libc.shmdt(self.ptr)
        self.ptr = None
        if self.is_creator:
            _log("Removing shmid %i (size %i)" % (self.shmid, self.size))
            libc.shmctl(self.shmid, self.IPC_RMID, None)

    @classmethod
    def is_shmget_functioning(cls) -> bool:
        """Whether a segment can be created, attached, written and removed here."""
        try:
            libc = cls._get_libc()
            shmid = libc.shmget(cls.IPC_PRIVATE, 4096, cls.IPC_CREAT | 0o600)
            if shmid < 0:
                return False
            try:
                ptr = libc.shmat(shmid, None, 0)
                if ptr is None or ptr == ctypes.c_void_p(-1).value:
                    return False
                ctypes.c_ulong.from_address(ptr).value = _SANITY_VALUE
                ok = ctypes.c_ulong.from_address(ptr).value == _SANITY_VALUE
                libc.shmdt(ptr)
                return ok
            finally:
                libc.shmctl(shmid, cls.IPC_RMID, None)
        except cls.ShmException:
            return False

    def __repr__(self):
        return "<SharedMem shmid=%r size=%r is_creator=%r>" % (self.shmid, self.size, self.is_creator)


class SharedNumpyArray:
    """A numpy array stored in a :class:`SharedMem` segment: a server (this process wrote it) or a client (it was
    unpickled; the array's ``base``).

    Numpy reads the memory through :attr:`__array_interface__`, so ``numpy.asarray(obj)`` views it.

    :param shape: the array's shape
    :param strides: None (C order) or the byte strides
    :param typestr: numpy's type string, e.g. ``"<f8"``
    :param mem: the segment; None creates a new one as a server (:meth:`create_new`)
    :param array_id: the id of the array in the segment (clients compare it to the header's)
    """

    ServerInstances: Set["SharedNumpyArray"] = set()
    ServerLock = threading.Lock()
    ServerArrayId = 0
    ExtraSpaceBytes = 4096

    class TooMuchInstances(SharedMem.ShmException):
        """This process already has ``SharedMemNumpyConfig["max_server_instances"]`` segments, all in use."""

    def __init__(
        self,
        shape: Tuple[int, ...],
        strides: Optional[Tuple[int, ...]],
        typestr: str,
        mem: Optional[SharedMem] = None,
        array_id: Optional[int] = None,
    ):
        self.is_server = mem is None
        self.shape = tuple(int(d) for d in shape)
        self.strides = None if strides is None else tuple(int(s) for s in strides)
        self.typestr = typestr
        if mem is None:
            size = max(int(SharedMemNumpyConfig["min_shared_mem_size"]), self.needed_mem_size(self.shape, typestr))
            mem = SharedMem(size=next_power_of_two(size))
            self.mem: Optional[SharedMem] = mem
            self._get_sanity_check_flag_ref().value = _SANITY_VALUE
            self._get_in_use_flag_ref().value = 0
            self.array_id = self._new_array_id()
        else:
            self.mem = mem
            if self._get_sanity_check_flag_ref().value != _SANITY_VALUE:
                raise SharedMem.ShmException("shmid %i is not a SharedNumpyArray segment" % mem.shmid)
            self.array_id = self._get_array_id_ref().value if array_id is None else int(array_id)

    # --- the header ---------------------------------------------------------------------------------------------

    def _header_word(self, index: int) -> ctypes.c_ulong:
        if self.mem is None or self.mem.ptr is None:
            raise SharedMem.ShmException("%r: the shared memory is released" % self)
        return ctypes.c_ulong.from_address(self.mem.ptr + index * ctypes.sizeof(ctypes.c_ulong))

    def _get_in_use_flag_ref(self) -> ctypes.c_ulong:
        """The segment's in-use flag (a view: setting ``.value`` writes the shared memory)."""
        return self._header_word(0)

    def _get_array_id_ref(self) -> ctypes.c_ulong:
        """The id of the array the segment currently holds."""
        return self._header_word(1)

    def _get_sanity_check_flag_ref(self) -> ctypes.c_ulong:
        """A constant (42) that marks the segment as written by this class."""
        return self._header_word(2)

    @classmethod
    def _new_array_id(cls) -> int:
        cls.ServerArrayId += 1
        return cls.ServerArrayId

    def is_in_use(self) -> bool:
        """Whether a reader holds the array (for a client: whether it still does and has not been released)."""
        if self.mem is None:
            return False
        if not self.is_server and self._get_array_id_ref().value != self.array_id:
            return False  # the server stores another array by now
        return self._get_in_use_flag_ref().value > 0

    def set_unused(self) -> None:
        """A client lets its array go: clears the in-use flag (when the segment still holds its array) and
        detaches. On a server, clears the flag."""
        if self.mem is None:
            return
        if self.is_server:
            self._get_in_use_flag_ref().value = 0
            return
        if self.mem.ptr is not None and self._get_array_id_ref().value == self.array_id:
            self._get_in_use_flag_ref().value = 0
        self.mem.remove()
        self.mem = None

    # --- the array ----------------------------------------------------------------------------------------------

    @staticmethod
    def needed_mem_size(shape: Tuple[int, ...], typestr: str) -> int:
        """Bytes of a segment that holds an array of this shape and type (header included)."""
        return SharedNumpyArray.ExtraSpaceBytes + int(numpy.prod(shape, dtype=numpy.int64)) * numpy.dtype(typestr).itemsize

    @property
    def __array_interface__(self) -> Dict[str, Any]:
        if self.mem is None or self.mem.ptr is None:
            raise SharedMem.ShmException("%r: the shared memory is released" % self)
        return {
            "shape": self.shape,
            "typestr": self.typestr,
            "strides": self.strides,
            "data": (self.mem.ptr + self.ExtraSpaceBytes, False),
            "version": 3,
        }

    def create_numpy_array(self) -> numpy.ndarray:
        """A numpy array that views the shared memory (its ``base`` is this object)."""
        return numpy.asarray(self)

    def _store(self, array: numpy.ndarray) -> None:
        self.shape = tuple(array.shape)
        fortran = array.flags["F_CONTIGUOUS"] and not array.flags["C_CONTIGUOUS"]
        self.strides = tuple(array.strides) if fortran else None  # a Fortran-ordered array keeps its order
        self.typestr = array.dtype.str
        self.array_id = self._new_array_id()
        self._get_array_id_ref().value = self.array_id
        self.create_numpy_array()[...] = array

    @classmethod
    def create_new(cls, shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]], typestr: str) -> "SharedNumpyArray":
        """A server with room for such an array: a free one of this process reused, else a new segment.

        :raises SharedNumpyArray.TooMuchInstances: all ``max_server_instances`` segments are in use
        """
        needed = cls.needed_mem_size(shape, typestr)
        with cls.ServerLock:
            for inst in cls.ServerInstances:
                if inst.mem is not None and not inst.is_in_use() and inst.mem.size >= needed:
                    inst._get_in_use_flag_ref().value = 1
                    return inst
            if len(cls.ServerInstances) >= int(SharedMemNumpyConfig["max_server_instances"]):
                raise cls.TooMuchInstances("too much instances (%i)" % len(cls.ServerInstances))
            inst = cls(shape=shape, strides=strides, typestr=typestr)
            inst._get_in_use_flag_ref().value = 1
            cls.ServerInstances.add(inst)
            return inst

    @classmethod
    def create_copy(cls, array: numpy.ndarray) -> "SharedNumpyArray":
        """A server holding a copy of ``array`` (marked in use until its reader lets it go)."""
        array = numpy.asarray(array)
        inst = cls.create_new(array.shape, None, array.dtype.str)
        inst._store(array)
        return inst

    @classmethod
    def as_shared(cls, array: numpy.ndarray) -> "SharedNumpyArray":
        """The :class:`SharedNumpyArray` for ``array``: its own base when it views one, else :meth:`create_copy`."""
        base = getattr(array, "base", None)
        if isinstance(base, SharedNumpyArray) and base.mem is not None and _views_whole(array, base):
            return base
        return cls.create_copy(array)

    def __reduce__(self):
        if self.mem is None:
            raise SharedMem.ShmException("%r: the shared memory is released" % self)
        return _attach_numpy_array, (self.mem.size, self.mem.shmid, self.shape, self.strides, self.typestr, self.array_id)

    def __del__(self):
        if self.is_server:
            return  # removed at exit
        try:
            self.set_unused()
        except Exception:  # noqa  # interpreter shutdown: nothing left to release
            pass

    def __repr__(self):
        return "<SharedNumpyArray is_server=%r shape=%r typestr=%r mem=%r array_id=%r>" % (
            self.is_server,
            self.shape,
            self.typestr,
            self.mem,
            getattr(self, "array_id", None),
        )


def _views_whole(array: numpy.ndarray, base: SharedNumpyArray) -> bool:
    return (
        tuple(array.shape) == base.shape
        and array.dtype.str == base.typestr
        and tuple(array.strides) == tuple(numpy.asarray(base).strides)
        and array.__array_interface__["data"][0] == base.__array_interface__["data"][0]
    )


def _attach_numpy_array(size, shmid, shape, strides, typestr, array_id) -> numpy.ndarray:
    """Unpickling: attach the segment and view the array."""
    client = SharedNumpyArray(shape=shape, strides=strides, typestr=typestr, mem=SharedMem(size, shmid=shmid), array_id=array_id)
    return client.create_numpy_array()


_shmget_works: Optional[bool] = None


def use_shared_mem_for_numpy_array(obj: Any) -> bool:
    """Whether :class:`returnn.util.task_system.Pickler` puts ``obj`` into shared memory: a numpy array (not of
    object dtype) of at least ``auto_pickling_min_size`` bytes, with ``SharedMemNumpyConfig["enabled"]`` and a
    working ``shmget``. An array that already views a shared segment is always passed by its segment."""
    global _shmget_works
    if not isinstance(obj, numpy.ndarray) or not SharedMemNumpyConfig["enabled"]:
        return False
    if obj.dtype.hasobject or obj.ndim == 0 or obj.size == 0:
        return False
    if isinstance(obj.base, SharedNumpyArray) and obj.base.mem is not None and _views_whole(obj, obj.base):
        return True
    if obj.nbytes < int(SharedMemNumpyConfig["auto_pickling_min_size"]):
        return False
    if _shmget_works is None:
        _shmget_works = SharedMem.is_shmget_functioning()
    return _shmget_works


def numpy_set_unused(v: Any) -> None:
    """Lets go of the shared memory behind ``v``: a numpy array whose base is a :class:`SharedNumpyArray`, or a
    dict/list/tuple of such (recursively). Anything else is left alone. The array must not be read afterwards."""
    if isinstance(v, numpy.ndarray):
        if isinstance(v.base, SharedNumpyArray):
            v.base.set_unused()
    elif isinstance(v, dict):
        for value in v.values():
            numpy_set_unused(value)
    elif isinstance(v, (list, tuple)):
        for value in v:
            numpy_set_unused(value)


def numpy_copy_and_set_unused(v: Any) -> Any:
    """A copy of ``v`` in ordinary memory (numpy arrays copied, dicts/lists/tuples rebuilt), with the shared
    memory of the original arrays let go (:func:`numpy_set_unused`)."""
    if isinstance(v, numpy.ndarray):
        if isinstance(v.base, SharedNumpyArray):
            copy = v.copy()
            v.base.set_unused()
            return copy
        return v
    if isinstance(v, dict):
        return {key: numpy_copy_and_set_unused(value) for key, value in v.items()}
    if isinstance(v, list):
        return [numpy_copy_and_set_unused(value) for value in v]
    if isinstance(v, tuple):
        return tuple(numpy_copy_and_set_unused(value) for value in v)
    return v


@atexit.register
def _remove_server_segments() -> None:
    with SharedNumpyArray.ServerLock:
        for inst in sorted(SharedNumpyArray.ServerInstances, key=lambda i: -(i.mem.shmid if i.mem else 0)):
            if inst.mem is not None:
                inst.mem.remove()
                inst.mem = None
        SharedNumpyArray.ServerInstances.clear()
