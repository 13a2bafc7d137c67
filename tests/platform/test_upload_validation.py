"""Malformed dataset uploads get a 400 naming the field and the reason; stored data is untouched."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db


def _tar(members: dict[str, bytes], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


GOOD_CSV = b"id,x,y\n1,0.5,1.5\n2,0.25,2.5\n"
GOOD_TAR = _tar({"data/a.csv": GOOD_CSV})

BAD_UPLOADS = [
    ("truncated.csv", b"id,x,y\n1,0.5,1.5\n2,0.2", "line 3 has 2 columns"),
    ("quote.csv", b'id,text\n1,"never closed\n', "not valid CSV"),
    ("latin1.csv", "id,name\n1,Müller\n".encode("latin-1"), "not UTF-8"),
    ("truncated.json", b'{"a": [1, 2,', "not valid JSON at line 1"),
    ("broken.jsonl", b'{"id": 1}\n{"id": 2\n{"id": 3}\n', "line 2 is not valid JSON"),
    ("empty.jsonl", b"\n\n", "no JSON lines"),
    ("traversal.tar.gz", _tar({"../../etc/evil.txt": b"x"}), "outside the target folder"),
    ("traversal.zip", _zip({"../evil.txt": b"x"}), "outside the target folder"),
    ("truncated.tar.gz", GOOD_TAR[: len(GOOD_TAR) // 2], "truncated or corrupt"),
    ("bomb.zip", _zip({"zeros.bin": b"\0" * 3_000_000}), "expands"),
]


@pytest.mark.parametrize(
    ("filename", "content", "reason"), BAD_UPLOADS, ids=[b[0] for b in BAD_UPLOADS]
)
def test_malformed_upload_is_refused_and_keeps_stored_data(
    api, synced, settings, filename, content, reason
):
    settings.CRUCIBLE_MAX_EXTRACT_BYTES = 1_000_000  # the bomb expands 3 MB from a few KB
    ok = api.post(
        "/api/datasets/",
        {"name": "mine", "file": SimpleUploadedFile("good.csv", GOOD_CSV)},
        format="multipart",
    )
    assert ok.status_code == 201, ok.content
    bad = api.post(
        "/api/datasets/",
        {"name": "mine", "file": SimpleUploadedFile(filename, content)},
        format="multipart",
    )
    assert bad.status_code == 400, bad.content
    errors = bad.json()["errors"]
    assert list(errors) == ["file"] and reason in errors["file"][0], errors
    versions = api.get("/api/datasets/mine/").json()["versions"]
    assert len(versions) == 1 and versions[0]["size_bytes"] == len(GOOD_CSV), (
        "the stored version is untouched"
    )


@pytest.mark.parametrize(
    ("filename", "content"),
    [
        ("good.csv", GOOD_CSV),
        ("good.tsv", b"a\tb\n1\t2\n"),
        ("good.json", b'{"a": [1, 2]}'),
        ("good.jsonl", b'{"id": 1}\n\n{"id": 2}\n'),
        ("good.tar.gz", GOOD_TAR),
        ("good.zip", _zip({"a/b.txt": b"hello"})),
        ("weights.npy", b"\x93NUMPY anything binary"),
    ],
)
def test_well_formed_uploads_are_stored(api, synced, filename, content):
    response = api.post(
        "/api/datasets/",
        {"name": "ok", "file": SimpleUploadedFile(filename, content)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()["size_bytes"] == len(content)


def test_oversized_upload_names_the_limit(api, synced, settings):
    settings.CRUCIBLE_MAX_UPLOAD_BYTES = 10
    response = api.post(
        "/api/datasets/",
        {"name": "big", "file": SimpleUploadedFile("a.csv", GOOD_CSV)},
        format="multipart",
    )
    assert response.status_code == 400 and "the limit is 10" in response.json()["errors"]["file"][0]


def test_tables_are_checked_line_by_line_across_chunks_without_reading_the_whole_file():
    """A CSV of many chunks is streamed (never `read()` whole) and a bad byte or a short row
    far past the first chunk is reported on its own line; quoted newlines and CRLF stay valid."""
    from django.core.exceptions import ValidationError
    from django.core.files.uploadedfile import TemporaryUploadedFile

    from apps.catalog.uploads import check_upload

    class NoWholeRead(TemporaryUploadedFile):  # what Django makes of an upload over 5 MB
        def __init__(self, name, data):
            super().__init__(name, "text/csv", len(data), None)
            self.file.write(data)

        def read(self, *args):
            if not args or args[0] in (None, -1):
                raise AssertionError("the whole file was read into memory")
            return super().read(*args)

    body = b"\xef\xbb\xbfid,text\r\n" + b"".join(b'%d,"a\nb"\r\n' % i for i in range(20_000))
    assert len(body) > 3 * 64 * 1024  # several of Django's chunks
    check_upload(NoWholeRead("big.csv", body))
    for tail, reason in (
        (b"20000,M\xfcller\r\n", "byte 0xfc on line"),
        (b"20000\r\n", "has 1 columns"),
    ):
        with pytest.raises(ValidationError) as err:
            check_upload(NoWholeRead("big.csv", body + tail))
        assert reason in str(err.value)
    with pytest.raises(ValidationError, match="line 3 is not valid JSON"):
        check_upload(NoWholeRead("rows.jsonl", b'{"a": 1}\n{"a": 2}\n{"a": \n'))
