"""Trap records: prose that mentions another value of one of the person's items without
superseding the user's own value, beside true changes, for testing what an audit accepts.

Each case holds an older record in which the user's value is stated in the project's own
phrasing (`phrasing`, through `life.state_value`), and a newer record that names a different
value of the same item. In a trap the newer record is about somebody else's life, a
hypothetical, a mailing or the past: a friend moved, a colleague joined another organization,
"if I ever moved to X", a newsletter about a city, a former job, a guest's diet, a declined
offer. In a true change the newer record states the user's new value in the project's phrasing.

A trap names the other value in plain words, so anything that reads provenance and chronology
only (the audit gate) cannot tell it from a change; the project's parsers, which read who states
what, find no statement of the other value in it. Every case draws from its own named stream,
so a case does not move when another is added.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

import numpy as np

from memshift.rng import stream
from memshift.timeutil import days
from memshift.world import daytime, phrasing, pools
from memshift.world.cast import Cast, Person, draw_cast
from memshift.world.emit import Emitter
from memshift.world.items import Item, build_items
from memshift.world.life import state_value
from memshift.world.prose import Correspondent, chat, dm_channel, email, note
from memshift.world.records import Event, LiveState, Record

REGIMES: tuple[str, ...] = (
    "friend_move",
    "hypothetical_move",
    "colleague_employer",
    "newsletter_city",
    "past_value",
    "quoted_other",
    "declined_offer",
)
TRUE_CHANGE = "true_change"
ATTRIBUTES: tuple[str, ...] = ("home_city", "employer", "diet")

CITY_NAMES: tuple[str, ...] = tuple(city for city, _ in pools.CITIES)
# Where each attribute's values come from; contact cards draw their employers and cities from
# the same pools as the person.
VALUE_POOLS: dict[str, tuple[str, ...]] = {
    "home_city": CITY_NAMES,
    "city": CITY_NAMES,
    "employer": pools.ORGANIZATIONS,
    "diet": pools.DIETS,
    "commute": pools.COMMUTES,
}

# Who writes and who reads: a person of the cast, the user's own journal, a work channel, a
# newsletter, or an organization's mailbox (a key of `phrasing.OFFICES`).
USER = phrasing.USER
FRIEND = phrasing.FRIEND
COLLEAGUE = phrasing.COLLEAGUE
SELF = phrasing.SELF
RECRUITER = "recruiter"
CHANNEL = "channel"
DIGEST = "digest"
EVENTS = "events"

_VOICES: dict[str, frozenset[tuple[str, str]]] = {
    "email": frozenset(
        {
            (USER, FRIEND),
            (USER, COLLEAGUE),
            (USER, RECRUITER),
            (FRIEND, USER),
            (COLLEAGUE, USER),
            (DIGEST, USER),
            (EVENTS, USER),
        }
    ),
    "chat": frozenset({(USER, FRIEND), (FRIEND, USER), (COLLEAGUE, CHANNEL)}),
    "notes": frozenset({(USER, SELF)}),
}
_PEOPLE = frozenset({USER, FRIEND, COLLEAGUE, RECRUITER})
_SLOTS = frozenset({"value", "home", "other", "recipient", "sender", "weekday", "title"})
_SLOT = re.compile(r"\{(\w+)\}")

FIRST_DAY = datetime(2026, 1, 5)
FIRST_SPAN_DAYS = 200
# The newer record comes between two and 45 days after the older one.
LATER_DAYS = (2, 45)

T = TypeVar("T")


@dataclass(frozen=True)
class TrapPhrase:
    """One way of naming another value of `attribute` without stating it as the user's.

    Slots: {value} the other value (exactly once, in the body), {home} the user's own value,
    {other} a third person from the `other` group, {recipient} and {sender} the reader's and the
    writer's first names, {weekday}, and {title} a newsletter's title (its subject only)."""

    regime: str
    attribute: str
    source: str
    subject: str | None
    body: str
    writer: str = USER
    reader: str = FRIEND
    hours: str = "personal"
    other: str = FRIEND

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise ValueError(f"bad trap phrase {self.body!r}: {'; '.join(problems)}")

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(_SLOT.findall(self.body + (self.subject or "")))


def _problems(phrase: TrapPhrase) -> list[str]:
    problems = []
    if phrase.regime not in REGIMES:
        problems.append(f"unknown regime {phrase.regime!r}")
    if phrase.attribute not in ATTRIBUTES:
        problems.append(f"unknown attribute {phrase.attribute!r}")
    if (phrase.subject is None) != (phrase.source == "chat"):
        problems.append("chat phrases have no subject and all others have one")
    if _SLOT.findall(phrase.body).count("value") != 1:
        problems.append("the body must hold {value} exactly once")
    if "value" in _SLOT.findall(phrase.subject or ""):
        problems.append("the subject must not hold {value}")
    if phrase.slots - _SLOTS:
        problems.append(f"unknown slots {sorted(phrase.slots - _SLOTS)}")
    if (phrase.writer, phrase.reader) not in _VOICES.get(phrase.source, frozenset()):
        problems.append(f"a {phrase.source} phrase from {phrase.writer} to {phrase.reader}")
    if "recipient" in phrase.slots and phrase.reader not in _PEOPLE:
        problems.append("only a person reader is greeted by name")
    if "sender" in phrase.slots and (phrase.source, phrase.writer) not in (
        ("email", USER),
        ("email", FRIEND),
        ("email", COLLEAGUE),
    ):
        problems.append("only a person signs by first name, and only in e-mail")
    if "title" in phrase.slots and phrase.writer != DIGEST:
        problems.append("only a newsletter has a title")
    if phrase.hours not in daytime.PATTERNS:
        problems.append(f"unknown hours {phrase.hours!r}")
    return problems


_p = TrapPhrase

_FRIEND_MOVE: tuple[TrapPhrase, ...] = (
    _p(
        "friend_move", "home_city", "chat", None,
        "{recipient} it's official, we got the flat in {value}! the movers come on {weekday} and "
        "I'm already wondering who will drag me out for walks by the river",
        writer=FRIEND, reader=USER,
    ),
    _p(
        "friend_move", "home_city", "chat", None,
        "{recipient} did you hear that {other} is moving to {value}? we have to do a proper "
        "send-off before the boxes take over",
    ),
    _p(
        "friend_move", "home_city", "email", "Send-off for {other}",
        "Hi {recipient}, {other} said yes to the new job and is moving to {value} at the end of "
        "the month. I'm booking a table for a farewell dinner on {weekday}, are you in? Best, "
        "{sender}",
    ),
    _p(
        "friend_move", "home_city", "email", "Our new address",
        "Hi {recipient}, quick one before the chaos: we have moved to {value}, so please send the "
        "wedding invitation to the new address. The spare room is already made up for you. "
        "Love, {sender}",
        writer=FRIEND, reader=USER,
    ),
    _p(
        "friend_move", "home_city", "notes", "Visit {other}",
        "{other} has settled in {value} now. Look up connections for a long weekend visit and "
        "bring back the board game that was left at my place.",
        reader=SELF,
    ),
    _p(
        "friend_move", "home_city", "chat", None,
        "so {other} is really swapping {home} for {value}. I get it, but the neighbourhood won't "
        "be the same without that terrible karaoke",
    ),
)  # fmt: skip

_HYPOTHETICAL_MOVE: tuple[TrapPhrase, ...] = (
    _p(
        "hypothetical_move", "home_city", "chat", None,
        "honestly, if I ever moved to {value} I'd spend every weekend at the flea markets. not "
        "happening any time soon, but a person can dream",
    ),
    _p(
        "hypothetical_move", "home_city", "chat", None,
        "{recipient} do you think {value} would be nice to live in? I keep reading about it, but "
        "I'm nowhere near ready to pack up my life in {home}",
    ),
    _p(
        "hypothetical_move", "home_city", "notes", "Someday, maybe",
        "Thinking about whether {value} would be nice for a few years. For: the food, the light, "
        "the galleries. Against: the rent, and starting over without friends nearby. Not "
        "deciding anything yet.",
        reader=SELF,
    ),
    _p(
        "hypothetical_move", "home_city", "email", "Re: that article you sent",
        "Hi {recipient}, thanks for the piece about life in {value}. I'd love to try it one day, "
        "but the lease just got renewed and things are good here, so I'm staying put for now. "
        "Best, {sender}",
    ),
    _p(
        "hypothetical_move", "home_city", "notes", "Daydreams",
        "If I ever relocate, {value} goes at the top of the list. Look at rents out of "
        "curiosity, nothing more, and don't mention it to anyone.",
        reader=SELF,
    ),
)  # fmt: skip

_COLLEAGUE_EMPLOYER: tuple[TrapPhrase, ...] = (
    _p(
        "colleague_employer", "employer", "chat", None,
        "Some news: after four great years I'm leaving to join {value}. My last day is "
        "{weekday}, and I'll miss this team a lot.",
        writer=COLLEAGUE, reader=CHANNEL, hours="work",
    ),
    _p(
        "colleague_employer", "employer", "email", "Staying in touch",
        "Hi {recipient}, as you may have heard, I have accepted a role at {value} and will hand "
        "over my projects before I go. It has been a real pleasure working with you. Best, "
        "{sender}",
        writer=COLLEAGUE, reader=USER, hours="work",
    ),
    _p(
        "colleague_employer", "employer", "chat", None,
        "{recipient}, {other} from my team just got poached by {value}, so guess who is "
        "inheriting half the backlog",
        other=COLLEAGUE,
    ),
    _p(
        "colleague_employer", "employer", "email", "Card for {other}",
        "Hi {recipient}, {other} starts at {value} after the holidays, so I'm passing a farewell "
        "card around the team. Could you sign it by {weekday}? Thanks, {sender}",
        reader=COLLEAGUE, hours="work", other=COLLEAGUE,
    ),
    _p(
        "colleague_employer", "employer", "notes", "Team changes",
        "{other} is leaving for {value}. Ask for a handover document, split the on-call shifts "
        "between the rest of us, and update the team page.",
        reader=SELF, other=COLLEAGUE,
    ),
    _p(
        "colleague_employer", "employer", "chat", None,
        "heads up, {other} started at {value} this week, so please send anything about the "
        "quarterly exports to me from now on",
        writer=COLLEAGUE, reader=CHANNEL, hours="work", other=COLLEAGUE,
    ),
)  # fmt: skip

_NEWSLETTER_CITY: tuple[TrapPhrase, ...] = (
    _p(
        "newsletter_city", "home_city", "email", "{title} - weekend edition",
        "This weekend in {value}: the riverside night market returns, a new ceramics exhibition "
        "opens at the old customs house, and the jazz festival announces its full line-up. "
        "Tickets for the guided walks go on sale on {weekday}.",
        writer=DIGEST, reader=USER,
    ),
    _p(
        "newsletter_city", "home_city", "email", "Your place at the summit",
        "Hello {recipient}, thank you for registering for the product summit in {value}. Your "
        "ticket is attached, and the venue map and the hotel discount codes will follow closer "
        "to the date.",
        writer=EVENTS, reader=USER, hours="service",
    ),
    _p(
        "newsletter_city", "home_city", "email", "{title} - travel picks",
        "Five ideas for a short break in {value}: cycle along the waterfront, try the new food "
        "hall, catch an open-air film, browse the book stalls by the bridge and take the ferry "
        "at sunset.",
        writer=DIGEST, reader=USER,
    ),
    _p(
        "newsletter_city", "home_city", "email", "Meetup reminder",
        "Hello {recipient}, a reminder that the community meetup in {value} opens with a welcome "
        "coffee. Keep your ticket on your phone; the badge desk opens an hour before the first "
        "talk.",
        writer=EVENTS, reader=USER, hours="service",
    ),
    _p(
        "newsletter_city", "home_city", "email", "{title} - fare alert",
        "Fares to {value} have dropped: return trips from most airports now start well below "
        "last year's prices, and several hotels near the old town include breakfast.",
        writer=DIGEST, reader=USER,
    ),
)  # fmt: skip

_PAST_VALUE: tuple[TrapPhrase, ...] = (
    _p(
        "past_value", "home_city", "notes", "Old photos",
        "Found the box of photos from the years I lived in {value}. Strange how long ago that "
        "feels now. Scan the best ones and send a few to the old neighbours.",
        reader=SELF,
    ),
    _p(
        "past_value", "home_city", "chat", None,
        "{recipient} I miss the bakeries back in {value} so much, nothing here comes close. "
        "those were good years",
    ),
    _p(
        "past_value", "home_city", "email", "Re: remember this?",
        "Hi {recipient}, your photo took me straight back to our student flat in {value}. I "
        "still can't believe we survived two winters with that boiler. Best, {sender}",
    ),
    _p(
        "past_value", "employer", "chat", None,
        "ran into my old manager from {value} at the conference today, strange to think I left "
        "that place years ago",
    ),
    _p(
        "past_value", "employer", "notes", "CV update",
        "Move the years at {value} under earlier experience. Keep the bullet about the data "
        "migration, cut the rest, and ask for a fresh reference.",
        reader=SELF,
    ),
    _p(
        "past_value", "employer", "email", "Re: reunion",
        "Hi {recipient}, count me in for the reunion of the old {value} crowd. It has been ages "
        "since any of us worked there, so it will be good to catch up. Best, {sender}",
    ),
)  # fmt: skip

_QUOTED_OTHER: tuple[TrapPhrase, ...] = (
    _p(
        "quoted_other", "diet", "chat", None,
        "{recipient} for the picnic, please put {other} down as {value}, I'll make sure there's "
        "plenty for everyone else",
    ),
    _p(
        "quoted_other", "diet", "email", "Re: Offsite catering",
        "Hi {recipient}, one update for the caterers: {other} asked to be listed as {value} for "
        "the offsite. Nothing changes for the rest of the group. Thanks, {sender}",
        reader=COLLEAGUE, hours="work", other=COLLEAGUE,
    ),
    _p(
        "quoted_other", "diet", "notes", "Dinner with {other}",
        "Dinner with {other} on {weekday}. Guest diet: {value}. Plan one main dish that works "
        "for the whole table and pick up fresh bread.",
        reader=SELF,
    ),
    _p(
        "quoted_other", "diet", "email", "Re: Dinner at yours",
        "Hi {recipient}, thanks so much for the invitation! One thing: my partner's diet is "
        "{value} these days, so anything along those lines would be perfect. See you soon, "
        "{sender}",
        writer=FRIEND, reader=USER,
    ),
    _p(
        "quoted_other", "diet", "chat", None,
        "cooking for {other} tonight, who switched to {value} a while ago, wish me luck with the "
        "menu",
    ),
)  # fmt: skip

_DECLINED_OFFER: tuple[TrapPhrase, ...] = (
    _p(
        "declined_offer", "employer", "email", "Re: Your offer",
        "Dear {recipient}, thank you for the offer to join {value} and for the time your team "
        "spent with me. After a lot of thought I have decided to stay in my current role. I "
        "hope our paths cross again. Kind regards, {sender}",
        reader=RECRUITER, hours="work",
    ),
    _p(
        "declined_offer", "employer", "chat", None,
        "turned down {value} this afternoon. the salary was tempting, but the team I have now "
        "is too good to leave",
    ),
    _p(
        "declined_offer", "employer", "notes", "Offer decision",
        "Said no to {value}. Reasons: the role was narrower than advertised and I like where I "
        "am. Send a polite note to the recruiter and close the tab.",
        reader=SELF,
    ),
    _p(
        "declined_offer", "employer", "chat", None,
        "{recipient} the {value} people called again with a better number and I still said no. "
        "staying right where I am",
    ),
    _p(
        "declined_offer", "employer", "email", "Re: big decision?",
        "Hi {recipient}, in the end I declined {value}. It was flattering to be asked, but I'm "
        "not ready to leave my team. Drinks on {weekday} to celebrate not changing desks? Best, "
        "{sender}",
    ),
)  # fmt: skip

TRAP_PHRASES: tuple[TrapPhrase, ...] = (
    *_FRIEND_MOVE,
    *_HYPOTHETICAL_MOVE,
    *_COLLEAGUE_EMPLOYER,
    *_NEWSLETTER_CITY,
    *_PAST_VALUE,
    *_QUOTED_OTHER,
    *_DECLINED_OFFER,
)


@dataclass(frozen=True)
class TrapCase:
    """An item, the value stored for it, the older record that states that value and a newer
    record that names `new_value`: a trap (regime one of REGIMES) or a true change."""

    regime: str
    item: Item
    stored: str
    new_value: str
    old: Record
    new: Record

    @property
    def is_trap(self) -> bool:
        return self.regime != TRUE_CHANGE


def trap_cases(seed: int, per_regime: int) -> list[TrapCase]:
    """`per_regime` cases of every regime in REGIMES order, then as many true changes (their
    attributes in ATTRIBUTES order, round robin). The same seed gives the same cases, byte for
    byte."""
    if per_regime < 0:
        raise ValueError(f"per_regime must be non-negative, got {per_regime}")
    cast = draw_cast(stream(seed, "traps/cast"))
    items = {item.item_id: item for item in build_items(cast)}
    return [
        _case(seed, cast, items, regime, k)
        for regime in (*REGIMES, TRUE_CHANGE)
        for k in range(per_regime)
    ]


def _case(seed: int, cast: Cast, items: dict[str, Item], regime: str, k: int) -> TrapCase:
    rng = stream(seed, f"traps/{regime}/{k}")
    em = Emitter("traps", f"traps-{regime}-{k}", cast.id_salt)
    phrase = _one(rng, phrases_of(regime)) if regime != TRUE_CHANGE else None
    attribute = phrase.attribute if phrase else ATTRIBUTES[k % len(ATTRIBUTES)]
    stored, new_value = _two_values(rng, VALUE_POOLS[attribute])
    said = FIRST_DAY + timedelta(minutes=int(rng.integers(FIRST_SPAN_DAYS * 24 * 60)))
    kind = _one(rng, phrasing.KINDS)
    old = state_value(em, rng, cast, said, attribute, stored, kind, _one(rng, cast.friends))
    window = (old.time + days(LATER_DAYS[0]), old.time + days(LATER_DAYS[1]))
    if phrase is None:
        later = window[0] + timedelta(minutes=int(rng.integers(_minutes(*window))))
        friend = _one(rng, cast.friends)
        new = state_value(em, rng, cast, later, attribute, new_value, "announce", friend)
    else:
        new = write_trap(em, rng, cast, phrase, new_value, stored, window)
    return TrapCase(regime, items[f"person.{attribute}"], stored, new_value, _live(old), _live(new))


def phrases_of(regime: str) -> tuple[TrapPhrase, ...]:
    return tuple(p for p in TRAP_PHRASES if p.regime == regime)


def _one(rng: np.random.Generator, options: tuple[T, ...]) -> T:
    return options[int(rng.integers(len(options)))]


def _two_values(rng: np.random.Generator, pool: tuple[str, ...]) -> tuple[str, str]:
    first, second = rng.choice(len(pool), size=2, replace=False)
    return pool[int(first)], pool[int(second)]


def _minutes(lo: datetime, hi: datetime) -> int:
    return int((hi - lo).total_seconds() // 60)


def _live(event: Event) -> Record:
    """The record an inserted event leaves behind."""
    state = LiveState()
    state.apply(event)
    return state.records[event.object_id]


@dataclass(frozen=True)
class Parties:
    """Who a trap record names: its writer and reader, and the third person it talks about."""

    writer: Correspondent
    reader: Person | None
    other: Person


def write_trap(
    em: Emitter,
    rng: np.random.Generator,
    cast: Cast,
    phrase: TrapPhrase,
    value: str,
    home: str,
    window: tuple[datetime, datetime],
) -> Event:
    """The trap record of `phrase` naming `value` (the user's own being `home`), sent inside
    `window` at the hours of its situation."""
    title = _one(rng, cast.newsletters)
    people = _parties(rng, cast, phrase, title)
    t = _send_time(rng, phrase, window)
    fill = {
        "value": value,
        "home": home,
        "other": people.other.first,
        "recipient": people.reader.first if people.reader is not None else "",
        "sender": people.writer.first if isinstance(people.writer, Person) else "",
        "weekday": daytime.coming_workday(t),
        "title": title,
    }
    subject = phrase.subject.format(**fill) if phrase.subject is not None else None
    body = phrase.body.format(**fill)
    if phrase.source == "notes":
        return note(em, t, title=subject or "", body=body, notebook="personal", topic="journal")
    if phrase.source == "chat":
        return _chat(em, rng, cast, t, people, body)
    return _email(em, t, cast, phrase, people, subject or "", body, title)


def _parties(rng: np.random.Generator, cast: Cast, phrase: TrapPhrase, title: str) -> Parties:
    friend = _one(rng, cast.friends)
    colleague = _one(rng, cast.colleagues)
    named = {
        USER: cast.user,
        FRIEND: friend,
        COLLEAGUE: colleague,
        RECRUITER: _one(rng, cast.correspondents),
    }
    writer: Correspondent = named.get(phrase.writer) or _mailbox(phrase.writer, title)
    reader = named.get(phrase.reader)
    group = cast.friends if phrase.other == FRIEND else cast.colleagues
    other = _one(rng, tuple(p for p in group if p not in (friend, colleague)))
    return Parties(writer, reader, other)


def _mailbox(writer: str, title: str) -> Correspondent:
    if writer == DIGEST:
        # a newsletter writes as the generated worlds' digests do (messages.newsletter_events)
        return Person(title.replace(" ", ""), "Digest")
    return phrasing.OFFICES[writer]


def _send_time(
    rng: np.random.Generator, phrase: TrapPhrase, window: tuple[datetime, datetime]
) -> datetime:
    if phrase.writer == DIGEST:
        # a newsletter goes out at one early time of day
        at = daytime.newsletter_time(rng)
        return daytime.fixed_times(rng, *window, 1, at)[0]
    return daytime.draw_time(rng, *window, daytime.PATTERNS[phrase.hours])


def _chat(
    em: Emitter,
    rng: np.random.Generator,
    cast: Cast,
    t: datetime,
    people: Parties,
    body: str,
) -> Event:
    if people.reader is None:
        channel = _one(rng, cast.channels)
        writer = people.writer
        if not isinstance(writer, Person):
            raise ValueError("a work channel message is written by a person")
        return chat(em, t, channel=channel, channel_kind="work", sender=writer, body=body)
    friend = people.reader if people.writer == cast.user else people.writer
    if not isinstance(friend, Person) or not isinstance(people.writer, Person):
        raise ValueError("a direct message goes between the user and a friend")
    return chat(
        em,
        t,
        channel=dm_channel(friend),
        channel_kind="personal",
        sender=people.writer,
        partner=friend,
        body=body,
    )


def _email(
    em: Emitter,
    t: datetime,
    cast: Cast,
    phrase: TrapPhrase,
    people: Parties,
    subject: str,
    body: str,
    title: str,
) -> Event:
    if people.reader is None:
        raise ValueError("an e-mail needs a reader")
    counterpart = people.reader if people.writer == cast.user else people.writer
    thread = f"thread:{counterpart.handle}"
    category = "work" if phrase.hours == "work" else "personal"
    if phrase.writer == DIGEST:
        thread = f"newsletter:{title.lower().replace(' ', '-')}"
        category = "newsletter"
    elif phrase.writer in phrasing.OFFICES:
        category = phrasing.OFFICES[phrase.writer].category
    return email(
        em,
        t,
        sender=people.writer,
        to=[people.reader],
        subject=subject,
        body=body,
        thread=thread,
        category=category,
    )
