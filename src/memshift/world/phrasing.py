"""Templates that state one of the person's free-text attributes inside ordinary prose.

A value is never given as "my city is X": it shows up through a situation, such as a lease, an
onboarding mail, a reply to a dinner invitation or a commuter benefit. Every template can be turned
back into a regular expression, so the statements in any text can be found again exactly.

Every phrase also says who writes it to whom (the user to a friend or a colleague, the new manager
or an organization's mailbox to the user, or the user in a note) and at what hours, and it names
people only through the `{recipient}` and `{sender}` slots: a rendered greeting always names the
reader and a sign-off the writer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from memshift.world.daytime import PATTERNS
from memshift.world.pools import COMMUTES, DIETS

ATTRIBUTES: tuple[str, ...] = ("employer", "manager", "home_city", "diet", "commute")
SOURCES: tuple[str, ...] = ("email", "chat", "notes")
KINDS: tuple[str, ...] = ("announce", "mention")
WEEKDAYS: tuple[str, ...] = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)  # fmt: skip

VALUE_SLOT = "value"
RECIPIENT_SLOT = "recipient"
SENDER_SLOT = "sender"
OTHER_SLOTS: tuple[str, ...] = (RECIPIENT_SLOT, SENDER_SLOT, "weekday")

USER = "user"
MANAGER = "manager"
FRIEND = "friend"
COLLEAGUE = "colleague"
SELF = "self"


@dataclass(frozen=True)
class Office:
    """An organization's mailbox that writes to the user; it signs, if at all, with its name."""

    name: str
    mailbox: str
    category: str

    @property
    def full(self) -> str:
        return self.name

    @property
    def handle(self) -> str:
        return self.mailbox

    @property
    def email(self) -> str:
        return f"{self.mailbox}@mail.example"


OFFICES: dict[str, Office] = {
    "people": Office("People Team", "people.team", "work"),
    "security": Office("Building Security", "building.security", "work"),
    "hr_portal": Office("HR Portal", "hr.portal", "work"),
    "payroll": Office("Payroll", "payroll", "work"),
    "facilities": Office("Facilities Team", "facilities.team", "work"),
    "catering": Office("Catering Team", "catering.team", "work"),
    "events": Office("Event Registration", "event.registration", "work"),
    "lettings": Office("Lettings Office", "lettings.office", "personal"),
    "bank": Office("Account Services", "account.services", "personal"),
    "property": Office("Property Management", "property.management", "personal"),
}
SENDERS: tuple[str, ...] = (USER, MANAGER, *OFFICES)

_SLOT = re.compile(r"\{(\w+)\}")
_WORD = r"[A-Z][a-z]+"
_FIRST_NAME = r"[A-Z][A-Za-z'-]*"
_NOT_WORD_BEFORE = r"(?<![\w'-])"
_NOT_WORD_AFTER = r"(?![\w'-])"


def _alternation(values: tuple[str, ...]) -> str:
    longest_first = sorted(values, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(v) for v in longest_first) + ")"


VALUE_PATTERNS: dict[str, str] = {
    "employer": rf"{_WORD}(?: {_WORD}){{0,2}}",
    "manager": rf"{_WORD}(?: {_WORD}){{1,2}}",
    "home_city": rf"{_WORD}(?: {_WORD})?",
    "diet": _alternation(DIETS),
    "commute": _alternation(COMMUTES),
}

_SLOT_PATTERNS: dict[str, str] = {
    RECIPIENT_SLOT: _FIRST_NAME + "?",
    SENDER_SLOT: _FIRST_NAME + "?",
    "weekday": _alternation(WEEKDAYS),
}


@dataclass(frozen=True)
class Phrase:
    """One way of stating an attribute, and who says it to whom, at what hours.

    `sender` is who writes: the user, the manager being stated (who introduces themselves) or a
    key of OFFICES. `reader` is who reads it: a friend or a colleague (when the user writes), the
    user (when anyone else writes) or the user alone (a note). `hours` names the daytime pattern
    of its send time.
    """

    attribute: str
    source: str
    kind: str
    subject: str | None
    body: str
    sender: str = USER
    reader: str = FRIEND
    hours: str = "personal"

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise ValueError(f"bad phrase {self.body!r}: {'; '.join(problems)}")


