"""Tests for returnn.import_.import_: module names and worktree layout of the reference (observed with a local
repository), and the clear error instead of fetching code."""

import os
import shutil
import subprocess
import sys

import pytest

from returnn.import_ import ImportNotAvailableError, InvalidVersion, import_

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
DATE = "2021-03-24T10:00:00+0000"


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    root = tmp_path / "pkg"
    repo = root / "github.com" / "foo" / "bar"
    (repo / "common" / "sub").mkdir(parents=True)
    (repo / "common" / "__init__.py").write_text("X = 42\n")
    (repo / "common" / "sub" / "mod.py").write_text("Y = 7\n")
    (repo / "top.py").write_text("Z = 1\n")
    env = dict(os.environ, GIT_COMMITTER_DATE=DATE, GIT_AUTHOR_DATE=DATE, GIT_CONFIG_GLOBAL=os.devnull)
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=a", "-c", "user.email=b", "commit", "-q", "-m", "i"]):
        subprocess.run(["git", "-C", str(repo)] + cmd, check=True, env=env, capture_output=True)
    rev = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                         text=True).stdout.strip()
    monkeypatch.setenv("RETURNN_PKG_PATH", str(root))
    yield root, rev
    for name in [n for n in sys.modules if n == "returnn_import" or n.startswith("returnn_import.")]:
        del sys.modules[name]


def test_import_version_creates_the_reference_worktree(pkg):
    root, rev = pkg
    mod = import_("github.com/foo/bar", "common", f"20210324-{rev[:7]}")
    version_dir = f"v20210324100000_{rev[:12]}"
    assert mod.__name__ == f"returnn_import.github_com.foo.bar.{version_dir}.common" and mod.X == 42
    worktree = root / "github.com" / "foo" / f"bar@v20210324100000-{rev[:12]}"
    assert mod.__file__ == str(worktree / "common" / "__init__.py")
    top = import_("github.com/foo/bar", "top.py", f"2021032410-{rev[:7]}")
    assert top.__name__ == f"returnn_import.github_com.foo.bar.{version_dir}.top" and top.Z == 1
    sub = import_("github.com/foo/bar", "common/sub/mod.py", f"20210324100000-{rev[:12]}")
    assert sub.Y == 7 and sub.__file__ == str(worktree / "common" / "sub" / "mod.py")
    with pytest.raises(ModuleNotFoundError, match=f"{version_dir}.nonexist"):
        import_("github.com/foo/bar", "nonexist.py", f"20210324-{rev[:7]}")


def test_import_dev_working_tree(pkg, capsys):
    root, _ = pkg
    mod = import_("github.com/foo/bar", "common")
    assert mod.__name__ == "returnn_import.github_com.foo.bar.dev.common" and mod.X == 42
    assert "Access to development working tree: " + str(root / "github.com" / "foo" / "bar") in capsys.readouterr().out


def test_import_version_errors(pkg):
    _, rev = pkg
    with pytest.raises(InvalidVersion, match="date does not match"):
        import_("github.com/foo/bar", "common", f"20210325-{rev[:7]}")
    with pytest.raises(InvalidVersion, match="has no commit aaaaaaa"):
        import_("github.com/foo/bar", "common", "20210324-aaaaaaa")
    for bad in ("2021-" + rev[:7], "20210324-95", "20210324-xyzxyzx"):
        with pytest.raises(InvalidVersion, match="expected 'YYYYMMDD-<commit>'"):
            import_("github.com/foo/bar", "common", bad)
    with pytest.raises(ValueError, match="expected 'host/owner/name'"):
        import_("foo", "common")
    with pytest.raises(ValueError, match="expected a relative path"):
        import_("github.com/foo/bar", "/common", f"20210324-{rev[:7]}")


def test_no_fetching(pkg):
    root, rev = pkg
    with pytest.raises(ImportError, match=r"not available locally: .* Fetching code is not supported .*"
                                          r"git clone https://github.com/x/y ") as info:
        import_("github.com/x/y", "common", f"20210324-{rev[:7]}")
    assert isinstance(info.value, ImportNotAvailableError)
    with pytest.raises(ImportNotAvailableError, match="development version"):
        import_("github.com/x/y", "common")
