"""Files: what the bot uploads (``sendPhoto``), and ``getFile`` to fetch it again.

An upload is kept with its bytes, so that the transports can serve it
(:meth:`Files.file_content`: ``/file/bot<token>/<file_path>``) and the chat page can show it;
a file passed by URL is only recorded. A PNG's size is read from its header.
"""

from __future__ import annotations

import re
import struct

from .calls import Args, JSONValue, api_method
from .models import ApiError, FakeFile, JSONDict, Upload
from .store import ApiStore

__all__ = ["Files"]


class Files(ApiStore):
    """Uploaded and referenced files."""

    def _store_upload(self, kind: str, upload: Upload) -> FakeFile:
        if not upload.content:
            raise ApiError.bad_request("file must be non-empty")
        number = next(self._file_ids)
        width, height = _image_size(upload.content)
        fake = FakeFile(
            file_id=f"AgAC{kind[:2].upper()}{number:06d}FakeFileId",
            file_unique_id=f"AQAD{number:06d}",
            kind=kind,
            data=upload.content,
            source=upload.filename,
            width=width,
            height=height,
        )
        self.files[fake.file_id] = fake
        return fake

    def _input_file(self, args: Args, name: str) -> FakeFile:
        value = args.get(name)
        if value is None:
            upload = args.files.get(name)
            if upload is None:
                raise ApiError.bad_request(f"there is no {name} in the request")
            return self._store_upload(name, upload)
        if not isinstance(value, str):
            raise ApiError.bad_request("wrong file identifier/HTTP URL specified")
        if value.startswith("attach://"):
            upload = args.files.get(value[len("attach://") :])
            if upload is None:
                raise ApiError.bad_request("wrong file identifier/HTTP URL specified")
            return self._store_upload(name, upload)
        if value in self.files:
            return self.files[value]
        if re.match(r"^https?://\S+$", value):
            number = next(self._file_ids)
            fake = FakeFile(
                file_id=f"AgAC{name[:2].upper()}{number:06d}FakeFileId",
                file_unique_id=f"AQAD{number:06d}",
                kind=name,
                source=value,
            )
            self.files[fake.file_id] = fake
            return fake
        raise ApiError.bad_request("wrong file identifier/HTTP URL specified")

    @api_method("getFile")
    async def _get_file(self, args: Args) -> JSONValue:
        fake = self.files.get(args.text("file_id") or "")
        if fake is None:
            raise ApiError.bad_request("invalid file_id")
        data: JSONDict = {
            "file_id": fake.file_id,
            "file_unique_id": fake.file_unique_id,
            "file_path": fake.file_path,
        }
        if fake.file_size is not None:
            data["file_size"] = fake.file_size
        return data

    def file_content(self, file_path: str) -> bytes | None:
        """For transports: the bytes behind a ``getFile`` path, if the file was uploaded."""
        for fake in self.files.values():
            if fake.file_path == file_path:
                return fake.data
        return None


def _image_size(content: bytes) -> tuple[int, int]:
    """Width and height of a PNG (other formats get a plausible default)."""
    if content[:8] == b"\x89PNG\r\n\x1a\n" and len(content) >= 24:
        width, height = struct.unpack(">II", content[16:24])
        return int(width), int(height)
    return 1280, 720