def _slots(template: str) -> list[str]:
    return _SLOT.findall(template)


def _problems(phrase: Phrase) -> list[str]:
    problems = []
    if phrase.attribute not in ATTRIBUTES:
        problems.append(f"unknown attribute {phrase.attribute!r}")
    if phrase.source not in SOURCES:
        problems.append(f"unknown source {phrase.source!r}")
    if phrase.kind not in KINDS:
        problems.append(f"unknown kind {phrase.kind!r}")
    if (phrase.subject is None) != (phrase.source == "chat"):
        problems.append("chat phrases have no subject and all others have one")
    body_slots = _slots(phrase.body)
    if body_slots.count(VALUE_SLOT) != 1:
        problems.append("the body must hold {value} exactly once")
    subject_slots = _slots(phrase.subject or "")
    if VALUE_SLOT in subject_slots:
        problems.append("the subject must not hold {value}")
    unknown = set(body_slots + subject_slots) - {VALUE_SLOT, *OTHER_SLOTS}
    if unknown:
        problems.append(f"unknown slots {sorted(unknown)}")
    return problems + _voice_problems(phrase, set(body_slots + subject_slots))


_SOURCE_VOICES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "email": (SENDERS, (FRIEND, COLLEAGUE, USER)),
    "chat": ((USER,), (FRIEND,)),
    "notes": ((USER,), (SELF,)),
}


def _voice_problems(phrase: Phrase, slots: set[str]) -> list[str]:
    """Who writes to whom must fit the source, and the slots may name only people who are
    there: a note names no reader, and only the user signs by first name, in e-mail (a chat
    shows its sender, an office signs with its name)."""
    problems = []
    if phrase.hours not in PATTERNS:
        problems.append(f"unknown hours {phrase.hours!r}")
    senders, readers = _SOURCE_VOICES.get(phrase.source, ((), ()))
    if phrase.sender not in senders or phrase.reader not in readers:
        problems.append(f"a {phrase.source} phrase from {phrase.sender} to {phrase.reader}")
    if (phrase.sender == USER) == (phrase.reader == USER):
        problems.append("the user must be either the writer or the reader")
    if RECIPIENT_SLOT in slots and phrase.reader == SELF:
        problems.append("a note to self names no recipient")
    if SENDER_SLOT in slots and (phrase.source, phrase.sender) != ("email", USER):
        problems.append("only the user signs by first name, and only in e-mail")
    return problems


def _p(
    attribute: str,
    source: str,
    kind: str,
    subject: str | None,
    body: str,
    *,
    sender: str = USER,
    reader: str | None = None,
    hours: str = "personal",
) -> Phrase:
    """A phrase whose reader, unless given, is the one its source and sender imply: a chat goes
    to a friend, a note to self, the user's mail to a friend and anyone else's to the user."""
    if reader is None:
        implied = {"chat": FRIEND, "notes": SELF}
        reader = implied.get(source, FRIEND if sender == USER else USER)
    return Phrase(attribute, source, kind, subject, body, sender, reader, hours)


