"""E-mail and chat traffic: personal channels with friends, work channels, personal and work
mail (some starred), routine work mail and long newsletter digests."""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from memshift.world import filler
from memshift.world.cast import Cast, Person
from memshift.world.emit import Emitter
from memshift.world.prose import chat, dm_channel, email
from memshift.world.records import Event
from memshift.world.timeline import Timeline

RATE_BLOCK_WEEKS = 5
FRIEND_WEEKLY_RATES = np.array([2.3, 1.7, 1.2, 0.9, 0.65, 0.45, 0.3, 0.2])
NEWSLETTERS_PER_WEEK = 3


def _sorted_times(rng: np.random.Generator, timeline: Timeline, lo, hi, n: int) -> list:
    return sorted(timeline.random_time(rng, lo, hi) for _ in range(n))


def dm_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Messages in personal channels. Each friend's weekly rate drifts every few weeks, so who
    counts as a close friend changes over the year."""
    em = Emitter("dm", "dm", cast.id_salt)
    weeks = timeline.weeks()
    blocks = len(weeks) // RATE_BLOCK_WEEKS + 1
    base = rng.permutation(FRIEND_WEEKLY_RATES) * rng.lognormal(
        0.0, 0.25, size=len(FRIEND_WEEKLY_RATES)
    )
    rates = base * rng.lognormal(0.0, 0.5, size=(blocks, len(FRIEND_WEEKLY_RATES)))
    for index, (lo, hi) in enumerate(weeks):
        for f, friend in enumerate(cast.friends):
            n = int(rng.poisson(rates[index // RATE_BLOCK_WEEKS, f]))
            for t in _sorted_times(rng, timeline, lo, hi, n):
                sender = friend if rng.random() < 0.55 else cast.user
                chat(
                    em,
                    t,
                    channel=dm_channel(friend),
                    channel_kind="personal",
                    sender=sender,
                    partner=friend,
                    body=filler.small_talk(rng, friend=friend.first),
                )
    return em.events


def workchat_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    em = Emitter("workchat", "wc", cast.id_salt)
    for lo, hi in timeline.weeks():
        for t in _sorted_times(rng, timeline, lo, hi, max(1, int(rng.poisson(2.5)))):
            colleague = cast.colleagues[int(rng.integers(len(cast.colleagues)))]
            channel = cast.channels[int(rng.integers(len(cast.channels)))]
            project = cast.projects[int(rng.integers(len(cast.projects)))]
            sender = colleague if rng.random() < 0.7 else cast.user
            chat(
                em,
                t,
                channel=channel,
                channel_kind="work",
                sender=sender,
                body=filler.work_chat(rng, colleague=colleague.first, project=project),
            )
    return em.events


def mail_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Personal and work mail from the people who write to the user. Each sender has a habit of
    being starred, and who writes most drifts every few weeks; some mail is starred a day or two
    after it arrives (a second revision)."""
    em = Emitter("mail", "ml", cast.id_salt)
    senders: list[Person] = [*cast.correspondents, *cast.colleagues[:6], *cast.friends[:4]]
    star_rate = np.where(
        rng.random(len(senders)) < 0.35,
        rng.uniform(0.6, 0.95, len(senders)),
        rng.uniform(0.0, 0.12, len(senders)),
    )
    weeks = timeline.weeks()
    weights = rng.lognormal(0.0, 1.4, size=(len(weeks) // RATE_BLOCK_WEEKS + 1, len(senders)))
    friends = set(cast.friends)
    for index, (lo, hi) in enumerate(weeks):
        w = weights[index // RATE_BLOCK_WEEKS]
        for t in _sorted_times(rng, timeline, lo, hi, int(rng.poisson(3.0))):
            s = int(rng.choice(len(senders), p=w / w.sum()))
            sender = senders[s]
            if sender in friends:
                subject, body = filler.personal_mail(rng, friend=sender.first, user=cast.user.first)
                category = "personal"
            else:
                project = cast.projects[int(rng.integers(len(cast.projects)))]
                subject, body = filler.routine_mail(rng, sender_first=sender.first, project=project)
                category = "work"
            starred = bool(rng.random() < star_rate[s])
            later = not starred and rng.random() < star_rate[s] * 0.5
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
    for lo, hi in timeline.weeks():
        for t in _sorted_times(rng, timeline, lo, hi, int(rng.poisson(2.5))):
            colleague = cast.colleagues[int(rng.integers(len(cast.colleagues)))]
            project = cast.projects[int(rng.integers(len(cast.projects)))]
            subject, body = filler.routine_mail(rng, sender_first=colleague.first, project=project)
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


def newsletter_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Long digests naming organizations and cities from the same pools as the person's facts."""
    em = Emitter("newsletters", "nl", cast.id_salt)
    issue = {title: 0 for title in cast.newsletters}
    for lo, hi in timeline.weeks():
        per_week = round(NEWSLETTERS_PER_WEEK * (hi - lo).total_seconds() / (7 * 86400))
        for t in _sorted_times(rng, timeline, lo, hi, per_week):
            title = cast.newsletters[int(rng.integers(len(cast.newsletters)))]
            issue[title] += 1
            sender = Person(title.replace(" ", ""), "Digest")
            body = filler.newsletter_body(rng, n_sections=int(rng.integers(*NEWSLETTER_SECTIONS)))
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
