import os
import time

import pytest

from returnn.util.file_cache import CachedFile, FileCache


@pytest.fixture
def src(tmp_path):
    folder = tmp_path / "src"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("A")
    (folder / "sub" / "b.txt").write_text("B")
    return str(folder)


def test_copy_use_release_cleanup(tmp_path, src):
    cache_dir = str(tmp_path / "cache")
    cache = FileCache(cache_directory=cache_dir)
    copy_a = cache.get_file(src + "/a.txt")
    assert copy_a == cache_dir + src + "/a.txt" and open(copy_a).read() == "A"
    config, files = cache.handle_cached_files_in_config({"files": [CachedFile(src + "/sub/b.txt")], "x": (1,)})
    assert config == {"files": [cache_dir + src + "/sub/b.txt"], "x": (1,)} and files == config["files"]
    # the source changes: the next get_file copies again
    time.sleep(0.01)
    with open(src + "/a.txt", "w") as f:
        f.write("AA")
    assert open(cache.get_file(src + "/a.txt")).read() == "AA"
    assert cache._touch_files_thread.files[copy_a] == 2
    # in use: kept fresh, and not removed by a cleanup with a tiny age limit
    os.utime(copy_a, (0, 0))
    deadline = time.time() + 30  # the touch thread runs every half second (later on a loaded machine)
    while os.stat(copy_a).st_mtime == 0 and time.time() < deadline:
        time.sleep(0.1)
    assert time.time() - os.stat(copy_a).st_mtime < 1
    cache.cleanup(older_than_days=0.5 / 86400)
    assert os.path.exists(copy_a)
    cache.release_files([copy_a, copy_a])
    cache.release_files(files)
    assert cache._touch_files_thread.files == {}
    # released and old: removed, then the empty folders (older than the lock timeout), level by level
    for fn in (copy_a, files[0]):
        os.utime(fn, (0, 0))
        os.utime(FileCache._get_info_filename(fn), (0, 0))
    cache._lock_timeout = 0.01
    for _ in range(20):
        time.sleep(0.05)
        cache.cleanup(older_than_days=1 / 86400)
        left = [os.path.join(r, n) for r, ds, fs in os.walk(cache_dir) for n in ds + fs]
        if left == [cache_dir + "/.recent_full_cleanup"]:
            break
    assert left == [cache_dir + "/.recent_full_cleanup"]


def test_missing_source(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        FileCache(cache_directory=str(tmp_path / "c")).get_file(str(tmp_path / "nope"))