_EMPLOYER: tuple[Phrase, ...] = (
    _p(
        "employer", "email", "announce", "Your first day with us",
        "Hi {recipient}, we are delighted that you accepted our offer and will be joining "
        "{value}. Please bring a photo ID on {weekday} so reception can print your badge. Your "
        "laptop and accounts will be ready when you arrive.",
        sender="people", hours="office",
    ),
    _p(
        "employer", "email", "announce", "Badge ready for pickup",
        "Hello {recipient}, your building pass for {value} is ready at the front desk. It opens "
        "the main entrance and your floor, and the welcome session starts right after you "
        "collect it.",
        sender="security", hours="office",
    ),
    _p(
        "employer", "chat", "announce", None,
        "guess who signed a contract this morning! starting at {value} on {weekday} and I still "
        "can't quite believe it",
    ),
    _p(
        "employer", "chat", "announce", None,
        "{recipient}, big news: I handed in my notice and I'm off to {value}. the first week is "
        "all onboarding sessions and laptop setup, wish me luck",
    ),
    _p(
        "employer", "notes", "announce", "Onboarding checklist",
        "First week at {value}: collect badge, set up laptop, read the security handbook, book "
        "coffee chats with the new team. Payroll form due before {weekday}.",
    ),
    _p(
        "employer", "notes", "announce", "Offer accepted",
        "Signed the offer letter today. From now on the paychecks come from {value}, so update "
        "the tax details and the emergency contact form at the bank.",
    ),
    _p(
        "employer", "email", "mention", "Re: catching up",
        "Hi {recipient}, sorry for the slow reply, things at {value} have been hectic with "
        "quarterly planning. Could we move our call to {weekday}? Best, {sender}",
    ),
    _p(
        "employer", "email", "mention", "Happy to be a reference",
        "Dear {recipient}, I would be glad to act as a reference for you. Please list me with my "
        "current title at {value}, and I will keep an eye out for their call. Kind regards, "
        "{sender}",
    ),
    _p(
        "employer", "chat", "mention", None,
        "the espresso machine on our floor at {value} broke again, so I'm surviving on tea today",
        hours="office",
    ),
    _p(
        "employer", "chat", "mention", None,
        "{recipient} are you still coming to the holiday party? it's the {value} one, partners "
        "are welcome and there's a band",
    ),
    _p(
        "employer", "notes", "mention", "Expense claims",
        "File the hotel receipts through the {value} expense portal before the end of the month. "
        "Keep the conference invoice separate.",
    ),
    _p(
        "employer", "notes", "mention", "Benefits questions",
        "Dental cover through {value} starts after the probation period. Ask HR about the gym "
        "discount and the pension match.",
    ),
)  # fmt: skip

_MANAGER: tuple[Phrase, ...] = (
    _p(
        "manager", "email", "announce", "Looking forward to working together",
        "Hi {recipient}, I'm {value}, and starting this week your team reports to me. I have put "
        "a first one-on-one in our calendars for {weekday} so we can talk about your goals. Bring "
        "anything that is on your mind.",
        sender=MANAGER, hours="office",
    ),
    _p(
        "manager", "email", "announce", "Team changes",
        "Hi {recipient}, as part of the reorganisation your reporting line has changed and you "
        "now report to {value}. Your existing one-on-ones will be moved over by {weekday}, and "
        "nothing else about your role changes.",
        sender="people", hours="office",
    ),
    _p(
        "manager", "chat", "announce", None,
        "just had my first one-on-one with {value} and the new boss actually listens, which is "
        "refreshing",
        hours="office",
    ),
    _p(
        "manager", "chat", "announce", None,
        "{recipient} heads up, the reorg went through and I now report to {value}. same desk, "
        "different boss",
    ),
    _p(
        "manager", "notes", "announce", "Reorg notes",
        "Now reporting to {value}. Topics for our first one-on-one: growth plan, the on-call "
        "rota, and whether the team can hire this year.",
    ),
    _p(
        "manager", "notes", "announce", "Questions for the new lead",
        "Ask {value} about expectations for the first ninety days, how feedback works on this "
        "team, and which recurring meetings I can drop.",
    ),
    _p(
        "manager", "email", "mention", "Out of office on {weekday}",
        "Hi {recipient}, I will be away on {weekday}. For anything urgent, please escalate to "
        "{value}, who signs off on everything our team ships. Thanks, {sender}",
        reader=COLLEAGUE, hours="office",
    ),
    _p(
        "manager", "email", "mention", "Leave request pending",
        "Hi {recipient}, your leave request is waiting for approval from {value}. Once it is "
        "approved, it will appear in the team calendar automatically.",
        sender="hr_portal", hours="service",
    ),
    _p(
        "manager", "chat", "mention", None,
        "ugh, {value} wants the slides before our one-on-one, so I'm stuck in the deck for the "
        "next hour",
        hours="office",
    ),
    _p(
        "manager", "chat", "mention", None,
        "{recipient} can't do lunch today, {value} pulled our weekly check-in earlier and I "
        "still have to prep",
        hours="office",
    ),
    _p(
        "manager", "notes", "mention", "Performance review prep",
        "Send the self-review to {value} ahead of calibration. Highlight the migration work and "
        "the mentoring.",
    ),
    _p(
        "manager", "notes", "mention", "One-on-one agenda",
        "For {weekday} with {value}: conference budget, promotion timeline, feedback on the last "
        "launch.",
    ),
)  # fmt: skip

