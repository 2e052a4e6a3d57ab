"""Conversation search built from settings (docs/adr/0049): the conversation index the search use case asks for
candidates, built on first use (a threads route that never searches never configures or connects OpenSearch), and
the local stack's / tests' override hook.

The composition root for conversation search (docs/adr/0018-composition-root.md): adapters are built here, never in
`offprompt.services`.
"""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.ports import ConversationIndex

# The local stack or a test installs a conversation index here; Lambda never does.
_index_override: ConversationIndex | None = None


def set_conversation_index_override(index: ConversationIndex | None) -> None:
    """Use `index` instead of the OpenSearch conversation index from now on (local stack, tests)."""
    global _index_override
    _index_override = index
    default_conversation_index.cache_clear()


@functools.cache
def default_conversation_index() -> ConversationIndex:
    """The process's conversation index: the override, else the one built from the environment (on first use)."""
    if _index_override is not None:
        return _index_override
    from offprompt.config import get_settings

    return conversation_index_from_settings(get_settings())


def conversation_index_from_settings(settings: Settings) -> ConversationIndex:
    """The OpenSearch conversation index (issue 31 item 1: `offprompt.adapters`, wired here when it lands)."""
    from offprompt.errors import DependencyUnavailable

    raise DependencyUnavailable("conversation search has no index in this deployment")
