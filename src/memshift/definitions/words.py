"""The six fixed definitions as the person might say them: the same sources, conditions,
windows and thresholds as the grammar's sentences (definitions/catalog.py), in everyday words.
A program request in the user's words states one of these after "Definition in effect" instead
of the grammar's sentence (MemShift App. B and D, F.4); nothing else in the request changes.
"""

from __future__ import annotations

from memshift.definitions.catalog import SIX, Definition

USER_WORDS: dict[tuple[str, int], str] = {
    ("important_contact", 1): (
        "Anyone who sat in on at least five of my one-off meetings over the last 90 days is an "
        "important contact for me; standing recurring meetings don't count toward that."
    ),
    ("important_contact", 2): (
        "Anyone who came to three or more of my one-off meetings in the last 30 days is an "
        "important contact; recurring meetings still don't count."
    ),
    ("close_friend", 1): (
        "My close friends are the people I've traded at least twelve messages with in personal "
        "chats over the past 60 days."
    ),
    ("close_friend", 2): (
        "My close friends are whoever I've swapped six or more messages with in personal chats "
        "during the last 21 days."
    ),
    ("active_project", 1): "A project is active for me as long as it still has an open task.",
    ("active_project", 2): (
        "A project counts as active if any of its tasks, whatever its status, was created or "
        "touched in the past 14 days."
    ),
    ("working_hours", 1): "My working hours are whatever my most recent working-hours note says.",
    ("working_hours", 2): (
        "Look at my one-off meetings on weekdays over the last 30 days: my working hours run from "
        "the earliest one's start to the latest one's end, widened to whole hours."
    ),
    ("vip_sender", 1): (
        "Someone is a VIP sender if I've starred four or more of their e-mails in the last 60 days."
    ),
    ("vip_sender", 2): (
        "Someone is a VIP sender if I've starred at least two of their e-mails in the last 30 days."
    ),
    ("overdue_task", 1): "A task is overdue once it's still open and its due date is behind us.",
    ("overdue_task", 2): (
        "I only call an open task overdue when its due date is more than three days in the past."
    ),
}


def user_words(d: Definition) -> str:
    """The person's own phrasing of a fixed definition."""
    found = USER_WORDS.get((d.name, d.version))
    if found is None:
        fixed = sorted({s.name for s in SIX})
        raise KeyError(
            f"no user's words for definition {d.label}: only the fixed definitions "
            f"({', '.join(fixed)}) have them"
        )
    return found
