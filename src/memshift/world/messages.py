"""E-mail and chat traffic: personal channels with friends, work channels, personal and work
mail (some starred), routine work mail and long newsletter digests.

Each week's messages are drawn inside the week's block at the hours people write them
(`daytime`): work mail and work chat in office hours, personal chat and mail in the mornings,
evenings and at weekends, each newsletter at its own early hour. Every message names only its
own reader and writer: a greeting names whoever it is written to, a sign-off the sender.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from memshift.world import daytime, filler, news
from memshift.world.cast import Cast, Person
from memshift.world.emit import Emitter
from memshift.world.prose import chat, dm_channel, email
from memshift.world.records import Event
from memshift.world.timeline import Timeline

# Four friends chat at rates around the close-friend thresholds (12 messages in 60 days is 1.4 a
# week, 6 in 21 days 2.0 a week) and drift across them; four others rarely write.
FRIEND_WEEKLY_RATES = np.array([2.0, 1.7, 1.45, 1.25, 0.3, 0.2, 0.1, 0.05])
FRIEND_RATE_SPREAD = 0.1
FRIEND_RATE_DRIFT = 0.45
FRIEND_DRIFT_WEEKS = 2
NEWSLETTERS_PER_WEEK = 3
# Mail: how much arrives, how unevenly its senders share it, and how often that share drifts (a
# sender near four starred mails in 60 days moves in and out of the VIP senders).
MAILS_PER_WEEK = 4.5
MAIL_SENDER_SPREAD = 1.0
MAIL_DRIFT_WEEKS = 3
STAR_PRONE_SHARE = 0.45
COLLEAGUE_WRITES = 0.7


def _one_of(rng: np.random.Generator, people: tuple[Person, ...]) -> Person:
    return people[int(rng.integers(len(people)))]


def _other_than(rng: np.random.Generator, people: tuple[Person, ...], avoid: Person) -> Person:
    return _one_of(rng, tuple(p for p in people if p != avoid))


def dm_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Messages in personal channels. Each friend's weekly rate drifts every few weeks, so who
    counts as a close friend changes over the year."""
    em = Emitter("dm", "dm", cast.id_salt)
    weeks = timeline.weeks()
    blocks = len(weeks) // FRIEND_DRIFT_WEEKS + 1
    base = rng.permutation(FRIEND_WEEKLY_RATES) * rng.lognormal(
        0.0, FRIEND_RATE_SPREAD, size=len(FRIEND_WEEKLY_RATES)
    )
    drift = rng.lognormal(0.0, FRIEND_RATE_DRIFT, size=(blocks, len(FRIEND_WEEKLY_RATES)))
    rates = base * drift
    memory = filler.LineMemory()
    for index, (lo, hi) in enumerate(weeks):
        for f, friend in enumerate(cast.friends):
            n = int(rng.poisson(rates[index // FRIEND_DRIFT_WEEKS, f]))
            for t in daytime.draw_times(rng, lo, hi, n, daytime.PERSONAL):
                sender = friend if rng.random() < 0.55 else cast.user
                reader = cast.user if sender == friend else friend
                chat(
                    em,
                    t,
                    channel=dm_channel(friend),
                    channel_kind="personal",
                    sender=sender,
                    partner=friend,
                    body=filler.small_talk(rng, to=reader.first, memory=memory),
                )
    return em.events


def workchat_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Work channels: a colleague or the user writes, addressing or crediting another
    colleague, never the writer."""
    em = Emitter("workchat", "wc", cast.id_salt)
    memory = filler.LineMemory()
    for lo, hi in timeline.weeks():
        n = max(1, int(rng.poisson(2.5)))
        for t in daytime.draw_times(rng, lo, hi, n, daytime.WORK):
            colleague = _one_of(rng, cast.colleagues)
            channel = cast.channels[int(rng.integers(len(cast.channels)))]
            project = cast.projects[int(rng.integers(len(cast.projects)))]
            by_colleague = rng.random() < COLLEAGUE_WRITES
            sender = _other_than(rng, cast.colleagues, colleague) if by_colleague else cast.user
            chat(
                em,
                t,
                channel=channel,
                channel_kind="work",
                sender=sender,
                body=filler.work_chat(
                    rng, colleague=colleague.first, project=project, memory=memory
                ),
            )
    return em.events


def mail_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Personal and work mail from the people who write to the user. Each sender has a habit of
    being starred, and who writes most drifts every few weeks; some mail is starred a day or two
    after it arrives (a second revision). Friends write at personal hours, the others at work
    hours."""
    em = Emitter("mail", "ml", cast.id_salt)
    senders: list[Person] = [*cast.correspondents, *cast.colleagues[:6], *cast.friends[:4]]
    star_rate = np.where(
        rng.random(len(senders)) < STAR_PRONE_SHARE,
        rng.uniform(0.6, 0.95, len(senders)),
        rng.uniform(0.0, 0.12, len(senders)),
    )
    weeks = timeline.weeks()
    blocks = len(weeks) // MAIL_DRIFT_WEEKS + 1
    weights = rng.lognormal(0.0, MAIL_SENDER_SPREAD, size=(blocks, len(senders)))
    friends = set(cast.friends)
    # One memory for personal and work mail alike: both are this component's sentences.
    memory = filler.LineMemory()
    for index, (lo, hi) in enumerate(weeks):
        w = weights[index // MAIL_DRIFT_WEEKS]
        n = int(rng.poisson(MAILS_PER_WEEK))
        picks = [int(rng.choice(len(senders), p=w / w.sum())) for _ in range(n)]
        hours = [daytime.PERSONAL if senders[s] in friends else daytime.WORK for s in picks]
        times = [daytime.draw_time(rng, lo, hi, pattern) for pattern in hours]
        for t, s in sorted(zip(times, picks, strict=True)):
            sender = senders[s]
            # Decided before the body: a mail starred later is shown twice (its update renders
            # the body again), so the memory counts its sentences twice.
            starred = bool(rng.random() < star_rate[s])
            later = not starred and rng.random() < star_rate[s] * 0.5
            copies = 2 if later else 1
            if sender in friends:
                subject, body = filler.personal_mail(
                    rng, friend=sender.first, user=cast.user.first, memory=memory, copies=copies
                )
                category = "personal"
            else:
                project = cast.projects[int(rng.integers(len(cast.projects)))]
                subject, body = filler.routine_mail(
                    rng,
                    sender_first=sender.first,
                    project=project,
                    to=cast.user.first,
                    kinds=filler.DIRECT_WORK_MAILS,
                    memory=memory,
                    copies=copies,
                )
                category = "work"
            event = email(
                em,
                t,
                sender=sender,
                to=[cast.user],
                subject=subject,
                body=body,
                thread=f"thread:{sender.handle}",
                starred=starred,
                category=category,
            )
            if later:
                em.update(
                    t + timedelta(hours=int(rng.integers(2, 60))),
                    event.object_id,
                    {**event.fields, "starred": True},
                )
    return em.events


def routine_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Routine work mail: reminders, status updates and expense reports; never starred."""
    em = Emitter("routine", "rt", cast.id_salt)
    memory = filler.LineMemory()
    for lo, hi in timeline.weeks():
        for t in daytime.draw_times(rng, lo, hi, int(rng.poisson(2.5)), daytime.WORK):
            colleague = _one_of(rng, cast.colleagues)
            project = cast.projects[int(rng.integers(len(cast.projects)))]
            subject, body = filler.routine_mail(
                rng,
                sender_first=colleague.first,
                project=project,
                to=cast.user.first,
                memory=memory,
            )
            email(
                em,
                t,
                sender=colleague,
                to=[cast.user],
                subject=subject,
                body=body,
                thread=f"thread:{project.lower().replace(' ', '-')}",
                category="updates",
            )
    return em.events


NEWSLETTER_SECTIONS = (17, 23)


def _title(rng: np.random.Generator, cast: Cast) -> str:
    return cast.newsletters[int(rng.integers(len(cast.newsletters)))]


def newsletter_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Long digests naming organizations and cities from the same pools as the person's facts.
    Each newsletter goes out at its own early time of day, at most once a day."""
    em = Emitter("newsletters", "nl", cast.id_salt)
    issue = {title: 0 for title in cast.newsletters}
    send_time = {title: daytime.newsletter_time(rng) for title in cast.newsletters}
    for lo, hi in timeline.weeks():
        per_week = round(NEWSLETTERS_PER_WEEK * (hi - lo).total_seconds() / (7 * 86400))
        titles = [_title(rng, cast) for _ in range(per_week)]
        issues = sorted(
            (t, title)
            for title in sorted(set(titles))
            for t in daytime.fixed_times(rng, lo, hi, titles.count(title), send_time[title])
        )
        for t, title in issues:
            issue[title] += 1
            sender = Person(title.replace(" ", ""), "Digest")
            body = news.newsletter_body(rng, n_sections=int(rng.integers(*NEWSLETTER_SECTIONS)))
            email(
                em,
                t,
                sender=sender,
                to=[cast.user],
                subject=f"{title} - issue {issue[title]}",
                body=body,
                thread=f"newsletter:{title.lower().replace(' ', '-')}",
                category="newsletter",
            )
    return em.events