_HOME_CITY: tuple[Phrase, ...] = (
    _p(
        "home_city", "email", "announce", "Your lease is ready to sign",
        "Dear {recipient}, attached is the lease for the apartment in {value}. Once it is signed, "
        "the keys can be picked up from our office on {weekday}. Welcome to the building!",
        sender="lettings", hours="office",
    ),
    _p(
        "home_city", "email", "announce", "Address change confirmed",
        "Hello {recipient}, we have updated the address on your account. From now on, "
        "statements will be posted to your new home in {value}. If you did not request this "
        "change, please contact us.",
        sender="bank", hours="service",
    ),
    _p(
        "home_city", "chat", "announce", None,
        "boxes everywhere but we made it, first night in the new place in {value}! the neighbors "
        "already dropped off cookies",
    ),
    _p(
        "home_city", "chat", "announce", None,
        "{recipient} the movers just left and I'm officially living in {value} now. come visit "
        "once I find the kettle",
    ),
    _p(
        "home_city", "notes", "announce", "After the move",
        "To do now that I live in {value}: register at the town hall, switch the electricity "
        "contract, find a dentist, update the address with the bank.",
    ),
    _p(
        "home_city", "notes", "announce", "New apartment",
        "Landlord says the heating in the {value} flat gets serviced every autumn. Deposit paid, "
        "keys collected, and the internet installer comes on {weekday}.",
    ),
    _p(
        "home_city", "email", "mention", "Water shut-off notice",
        "Dear resident, the water supply to your building in {value} will be shut off for "
        "maintenance on {weekday} morning. We apologise for the inconvenience. Property "
        "Management",
        sender="property", hours="office",
    ),
    _p(
        "home_city", "email", "mention", "Visiting soon?",
        "Hi {recipient}, if you are ever passing through {value}, my spare room is yours. There "
        "is a great market two streets from my door on weekends. Best, {sender}",
    ),
    _p(
        "home_city", "chat", "mention", None,
        "rain all week here in {value}, I've forgotten what the sun looks like",
    ),
    _p(
        "home_city", "chat", "mention", None,
        "{recipient} when are you next in {value}? the little bakery around the corner from my "
        "place finally reopened",
    ),
    _p(
        "home_city", "notes", "mention", "Local errands",
        "Renew the library card at the central branch in {value}, drop off the recycling, and "
        "pick up the dry cleaning near home.",
    ),
    _p(
        "home_city", "notes", "mention", "Council tax",
        "The council tax bill for the flat in {value} is due at the end of the quarter. Set up a "
        "direct debit this time.",
    ),
)  # fmt: skip

