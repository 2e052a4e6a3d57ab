"""Artifacts: every Griptape 1.13 artifact kind, JSON-compatible both ways. No I/O."""

from .action import ActionArtifact, ToolAction
from .base import BaseArtifact, dumps, registry
from .blob import AudioArtifact, BlobArtifact, ImageArtifact
from .list_artifact import ListArtifact
from .reference import Reference
from .scalar import BooleanArtifact, GenericArtifact, JsonArtifact, ModelArtifact
from .text import ErrorArtifact, InfoArtifact, TextArtifact
from .url import AudioUrlArtifact, ImageUrlArtifact, UrlArtifact, VideoUrlArtifact

__all__ = [
    "ActionArtifact",
    "AudioArtifact",
    "AudioUrlArtifact",
    "BaseArtifact",
    "BlobArtifact",
    "BooleanArtifact",
    "ErrorArtifact",
    "GenericArtifact",
    "ImageArtifact",
    "ImageUrlArtifact",
    "InfoArtifact",
    "JsonArtifact",
    "ListArtifact",
    "ModelArtifact",
    "Reference",
    "TextArtifact",
    "ToolAction",
    "UrlArtifact",
    "VideoUrlArtifact",
    "dumps",
    "registry",
]
