"""A subject's export as a download, for HTTP and the inspector alike: written by
``AsyncMemory.export_subject`` to a temporary file that goes once it is sent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from ..memory.asynchronous import AsyncMemory

MEDIA_TYPE = "application/x-ndjson"


async def subject_export(memory: AsyncMemory, tenant: str, subject: str) -> FileResponse:
    folder = Path(tempfile.mkdtemp(prefix="sgam-subject-"))
    try:
        path = folder / "subject.jsonl"
        await memory.export_subject(tenant, subject, path)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in subject)[:80] or "subject"
    return FileResponse(path, media_type=MEDIA_TYPE, filename=f"{tenant}-{name}.jsonl",
                        background=BackgroundTask(shutil.rmtree, folder, True))
