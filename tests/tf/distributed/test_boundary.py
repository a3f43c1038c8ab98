"""No distributed check outside the strategy implementations (issue 18): every module of the package outside
``returnn/tf/distributed/`` reaches multi-worker training only through ``returnn.tf.distributed.strategy`` (the
engine's and the updater's DistributionStrategy) or ``returnn.tf.distributed.startup`` (rnn.py's start-up and the
task gate), and reads none of the distributed config keys itself. ``.importlinter`` checks the internal modules;
this test also covers the package facade (``from returnn.tf import distributed``), which import-linter cannot forbid
without forbidding its allowed children, and config reads, which no import shows."""

import ast
import dataclasses
from pathlib import Path

import returnn
from returnn.options.distributed import DistributedKeys

PACKAGE = Path(returnn.__file__).parent
ALLOWED_MODULES = {"returnn.tf.distributed.strategy", "returnn.tf.distributed.startup"}
#: where the keys are declared (not read): the options package
EXCLUDED_DIRS = (PACKAGE / "tf" / "distributed", PACKAGE / "options")
DISTRIBUTED_KEYS = {field.name for field in dataclasses.fields(DistributedKeys)}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        if any(path.is_relative_to(d) for d in EXCLUDED_DIRS):
            continue
        yield path, ast.parse(path.read_text(), str(path))


def _imported_modules(tree):
    """(line, module) of each imported module, ``from a import b`` giving ``a.b`` (b may be a module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def _violating_import(module: str) -> bool:
    if not (module == "returnn.tf.distributed" or module.startswith("returnn.tf.distributed.")):
        return False
    return not any(module == m or module.startswith(m + ".") for m in ALLOWED_MODULES)


def _config_key_reads(tree):
    """(line, key) of each call ``x.method("key", ...)`` whose first argument is a distributed config key."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in DISTRIBUTED_KEYS):
            yield node.lineno, node.args[0].value


def test_only_strategy_and_startup_imported_outside_the_package():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
             for path, tree in _modules() for line, module in _imported_modules(tree) if _violating_import(module)]
    assert found == []


def test_no_distributed_config_key_read_outside_the_package():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {key!r}"
             for path, tree in _modules() for line, key in _config_key_reads(tree)]
    assert found == []


def test_scan_finds_what_it_forbids():
    """The two checks above see the forms they look for (the code removed from the updater and rnn.py's start-up)."""
    tree = ast.parse("from returnn.tf import distributed as dist\nimport returnn.tf.distributed.cluster\n"
                     "from returnn.tf.distributed.strategy import get_strategy\n"
                     "if config.bool('use_horovod', False) or config.bool('distributed', False): pass\n")
    assert [m for _, m in _imported_modules(tree) if _violating_import(m)] == [
        "returnn.tf.distributed", "returnn.tf.distributed.cluster"]
    assert list(_config_key_reads(tree)) == [(4, "use_horovod"), (4, "distributed")]
    assert {"use_horovod", "distributed", "horovod_scale_lr", "horovod_reduce_type"} <= DISTRIBUTED_KEYS
