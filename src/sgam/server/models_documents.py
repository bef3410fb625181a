"""Request and response shapes of the document routes. Field names are the memory tool's
(``file_text``, ``old_str``, ``insert_line``, ``old_path``…), so a client that speaks the
tool speaks these routes; ``expected_revision`` guards a change against a concurrent one."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, StrictInt, StrictStr

from ..documents import Document
from .models import Body

DocPath = Annotated[StrictStr, Field(description="A path under /memories, e.g. /memories/notes/mira.md")]
Expected = Annotated[StrictInt | None, Field(
    description="The revision the caller read (0: must not exist); another one is a 409")]


class CreateIn(Body):
    path: DocPath
    file_text: StrictStr
    source: Annotated[StrictStr | None, Field(description="Id of the episode the text comes from")] = None
    retention: StrictStr = "default"


class WriteIn(Body):
    path: DocPath
    file_text: StrictStr
    expected_revision: Expected = None


class StrReplaceIn(Body):
    path: DocPath
    old_str: Annotated[StrictStr, Field(description="Text that occurs exactly once in the document")]
    new_str: StrictStr
    expected_revision: Expected = None


class InsertIn(Body):
    path: DocPath
    insert_line: Annotated[StrictInt, Field(description="Insert after this line (0: at the top)")]
    insert_text: StrictStr
    expected_revision: Expected = None


class DeleteIn(Body):
    path: DocPath
    expected_revision: Expected = None


class RenameIn(Body):
    old_path: DocPath
    new_path: DocPath
    expected_revision: Expected = None


class RestoreIn(Body):
    path: DocPath
    revision: Annotated[StrictInt, Field(description="The revision whose text becomes current again")]
    expected_revision: Expected = None


class EraseIn(Body):
    path: DocPath


class DocumentSearchIn(Body):
    query: StrictStr
    limit: StrictInt = 10


class ToolIn(Body):
    """One memory-tool command (``memory_20250818``): ``command`` and its parameters."""

    command: StrictStr
    path: StrictStr | None = None
    view_range: list[Any] | None = None
    file_text: StrictStr | None = None
    old_str: StrictStr | None = None
    new_str: StrictStr | None = None
    insert_line: Any = None
    insert_text: StrictStr | None = None
    old_path: StrictStr | None = None
    new_path: StrictStr | None = None


class ToolOut(BaseModel):
    text: str = Field(description="What the model sees (document text inside it is stored data)")
    is_error: bool


class EditOut(BaseModel):
    document: Document
    line: int = Field(description="The 1-based line where the change starts")


class DeletedOut(BaseModel):
    deleted: list[str]


class MovedOut(BaseModel):
    moved: list[tuple[str, str]]


class DiffOut(BaseModel):
    diff: str = Field(description="A unified diff")


class ErasedOut(BaseModel):
    revisions_removed: int
