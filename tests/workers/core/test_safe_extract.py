"""Archive extraction refuses traversal, links and decompression bombs, before writing anything."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from workers.core.data import UnsafeArchive, safe_extract


def _tar(path, entries):
    with tarfile.open(path, "w:gz") as tar:
        for name, data, kind in entries:
            info = tarfile.TarInfo(name)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_good_tar_and_zip_extract(tmp_path):
    safe_extract(_tar(tmp_path / "ok.tgz", [("data/a.csv", b"x,y\n", "file")]), tmp_path / "out1")
    assert (tmp_path / "out1/data/a.csv").read_bytes() == b"x,y\n"
    with zipfile.ZipFile(tmp_path / "ok.zip", "w") as zf:
        zf.writestr("b/c.txt", "hello")
    safe_extract(tmp_path / "ok.zip", tmp_path / "out2")
    assert (tmp_path / "out2/b/c.txt").read_text() == "hello"


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "a/../../evil.txt"])
def test_traversal_is_refused_in_tar_and_zip(tmp_path, name):
    with pytest.raises(UnsafeArchive, match="outside the target folder"):
        safe_extract(
            _tar(tmp_path / "bad.tgz", [("fine.txt", b"1", "file"), (name, b"2", "file")]),
            tmp_path / "t",
        )
    assert not (tmp_path / "t" / "fine.txt").exists(), "nothing is written when any entry is bad"
    assert not (tmp_path / "evil.txt").exists()
    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as zf:
        zf.writestr(name, "2")
    with pytest.raises(UnsafeArchive, match="outside the target folder"):
        safe_extract(tmp_path / "bad.zip", tmp_path / "z")


def test_links_are_refused(tmp_path):
    with pytest.raises(UnsafeArchive, match="link"):
        safe_extract(_tar(tmp_path / "link.tgz", [("passwd", b"", "symlink")]), tmp_path / "l")


def test_decompression_bomb_is_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros.bin", b"\0" * (20 * 1024 * 1024))  # 20 MB that compresses to ~20 KB
    assert (tmp_path / "bomb.zip").stat().st_size < 100_000
    with pytest.raises(UnsafeArchive, match="expands to"):
        safe_extract(tmp_path / "bomb.zip", tmp_path / "b", max_bytes=1024 * 1024)
    assert not (tmp_path / "b" / "zeros.bin").exists()
    with pytest.raises(UnsafeArchive, match="entries"):
        safe_extract(
            _tar(tmp_path / "many.tgz", [(f"f{i}", b"x", "file") for i in range(20)]),
            tmp_path / "m",
            max_members=10,
        )


def test_not_an_archive(tmp_path):
    (tmp_path / "x.tgz").write_bytes(b"definitely not an archive")
    with pytest.raises(UnsafeArchive, match="neither a tar nor a zip"):
        safe_extract(tmp_path / "x.tgz", tmp_path / "n")
