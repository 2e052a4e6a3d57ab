"""Export files in a local directory, or read back from a presigned manifest URL (the CLI's sinks/sources)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from offprompt.errors import InvalidInput
from offprompt.services.tenant_data.export import MANIFEST


class DirectorySink:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write_file(self, name: str, data: bytes, content_type: str) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def url(self, name: str) -> str | None:
        return None


class DirectorySource:
    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, name: str) -> bytes:
        path = (self.root / name).resolve()
        if self.root.resolve() not in path.parents:
            raise InvalidInput("export file names must stay inside the export directory")
        return path.read_bytes()


class UrlSource:
    """A manifest fetched from its (presigned) URL; each file from the URL the manifest gives it."""

    def __init__(self, manifest_url: str, timeout: float = 60.0) -> None:
        self.manifest_url = manifest_url
        self.timeout = timeout
        self._urls: dict[str, str] | None = None

    def _get(self, url: str) -> bytes:
        if not url.startswith(("https://", "http://")):
            raise InvalidInput("export URLs must be http(s)")
        with urllib.request.urlopen(url, timeout=self.timeout) as response:  # the scheme is checked above
            data: bytes = response.read()
            return data

    def read(self, name: str) -> bytes:
        if name == MANIFEST:
            data = self._get(self.manifest_url)
            self._urls = {f["name"]: f["url"] for f in json.loads(data).get("files", []) if f.get("url")}
            return data
        if self._urls is None:
            self.read(MANIFEST)
        assert self._urls is not None
        if name not in self._urls:
            raise InvalidInput(f"the manifest gives no URL for {name}")
        return self._get(self._urls[name])
