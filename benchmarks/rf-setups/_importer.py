"""Import hook of the rf-setups runner: modules of ``i6_experiments`` come from the git mirror of the published
repository (exported at run time into a scratch folder under /tmp, never into this project), and what the model code
imports only for sisyphus job construction (``sisyphus``, ``i6_core``, the ``i6_experiments`` helpers listed in
:data:`STUBBED`) becomes a stub module whose every attribute is a :class:`Stub`.

Runs in both interpreters (ours and the reference's): standard library only.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import types
from typing import Dict, List, Optional, Sequence

STUB_TOPS = ("sisyphus", "i6_core")

# i6_experiments modules that only construct sisyphus jobs, datasets or experiment graphs (not model code)
STUBBED = (
    "i6_experiments.users.zeyer.model_interfaces",
    "i6_experiments.users.zeyer.model_with_checkpoints",
    "i6_experiments.users.zeyer.datasets",
    "i6_experiments.users.zeyer.recog",
    "i6_experiments.users.zeyer.train_v3",
    "i6_experiments.users.zeyer.train_v4",
    "i6_experiments.users.zeyer.decoding.perplexity",
    "i6_experiments.common.setups",
    "i6_experiments.users.zeyer.experiments.exp2023_04_25_rf.train",
    "i6_experiments.users.zeyer.experiments.exp2023_04_25_rf.sis_setup",
    "i6_experiments.users.gaudino.model_interfaces",
)


class Stub:
    """Stands for anything of a stubbed module: callable, subscriptable, a base class, a decorator; attributes are
    stubs again."""

    def __init__(self, name: str = "stub"):
        self._stub_name = name

    def __repr__(self) -> str:
        return f"<stub {self._stub_name}>"

    def __getattr__(self, item: str) -> "Stub":
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        return Stub(f"{self._stub_name}.{item}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        return Stub(f"{self._stub_name}()")

    def __getitem__(self, item) -> "Stub":
        return Stub(f"{self._stub_name}[]")

    def __mro_entries__(self, bases):
        return (object,)

    def __iter__(self):
        return iter(())

    def __bool__(self) -> bool:
        return False


class StubModule(types.ModuleType):
    """A module whose missing attributes are stubs; a package (submodules are stubs too)."""

    def __init__(self, name: str):
        super().__init__(name)
        self.__path__: List[str] = []
        self.__all__: List[str] = []

    def __getattr__(self, item: str):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        return Stub(f"{self.__name__}.{item}")


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return StubModule(spec.name)

    def exec_module(self, module):
        pass


class MirrorFinder(importlib.abc.MetaPathFinder):
    """Finds ``i6_experiments.*`` in the git mirror (exported on first import into ``scratch``) and stubs
    :data:`STUB_TOPS` and :data:`STUBBED`. A helper module (not in ``strict``) whose execution fails becomes a stub;
    :attr:`notes` lists those."""

    def __init__(self, mirror: str, scratch: str, *, strict: Sequence[str] = (), extra_stubs: Sequence[str] = ()):
        self.mirror = mirror
        self.scratch = scratch
        self.strict = set(strict)
        self.stubbed = tuple(STUBBED) + tuple(extra_stubs)
        self.notes: Dict[str, str] = {}
        self._tree: Optional[set] = None

    def _files(self) -> set:
        if self._tree is None:
            out = subprocess.run(["git", "-C", self.mirror, "ls-tree", "-r", "--name-only", "HEAD"],
                                 check=True, capture_output=True, text=True).stdout
            self._tree = set(out.splitlines())
        return self._tree

    def _export(self, path: str) -> str:
        dst = os.path.join(self.scratch, "i6_experiments", path)
        if not os.path.exists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            data = subprocess.run(["git", "-C", self.mirror, "show", f"HEAD:{path}"], check=True,
                                  capture_output=True).stdout
            with open(dst, "wb") as f:
                f.write(data)
        return dst

    def _is_stubbed(self, fullname: str) -> bool:
        if fullname.split(".")[0] in STUB_TOPS:
            return True
        return any(fullname == s or fullname.startswith(s + ".") for s in self.stubbed)

    def find_spec(self, fullname, path=None, target=None):
        if self._is_stubbed(fullname):
            return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)
        if fullname != "i6_experiments" and not fullname.startswith("i6_experiments."):
            return None
        rel = "/".join(fullname.split(".")[1:])
        files = self._files()
        if rel and rel + ".py" in files:
            return importlib.util.spec_from_file_location(
                fullname, self._export(rel + ".py"), loader=_Loader(self, fullname, self._export(rel + ".py")))
        if not rel or any(f.startswith(rel + "/") for f in files):
            # a package: its __init__ is not run (they import experiment code); an empty package in the scratch dir
            pkg_dir = os.path.join(self.scratch, "i6_experiments", rel)
            os.makedirs(pkg_dir, exist_ok=True)
            spec = importlib.machinery.ModuleSpec(fullname, _EmptyPackageLoader(), is_package=True)
            spec.submodule_search_locations = [pkg_dir]
            return spec
        return None


class _EmptyPackageLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        pass


class _Loader(importlib.machinery.SourceFileLoader):
    """Source loader that turns a failing helper module into a stub (noted), and re-raises for strict modules."""

    def __init__(self, finder: MirrorFinder, fullname: str, path: str):
        super().__init__(fullname, path)
        self.finder = finder

    def exec_module(self, module):
        try:
            super().exec_module(module)
        except Exception as exc:
            if module.__name__ in self.finder.strict:
                raise
            self.finder.notes[module.__name__] = f"{type(exc).__name__}: {exc}"
            stub = StubModule(module.__name__)
            sys.modules[module.__name__] = stub
            module.__dict__.update({k: v for k, v in vars(stub).items() if k not in ("__spec__", "__loader__")})
            module.__class__ = StubModule


def install(mirror: str, scratch: str, *, strict: Sequence[str] = (), extra_stubs: Sequence[str] = ()) -> MirrorFinder:
    """Puts a :class:`MirrorFinder` first on ``sys.meta_path``; :return: it"""
    finder = MirrorFinder(mirror, scratch, strict=strict, extra_stubs=extra_stubs)
    sys.meta_path.insert(0, finder)
    return finder