_DIET: tuple[Phrase, ...] = (
    _p(
        "diet", "email", "announce", "Re: Dinner on {weekday}",
        "Hi {recipient}, count me in, thank you! A quick heads-up since the last time you cooked "
        "for me: I have changed how I eat, so please put me down as {value} these days. Happy to "
        "bring dessert. {sender}",
    ),
    _p(
        "diet", "email", "announce", "Your catering preferences were updated",
        "Hi {recipient}, thanks for updating your profile. Your meal preference is now set to "
        "{value}, and the caterers have been told for all upcoming team events.",
        sender="catering", hours="service",
    ),
    _p(
        "diet", "chat", "announce", None,
        "{recipient} heads-up for the group order: I've changed my diet, so put me down as "
        "{value} from now on",
    ),
    _p(
        "diet", "chat", "announce", None,
        "updated my dietary profile on the canteen app to {value} today, about time I made it "
        "official",
    ),
    _p(
        "diet", "notes", "announce", "Food changes",
        "Starting today: {value}. Clear out the pantry, find three easy weeknight recipes, and "
        "tell the family before the next get-together.",
    ),
    _p(
        "diet", "notes", "announce", "Dietitian follow-up",
        "The dietitian and I agreed on a new plan, and from now on it is {value} for me. Read "
        "labels at the supermarket and ask the canteen about options.",
    ),
    _p(
        "diet", "email", "mention", "Re: Team lunch",
        "Hi {recipient}, sounds great, any of those places works for me. As usual, please mark "
        "me as {value} when you send the numbers to the restaurant. Cheers, {sender}",
        reader=COLLEAGUE, hours="office",
    ),
    _p(
        "diet", "email", "mention", "Registration confirmed",
        "Hello {recipient}, thank you for registering. We have noted your meal choice as "
        "{value}; it will be printed on your badge so the catering staff can help you at lunch.",
        sender="events", hours="service",
    ),
    _p(
        "diet", "chat", "mention", None,
        "{recipient} for {weekday} can you tick {value} for me on the lunch sheet? thanks!",
        hours="office",
    ),
    _p(
        "diet", "chat", "mention", None,
        "the recipe box keeps sending the wrong stuff even though my plan is set to {value}, "
        "third time this month",
    ),
    _p(
        "diet", "notes", "mention", "Dinner party planning",
        "Six guests. The menu has to work for me too ({value}). Buy olives, flowers and "
        "sparkling water.",
    ),
    _p(
        "diet", "notes", "mention", "Grocery rules",
        "Stick to the {value} shopping list on the fridge and skip the snack aisle.",
    ),
)  # fmt: skip

_COMMUTE: tuple[Phrase, ...] = (
    _p(
        "commute", "email", "announce", "Commuter benefit approved",
        "Hi {recipient}, your commuter benefit request has been approved. You selected {value} "
        "as your main way to reach the office, and the monthly allowance will be added to your "
        "next payslip.",
        sender="payroll", hours="office",
    ),
    _p(
        "commute", "email", "announce", "Travel survey confirmation",
        "Thank you for completing the staff travel survey. Your recorded mode of travel from "
        "{weekday} onward is {value}, which helps us plan facilities at the site.",
        sender="facilities", hours="service",
    ),
    _p(
        "commute", "chat", "announce", None,
        "switched to a {value} commute this week and honestly my mornings feel so much calmer",
    ),
    _p(
        "commute", "chat", "announce", None,
        "{recipient} new routine starts {weekday}: I'm doing the {value} route to work from now "
        "on. timed it last night and it's not bad at all",
    ),
    _p(
        "commute", "notes", "announce", "New commute",
        "From now on: {value} to the office. Work out the fastest route, keep a rain jacket "
        "handy, leave ten minutes earlier.",
    ),
    _p(
        "commute", "notes", "announce", "Commute decision",
        "Tried every option for two weeks. Going with the {value} option: best on time and cost, "
        "and it fits the gym schedule.",
    ),
    _p(
        "commute", "email", "mention", "Running late",
        "Hi {recipient}, apologies, my {value} commute is slower than usual this morning, so I "
        "will join the call ten minutes late. Please start without me. {sender}",
        reader=COLLEAGUE, hours="morning",
    ),
    _p(
        "commute", "email", "mention", "Re: drinks after work",
        "Hi {recipient}, count me in, but I will have to head off early because the trip home by "
        "{value} takes a while. See you there, {sender}",
        reader=COLLEAGUE, hours="office",
    ),
    _p(
        "commute", "chat", "mention", None,
        "ugh, the {value} commute was a mess this morning, made it in just before standup",
        hours="morning",
    ),
    _p(
        "commute", "chat", "mention", None,
        "{recipient} I'll be a bit late, still on my {value} commute",
        hours="morning",
    ),
    _p(
        "commute", "notes", "mention", "Monthly budget",
        "Rent, groceries, phone, {value} commute costs, savings transfer. Cut back on takeaway.",
    ),
    _p(
        "commute", "notes", "mention", "Morning routine",
        "Alarm, stretch, coffee, then the {value} commute. Podcasts for the way in.",
    ),
)  # fmt: skip

