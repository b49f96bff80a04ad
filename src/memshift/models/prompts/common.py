"""What the prompts of several roles say the same way: value formats, the records' heading and the
definition in effect."""

from __future__ import annotations

from memshift.models.requests import ProgramRequest, WriterRequest

VALUE_FORMATS = {
    "entity": "a JSON string with the name",
    "timezone": "a JSON string with an IANA time zone name, such as Europe/Lisbon",
    "diet": "a JSON string of one or two words",
    "commute": "a JSON string of one or two words",
    "weekday_time": "a JSON string with a weekday and a 24-hour time, such as Tuesday 10:00",
    "datetime": "a JSON string YYYY-MM-DD HH:MM",
    "date": "a JSON string YYYY-MM-DD",
    "time_range": "a JSON string HH:MM-HH:MM",
    "entity_set": "a JSON array of strings ([] if there are none)",
}

RECORDS_HEAD = "Records (each begins with its id, its revision and the time of its last change):"


def definition_line(request: WriterRequest | ProgramRequest) -> str:
    d = request.definition
    if d is None:
        return ""
    text = request.statement if isinstance(request, ProgramRequest) else d.text
    return f"Definition in effect ({d.name} v{d.version}): {text}\n"
