"""What the model under test is shown when it writes a report (never the reference)."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
from inspect_ai.util import materialize_media

from radiology_tasks.core.records import ReportPair
from radiology_tasks.templates import render


def generation_prompt(pair: ReportPair) -> str:
    """The text instruction for writing the report of `pair`'s study."""
    return render(
        "generate_report",
        modality=pair.modality,
        anatomy=pair.anatomy,
        language=pair.language,
        indication=pair.indication,
        findings=pair.metadata.get("findings"),
        n_images=len(pair.images),
    )


async def generation_messages(pair: ReportPair) -> list[ChatMessageUser]:
    """The user message for writing the report: the instruction, then the study's images if any.

    Image files come from the user's own data file, so they are trusted and inlined as data URIs.

    Raises:
        FileNotFoundError: an image listed for the sample does not exist.
    """
    content: list[Content] = [ContentText(text=generation_prompt(pair))]
    for image in pair.images:
        if "://" not in image and not Path(image).is_file():
            raise FileNotFoundError(f"sample '{pair.id}', field 'images': no such file {image}")
        content.append(ContentImage(image=await materialize_media(image)))
    return [ChatMessageUser(content=content)]