PHRASES: tuple[Phrase, ...] = (*_EMPLOYER, *_MANAGER, *_HOME_CITY, *_DIET, *_COMMUTE)


def _check_slot_value(slot: str, text: str, pattern: str) -> None:
    if not re.fullmatch(pattern, text):
        raise ValueError(f"{slot} {text!r} does not match {pattern!r}")


def render(
    phrase: Phrase,
    value: str,
    *,
    weekday: str,
    recipient: str | None = None,
    sender: str | None = None,
) -> tuple[str | None, str]:
    """The (subject, body) of `phrase` with its slots filled; subject is None for chat.
    `recipient` and `sender` are the first names of the reader and the writer, needed when the
    phrase names them."""
    names = {RECIPIENT_SLOT: recipient, SENDER_SLOT: sender}
    _check_slot_value(VALUE_SLOT, value, VALUE_PATTERNS[phrase.attribute])
    _check_slot_value("weekday", weekday, _SLOT_PATTERNS["weekday"])
    used = set(_slots(phrase.body) + _slots(phrase.subject or ""))
    for slot, name in names.items():
        if name is None and slot in used:
            raise ValueError(f"the phrase names its {slot}, so a first name is needed")
        if name is not None:
            _check_slot_value(slot, name, _FIRST_NAME)
    fill = {VALUE_SLOT: value, "weekday": weekday, **names}
    subject = None if phrase.subject is None else phrase.subject.format(**fill)
    return subject, phrase.body.format(**fill)


def _literal_pattern(text: str) -> str:
    """Escaped literal text in which any run of whitespace matches any run of whitespace."""
    return r"\s+".join(re.escape(piece) for piece in re.split(r"\s+", text))


def _slot_pattern(slot: str, attribute: str) -> str:
    if slot == VALUE_SLOT:
        inner = f"(?P<value>{VALUE_PATTERNS[attribute]})"
    else:
        inner = f"(?:{_SLOT_PATTERNS[slot]})"
    return _NOT_WORD_BEFORE + inner + _NOT_WORD_AFTER


@functools.cache
def compile_pattern(phrase: Phrase) -> re.Pattern[str]:
    """A pattern that finds a rendered body of `phrase`; group "value" holds the stated value."""
    parts: list[str] = []
    position = 0
    for slot in _SLOT.finditer(phrase.body):
        parts.append(_literal_pattern(phrase.body[position : slot.start()]))
        parts.append(_slot_pattern(slot.group(1), phrase.attribute))
        position = slot.end()
    parts.append(_literal_pattern(phrase.body[position:]))
    return re.compile("".join(parts))


@functools.cache
def _required_piece(phrase: Phrase) -> str:
    """The longest piece of the phrase's literal text between whitespace and slots: the pattern
    matches only where it occurs verbatim, so a text without it needs no regex scan."""
    literal = _SLOT.sub(" ", phrase.body)
    return max(literal.split(), key=len, default="")


def statement_matches(phrase: Phrase, text: str) -> Iterator[re.Match[str]]:
    """Every rendered body of `phrase` in `text` (compile_pattern's matches)."""
    if _required_piece(phrase) not in text:
        return iter(())
    return compile_pattern(phrase).finditer(text)


@functools.lru_cache(maxsize=8192)
def find_statements(text: str, attribute: str | None = None) -> tuple[tuple[str, str, int], ...]:
    """Every (attribute, value, offset) stated in `text` by some phrase (of `attribute` only, when
    given), ordered by offset. The offset is where the matched statement begins in `text`.

    Cached because the rule-based reader and auditor ask about the same records many times.
    """
    found: dict[tuple[str, str, int], None] = {}
    for phrase in PHRASES:
        if attribute is not None and phrase.attribute != attribute:
            continue
        for match in statement_matches(phrase, text):
            found[(phrase.attribute, match.group(VALUE_SLOT), match.start())] = None
    return tuple(sorted(found, key=lambda statement: (statement[2], statement[0], statement[1])))
