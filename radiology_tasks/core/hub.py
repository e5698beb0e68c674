"""Fetching a registered dataset's files from the Hugging Face hub into the local cache.

The hub is only a way to get the files: `huggingface_hub.snapshot_download` puts the layout's files (and
nothing else of the repository) into the hub cache, at the revision pinned in the layout unless
`-T revision` names another (`-T revision=main` follows the newest upload), and the folder it returns is
then read exactly like a copy the user downloaded with `huggingface-cli download --repo-type dataset`.
With `HF_HUB_OFFLINE=1` the cache alone is used.
"""

from __future__ import annotations

import os
from pathlib import Path

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import Layout


class HubError(InputError):
    """A Hugging Face dataset that cannot be fetched; the message is one actionable line."""


class HubDependencyError(HubError):
    """The optional `huggingface_hub` package is not installed."""


class HubUnavailableError(HubError):
    """The hub could not be reached, or it has no such dataset or revision."""


def hub_label(layout: Layout, revision: str | None) -> str:
    """How messages name a hub dataset at a revision."""
    return f"{layout.hub_repo} (revision {revision or 'latest'})"


def fetch(layout: Layout, revision: str | None) -> tuple[Path, str | None]:
    """Download (or find in the cache) the files of a hub layout.

    Args:
        layout: A layout with a `hub_repo`.
        revision: A commit, tag or branch; None reads the layout's pinned commit.

    Returns:
        The local folder holding the files in the repository's own paths, and the revision read.

    Raises:
        HubError: one line, when the package is missing, the hub cannot be reached or has no such revision.
    """
    assert layout.hub_repo is not None
    revision = revision or layout.hub_revision
    label = hub_label(layout, revision)
    local_copy = "download its files and pass -T data=FOLDER (see README, Real datasets)"
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import (
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError:
        raise HubDependencyError(
            f"fetching {layout.hub_repo} needs the 'huggingface_hub' package: pip install 'radiology-tasks[hf]', "
            f"or {local_copy}"
        ) from None
    try:
        folder = snapshot_download(
            layout.hub_repo,
            repo_type="dataset",
            revision=revision,
            allow_patterns=[data_file.pattern for data_file in layout.files],
        )
    except RevisionNotFoundError:
        # Checked first: the library's revision error is a kind of repository error.
        raise HubUnavailableError(
            f"{label}: the repository has no such revision; check -T revision, or {local_copy}"
        ) from None
    except RepositoryNotFoundError:
        raise HubUnavailableError(
            f"{label}: no such dataset repository on the hub, or it is private; {local_copy}"
        ) from None
    except (LocalEntryNotFoundError, OSError) as exc:
        offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}
        hint = (
            "the hub cache does not hold it (HF_HUB_OFFLINE is set)"
            if offline
            else "or set HF_HUB_OFFLINE=1 with the dataset already in the hub cache"
        )
        raise HubUnavailableError(f"could not fetch {label} ({type(exc).__name__}): {local_copy}; {hint}") from None
    return Path(folder), revision
