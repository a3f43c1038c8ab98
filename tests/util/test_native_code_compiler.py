"""Compiles small C/C++ code with the system compiler (the tests are skipped when there is none)."""

import shutil
import textwrap

import pytest

from returnn.util.basic import NativeCodeCompiler
from returnn.util.native_code_compiler import NativeCompileError
from returnn.util.py_ext_mod_compiler import PyExtModCompiler

needs_cxx = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("cc") is None, reason="no C/C++ compiler")


@needs_cxx
def test_ctypes_lib(tmp_path, monkeypatch):
    monkeypatch.setenv("RETURNN_CACHE_DIR", str(tmp_path))
    native = NativeCodeCompiler(base_name="test_magic", code_version=1, code=textwrap.dedent("""\
        static int magic = 13;
        extern "C" void set_magic(int i) { magic = i; }
        extern "C" int get_magic() { return magic; }
        """))
    lib = native.load_lib_ctypes()
    assert lib.get_magic() == 13
    lib.set_magic(42)
    assert lib.get_magic() == 42
    assert native.get_lib_filename().startswith(str(tmp_path))
    # same code: same file, no new build; other version: other folder
    assert NativeCodeCompiler(base_name="test_magic", code_version=1, code=native.code).get_lib_filename() == \
        native.get_lib_filename()
    assert NativeCodeCompiler(base_name="test_magic", code_version=2, code=native.code).get_lib_filename() != \
        native.get_lib_filename()


@needs_cxx
def test_compile_error(tmp_path, monkeypatch):
    monkeypatch.setenv("RETURNN_CACHE_DIR", str(tmp_path))
    with pytest.raises(NativeCompileError, match="compiler exited"):
        NativeCodeCompiler(base_name="test_broken", code="this is not C++").load_lib_ctypes()


@needs_cxx
def test_py_ext_module(tmp_path, monkeypatch):
    monkeypatch.setenv("RETURNN_CACHE_DIR", str(tmp_path))
    code = textwrap.dedent("""\
        #include <Python.h>
        static PyObject *twice(PyObject *self, PyObject *args) {
            int x;
            if (!PyArg_ParseTuple(args, "i", &x)) return NULL;
            return PyLong_FromLong(2 * x);
        }
        static PyMethodDef methods[] = {{"twice", twice, METH_VARARGS, "2x"}, {NULL, NULL, 0, NULL}};
        static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "OwnTestExtMod", NULL, -1, methods};
        PyMODINIT_FUNC PyInit_OwnTestExtMod(void) { return PyModule_Create(&mod); }
        """)
    module = PyExtModCompiler(base_name="OwnTestExtMod", code=code).load_py_module()
    assert module.twice(21) == 42
