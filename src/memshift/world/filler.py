"""Background text that fills a world without stating any gold fact.

Newsletters are long digests full of organization and city names: they are the distractors a
memory has to read past. The other renderers write short everyday messages and notes that name no
organization, city, diet, way of commuting, time of day, weekday or month. Every renderer draws its
randomness in one or a few vectorized calls, so a long newsletter renders in about a millisecond.
"""

from __future__ import annotations

import itertools
import string
from typing import Any

import numpy as np

from memshift.tokens import count_tokens
from memshift.world.pools import CITIES, ORGANIZATIONS

SECTION_MIN_TOKENS = 600
SECTION_MAX_TOKENS = 800
PARAGRAPH_SENTENCES = (4, 7)
SECTION_PARAGRAPHS = (2, 4)
SECTION_SEPARATOR = "\n\n\n"
PARAGRAPH_SEPARATOR = "\n\n"

NEWS_SLOTS: tuple[str, ...] = ("org", "org2", "city", "city2", "num", "pct")

HEADLINES: tuple[str, ...] = (
    "{org} opens a new regional office in {city}",
    "{city} council backs a bid from {org} to redevelop the old docks",
    "{org} reports a stronger quarter as demand in {city} recovers",
    "Festival season brings record crowds to {city}, with {org} as lead sponsor",
    "{org} and the {city} tourism board launch a joint campaign",
    "Housing costs in {city} weigh on hiring plans at {org}",
    "{org} pilots a delivery hub on the edge of {city}",
    "A quieter year for galleries in {city}, but {org} keeps funding new work",
    "{org} signs a long lease on a landmark tower in {city}",
    "Airport expansion in {city} draws interest from {org}",
    "Inside the startup scene of {city}: why {org} is hiring again",
    "{org} cuts prices as competition in {city} heats up",
    "Restaurants in {city} report a busy season, {org} survey finds",
    "{org} moves its research team closer to the universities of {city}",
    "Water and energy upgrades in {city} open doors for {org}",
    "{org} brings its annual conference back to {city}",
    "The housing market in {city} cools, says a new study from {org}",
    "Museum reopening in {city} gets a boost from {org}",
)

SENTENCES: tuple[str, ...] = (
    "Analysts at {org} expect revenue to grow by {pct} over the coming year, helped by steady "
    "demand from mid-sized customers in {city} and a slow but visible recovery in export orders.",
    "The company said it would add roughly {num} jobs in {city} once the new site is fully "
    "staffed, although the hiring will be spread out over several phases and depends on "
    "permits that are still pending.",
    "Shares in {org} rose {pct} in early trading after the firm confirmed a supply agreement "
    "with {org2} that had been rumored for weeks, easing worries about its order book.",
    "Hotel occupancy in {city} reached {pct} during the festival period, the highest level since "
    "the local tourism office began publishing regular figures, and many guesthouses were fully "
    "booked.",
    "Officials in {city2} were more cautious, noting that visitor numbers there remain about "
    "{pct} below their previous peak despite a busy summer and a string of new attractions.",
    "A survey of {num} small business owners around {city} found that rent remains the biggest "
    "worry, well ahead of energy bills, staffing shortages and the rising cost of borrowing.",
    "{org} declined to comment on reports that it is in talks to acquire {org2}, but people "
    "familiar with the matter described the discussions as advanced and said a deal could "
    "follow soon.",
    "The new tram extension in {city} is expected to carry around {num} passengers a day, "
    "according to estimates published by the regional transit authority, which also promised "
    "quieter and more frequent service.",
    "Critics argue that the project has already cost {pct} more than planned, and that "
    "residents on the outskirts of {city} will see few of the benefits for many years to come.",
    "Meanwhile, the museum district in {city} is preparing for a major retrospective of postwar "
    "photography, with more than {num} prints on loan from private collections across the "
    "continent.",
    "Ticket sales for the opening weekend were up {pct} compared with the previous exhibition, "
    "organizers said, and several of the guided tours sold out within hours of going on sale.",
    "The partnership between {org} and {org2} is meant to cut delivery times for customers in "
    "{city} and {city2}, where warehouse space has become scarce and expensive.",
    "Landlords in {city} have raised average office rents by {pct}, pushing some younger firms "
    "toward shared workspaces on the edge of town and others toward fully remote setups.",
    "The airline said it would add {num} flights a season between {city} and {city2}, citing "
    "strong demand from both business travelers and families visiting relatives over the "
    "holidays.",
    "Economists caution that the figures are volatile and that a single large contract, such as "
    "the one recently won by {org}, can swing the regional numbers considerably from one "
    "quarter to the next.",
    "Chefs in {city} say that rising ingredient prices have forced them to shorten their menus, "
    "with some dishes costing {pct} more to prepare than a year ago.",
    "The city council in {city2} approved a plan to plant {num} trees along its main avenues, a "
    "move supported by several large employers including {org}, which offered to cover part of "
    "the cost.",
    "Engineers at {org} have spent the past several quarters rebuilding the payment platform, a "
    "project that insiders say consumed nearly {pct} of the technology budget.",
    "Visitors to {city} this season will find a renovated waterfront, a dozen new cafes and a "
    "public library that stays open late into the evening, all within a short stroll of the old "
    "market square.",
    "According to figures released by {org}, online orders in {city} grew {pct} faster than the "
    "national average, driven largely by groceries and household goods.",
    "The concert hall in {city2} announced a season of {num} performances, mixing well-known "
    "symphonies with commissions from younger composers and a series of free concerts for "
    "schools.",
    "Investors welcomed the news, although some warned that {org} still depends heavily on a "
    "handful of large customers in {city} and would struggle if any of them walked away.",
    "A spokesperson for {org2} said the company remains committed to the region and will keep "
    "its existing staff of about {num} people in {city2}, at least until the review is complete.",
    "Energy prices eased by {pct} over the quarter, giving manufacturers around {city} some "
    "relief after a difficult stretch of rising costs and thin order books.",
    "The book fair in {city} drew publishers from across the continent, and organizers estimate "
    "that {num} titles changed hands in licensing deals, many of them translations of debut "
    "novels.",
    "Smaller rivals of {org} have started to compete on service rather than on price, a shift "
    "that could squeeze margins across the sector in {city} and beyond.",
    "In a statement, the board of {org} said the new chief executive would focus on efficiency "
    "and on growing the customer base in {city2}, where the firm has lost ground to newer "
    "competitors.",
    "House prices in {city} fell {pct} over the past year, the first annual decline in a long "
    "while, as higher borrowing costs kept buyers cautious.",
    "The harbor authority in {city2} expects container traffic to rise by {pct} once the "
    "deepened channel opens to larger ships, a project that has been delayed twice by "
    "environmental reviews.",
    "A new film festival in {city} will screen {num} features and shorts, with a special focus "
    "on documentaries about climate, water and the future of farming in dry regions.",
    "Startups in {city} raised {pct} more venture funding than in the previous period, with much "
    "of the money flowing into health care, logistics and tools for small retailers.",
    "{org} and {org2} are jointly funding an apprenticeship program for {num} young people in "
    "{city}, aimed at skilled roles in maintenance, electrical work and engineering.",
    "Footfall in the shopping streets of {city} recovered to {pct} of its former level, though "
    "shop owners say that customers are spending more carefully and comparing prices online.",
    "The weather service warned of strong winds along the coast near {city2}, and several "
    "outdoor events were postponed as a precaution while crews secured stages and market stalls.",
    "Industry groups say the new rules could add {pct} to compliance costs, a burden that firms "
    "such as {org} are better placed to absorb than their small suppliers.",
    "The university in {city} signed a research agreement with {org} that will support {num} "
    "doctoral positions over several years, with most of the work focused on materials science.",
    "Tourism officials in {city2} credit a series of night markets and street festivals for "
    "attracting {num} extra visitors during the quieter part of the year, when many hotels "
    "used to close.",
    "The latest results from {org} pointed to a {pct} improvement in operating margin, largely "
    "thanks to lower freight costs and a leaner head office.",
    "Commercial landlords in {city2} are offering longer rent-free periods to attract tenants, "
    "and brokers report that {org} negotiated one of the largest such deals on record.",
    "Observers note that the gap in average wages between {city} and {city2} has narrowed to "
    "about {pct}, making relocation decisions for growing firms harder to predict.",
    "Sales of electric vans rose {pct} in the region around {city}, and {org} said it plans to "
    "convert most of its delivery fleet within the next few years.",
    "The restaurant guide published by {org2} lists {num} new openings in {city}, from small "
    "neighborhood bakeries to elaborate tasting-menu dining rooms with long waiting lists.",
)


def _numbers() -> tuple[str, ...]:
    small = range(12, 1000, 7)
    large = range(1_050, 9_999, 89)
    return tuple(f"{n:,}" for n in (*small, *large))


def _percentages() -> tuple[str, ...]:
    return tuple(f"{tenths / 10:.1f}%" for tenths in range(5, 400, 3))


NUMBERS: tuple[str, ...] = _numbers()
PERCENTAGES: tuple[str, ...] = _percentages()
_CITY_NAMES: tuple[str, ...] = tuple(city for city, _ in CITIES)


def _slot_counts(template: str) -> list[int]:
    names = [field for _, field, _, _ in string.Formatter().parse(template) if field]
    return [names.count(slot) for slot in NEWS_SLOTS]


def _literal_tokens(template: str) -> int:
    return count_tokens(template.format(**dict.fromkeys(NEWS_SLOTS, " ")))


def _template_table(templates: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per template: literal token count, and how often each slot of NEWS_SLOTS occurs."""
    literal = np.array([_literal_tokens(t) for t in templates], dtype=np.int64)
    slots = np.array([_slot_counts(t) for t in templates], dtype=np.int64)
    return literal, slots


def _value_tokens(values: tuple[str, ...]) -> np.ndarray:
    return np.array([count_tokens(v) for v in values], dtype=np.int64)


_HEADLINE_LITERAL, _HEADLINE_SLOTS = _template_table(HEADLINES)
_SENTENCE_LITERAL, _SENTENCE_SLOTS = _template_table(SENTENCES)
_SLOT_POOLS: tuple[tuple[str, ...], ...] = (
    ORGANIZATIONS, ORGANIZATIONS, _CITY_NAMES, _CITY_NAMES, NUMBERS, PERCENTAGES,
)  # fmt: skip
_SLOT_VALUE_TOKENS: tuple[np.ndarray, ...] = tuple(_value_tokens(p) for p in _SLOT_POOLS)
_LONGEST_VALUES = np.array([int(tokens.max()) for tokens in _SLOT_VALUE_TOKENS])
_SHORTEST_VALUES = np.array([int(tokens.min()) for tokens in _SLOT_VALUE_TOKENS])
_MAX_SENTENCE_TOKENS = int((_SENTENCE_LITERAL + _SENTENCE_SLOTS @ _LONGEST_VALUES).max())
_MIN_SENTENCE_TOKENS = int((_SENTENCE_LITERAL + _SENTENCE_SLOTS @ _SHORTEST_VALUES).min())
_TARGET_HIGH = SECTION_MAX_TOKENS - _MAX_SENTENCE_TOKENS
_CANDIDATES = -(-SECTION_MAX_TOKENS // _MIN_SENTENCE_TOKENS) + 1


def _distinct_pair(rng: np.random.Generator, n: int, shape: tuple[int, ...]) -> np.ndarray:
    """Index pairs (first, second) into a pool of n, with second != first, stacked on axis 0."""
    first = rng.integers(0, n, size=shape)
    second = (first + rng.integers(1, n, size=shape)) % n
    return np.stack([first, second])


def _slot_indices(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Indices into each pool of _SLOT_POOLS, shape (len(NEWS_SLOTS), *shape)."""
    orgs = _distinct_pair(rng, len(ORGANIZATIONS), shape)
    cities = _distinct_pair(rng, len(_CITY_NAMES), shape)
    numbers = rng.integers(0, len(NUMBERS), size=shape)
    percentages = rng.integers(0, len(PERCENTAGES), size=shape)
    return np.concatenate([orgs, cities, numbers[None], percentages[None]])


def _token_counts(literal: np.ndarray, slots: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Tokens of each rendered template; `values` holds the slot indices per template."""
    total = literal.copy()
    for k, tokens in enumerate(_SLOT_VALUE_TOKENS):
        total += slots[..., k] * tokens[values[k]]
    return total


def _positional(template: str) -> str:
    """The template with its named slots turned into positions in NEWS_SLOTS order."""
    return template.format(**{slot: f"{{{k}}}" for k, slot in enumerate(NEWS_SLOTS)})


_POSITIONAL_HEADLINES: tuple[str, ...] = tuple(_positional(t) for t in HEADLINES)
_POSITIONAL_SENTENCES: tuple[str, ...] = tuple(_positional(t) for t in SENTENCES)
_SLOT_ARRAYS: tuple[np.ndarray, ...] = tuple(np.array(p, dtype=object) for p in _SLOT_POOLS)


def _slot_strings(values: np.ndarray) -> list[Any]:
    """Nested lists of slot strings: `values` of shape (len(NEWS_SLOTS), *shape) becomes lists
    of shape (*shape, len(NEWS_SLOTS))."""
    columns = [pool[index] for pool, index in zip(_SLOT_ARRAYS, values, strict=True)]
    return np.stack(columns, axis=-1).tolist()


def _paragraph_sizes(n_sentences: int, u_count: float, u_offset: float) -> list[int]:
    """Split n sentences into 2 to 4 paragraphs of 4 to 7 sentences each."""
    low, high = PARAGRAPH_SENTENCES
    fewest = max(SECTION_PARAGRAPHS[0], -(-n_sentences // high))
    most = min(SECTION_PARAGRAPHS[1], n_sentences // low)
    if fewest > most:
        raise ValueError(f"{n_sentences} sentences do not fit the paragraph limits")
    n_paragraphs = fewest + int(u_count * (most - fewest + 1))
    extra, leftover = divmod(n_sentences - low * n_paragraphs, n_paragraphs)
    offset = int(u_offset * n_paragraphs)
    return [
        low + extra + (1 if (i - offset) % n_paragraphs < leftover else 0)
        for i in range(n_paragraphs)
    ]


def _section(
    headline: int,
    headline_strings: list[str],
    sentences: list[int],
    sentence_strings: list[list[str]],
    shape_draws: np.ndarray,
) -> str:
    rendered = [
        _POSITIONAL_SENTENCES[s].format(*strings)
        for s, strings in zip(sentences, sentence_strings, strict=True)
    ]
    sizes = _paragraph_sizes(len(rendered), float(shape_draws[0]), float(shape_draws[1]))
    bounds = np.cumsum([0, *sizes]).tolist()
    paragraphs = [" ".join(rendered[a:b]) for a, b in itertools.pairwise(bounds)]
    title = _POSITIONAL_HEADLINES[headline].format(*headline_strings)
    return PARAGRAPH_SEPARATOR.join([title, *paragraphs])


def newsletter_body(rng: np.random.Generator, *, n_sections: int) -> str:
    """A long digest of business, travel, culture and city news, 600 to 800 tokens a section.

    Sections are separated by two blank lines; inside a section, the headline and the paragraphs
    are separated by one blank line.
    """
    if n_sections < 1:
        raise ValueError("a newsletter needs at least one section")
    headline_ids = rng.integers(0, len(HEADLINES), size=n_sections)
    headline_values = _slot_indices(rng, (n_sections,))
    sentences = rng.integers(0, len(SENTENCES), size=(n_sections, _CANDIDATES))
    sentence_values = _slot_indices(rng, (n_sections, _CANDIDATES))
    targets = rng.integers(SECTION_MIN_TOKENS, _TARGET_HIGH + 1, size=n_sections)
    shape_draws = rng.random(size=(n_sections, 2))

    head_tokens = _token_counts(
        _HEADLINE_LITERAL[headline_ids], _HEADLINE_SLOTS[headline_ids], headline_values
    )
    body_tokens = _token_counts(
        _SENTENCE_LITERAL[sentences], _SENTENCE_SLOTS[sentences], sentence_values
    )
    running = head_tokens[:, None] + np.cumsum(body_tokens, axis=1)
    n_sentences = (np.argmax(running >= targets[:, None], axis=1) + 1).tolist()
    headlines = headline_ids.tolist()
    headline_strings = _slot_strings(headline_values)
    sentence_strings = _slot_strings(sentence_values)
    sentence_ids = sentences.tolist()
    sections = [
        _section(
            headlines[i],
            headline_strings[i],
            sentence_ids[i][:n],
            sentence_strings[i][:n],
            shape_draws[i],
        )
        for i, n in enumerate(n_sentences)
    ]
    return SECTION_SEPARATOR.join(sections)


def _pick(pool: tuple[str, ...], u: float) -> str:
    return pool[int(u * len(pool))]


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- small talk -------------------------------------------------------------------------------

SMALL_TALK_OPENERS: tuple[str, ...] = (
    "hey {to}, ", "hi {to}, ", "{to}, ", "oh {to}, ", "ok {to}, random update: ", "so {to}, ", "",
)  # fmt: skip
# The same openers without the name, in the same order.
NAMELESS_OPENERS: tuple[str, ...] = (
    "hey, ", "hi, ", "", "oh, ", "ok, random update: ", "so, ", "",
)  # fmt: skip

SMALL_TALK_TOPICS: tuple[str, ...] = (
    "it has not stopped raining all day and my umbrella finally gave up.",
    "did you ever finish that detective series everyone keeps talking about?",
    "that noodle bar near the park is absolutely worth the queue.",
    "I spent the whole weekend repainting the hallway and I still smell like primer.",
    "the sunset over the rooftops just now was ridiculous, pink and orange everywhere.",
    "I finally tried the dumpling place you recommended and now I get the hype.",
    "the heat wave is back and my plants are not amused.",
    "we went to that tiny jazz club over the weekend and the drummer stole the show.",
    "I started the fantasy novel you lent me and I'm hooked already.",
    "the cat has decided that the laundry basket is her new throne.",
    "a hailstorm came out of nowhere earlier, completely wild.",
    "I tried baking again and the kitchen still smells faintly of burnt sugar.",
    "have you seen the trailer for that new space documentary yet?",
    "the farmers market had the best peaches I've eaten in years.",
    "I binged the whole cooking competition show and now I want a stand mixer.",
    "the fog earlier was so thick I could barely see across the street.",
    "the neighbors are learning the trumpet and it is going about as well as you'd expect.",
    "that little taco stand by the river has a new hot sauce and it is dangerous.",
    "I finished a jigsaw puzzle with a thousand pieces and I regret nothing.",
    "the first snow of the season is coming down and everything looks so quiet.",
    "someone at the climbing gym talked me into the hardest wall and my arms are done.",
    "the quiz show finale had the best twist I've seen in ages.",
    "I found a secondhand record shop with a whole crate of old soul albums.",
    "our board game night got so competitive that we had to ban one of the games.",
    "the new tea house downstairs does a cardamom blend that I keep thinking about.",
    "I've been trying to learn the ukulele and my fingertips are sore.",
    "the park was full of kites over the weekend, it looked like a painting.",
    "I watched a documentary about octopuses and now I have a lot of feelings.",
    "the thunderstorm knocked out the power for an hour and we played cards by candlelight.",
    "have you tried the soup bar that opened next to the pharmacy?",
    "I finally fixed the squeaky door and it feels like a personal victory.",
    "it is so windy out that my hair has given up entirely.",
    "the old cinema is showing classic monster movies all season and I want to see every one.",
    "I reorganized my bookshelf by color and now I cannot find anything.",
    "the pottery class was humbling, my bowl looks more like an ashtray.",
    "the cherry trees outside are in full bloom and it smells amazing.",
    "the crossword nearly broke me, seven letters for a small boat?",
    "I went to a silent disco and laughed the whole way through.",
)

SMALL_TALK_CLOSERS: tuple[str, ...] = (
    "How are things on your end?",
    "Anyway, hope you're doing well.",
    "We should catch up soon.",
    "Miss you, by the way.",
    "Tell me everything that's new with you.",
    "Anyway, just wanted to share.",
    "Let me know if you want to come along next time.",
)


def small_talk(
    rng: np.random.Generator, *, to: str | None = None, friend: str | None = None
) -> str:
    """One casual chat message of one or two sentences; its opener may greet `to`, the first name
    of the one it is written to. A caller that names only the channel's `friend`, who may be the
    one writing, gets a message that names nobody."""
    u_opener, u_topic, u_closer, u_has_closer = rng.random(4)
    openers = SMALL_TALK_OPENERS if to is not None else NAMELESS_OPENERS
    opener = _pick(openers, u_opener).format(to=to)
    topic = _pick(SMALL_TALK_TOPICS, u_topic)
    if not opener:
        topic = _capitalized(topic)
    message = opener + topic
    if u_has_closer < 0.4:
        message += " " + _pick(SMALL_TALK_CLOSERS, u_closer)
    return message


# --- work chat --------------------------------------------------------------------------------

WORK_CHAT: tuple[str, ...] = (
    "{colleague}, the {project} build is green again, can you rerun the smoke tests when you get "
    "a chance?",
    "quick one {colleague}: who owns the open review comments on {project}?",
    "heads up, I pushed the {project} config change, {colleague} please sanity check the diff",
    "{colleague} do you have the latest numbers for {project}? the doc still shows the old ones",
    "thanks {colleague}, the {project} fix looks good to me, merging now",
    "is anyone else seeing timeouts in the {project} staging environment? {colleague} maybe you "
    "know",
    "{colleague} I left a few comments on the {project} proposal, mostly small wording things",
    "the {project} demo went well, {colleague} nailed the walkthrough",
    "{colleague}, can we pair on the {project} flaky test later? it failed three times in a row",
    "reminder for everyone: please log your {project} hours in the tracker, {colleague} is "
    "collecting them",
    "{colleague} the {project} ticket you filed is a duplicate, I linked the original",
    "just shipped a small {project} patch for the logging issue, {colleague} thanks for the repro",
    "{colleague} could you add me to the {project} doc? I only have view access",
    "the {project} dashboard is loading slowly again, {colleague} I'll take a look after this "
    "meeting",
    "nice work on {project}, {colleague}, the error rate dropped a lot",
    "{colleague}, where did we land on the {project} naming question?",
    "I'm blocked on {project} until the permissions request goes through, {colleague} any idea "
    "who handles those?",
    "{colleague} the {project} retro notes are up, add anything I missed",
    "do we still need the {project} feature flag? {colleague} I think it can go",
    "{colleague}, the customer asked about {project} again, do we have an update I can share?",
    "rolling back the last {project} deploy, something is off with the cache, {colleague} fyi",
    "{colleague} great catch on the {project} edge case, that would have bitten us",
    "the {project} spec has a new section on error handling, {colleague} worth a read",
    "{colleague} can you take the {project} on-call handoff? I'm in workshops most of the day",
    "updated the {project} roadmap slide with the new scope, {colleague} shout if it looks wrong",
    "{colleague}, the {project} load test finished and the results are in the shared folder",
    "anyone have a minute to review the {project} cleanup script? {colleague} maybe?",
    "{colleague} lol the {project} bot just approved its own pull request",
    "{colleague} I think the {project} alerts are too noisy, can we raise the thresholds?",
    "the {project} docs finally have a proper getting started page, thanks {colleague}",
)


def work_chat(rng: np.random.Generator, *, colleague: str, project: str) -> str:
    """One work chat message that mentions `project` and addresses or credits `colleague`."""
    template = _pick(WORK_CHAT, float(rng.random()))
    return _capitalized(template.format(colleague=colleague, project=project))


# --- routine and personal mail ----------------------------------------------------------------

ROUTINE_MAILS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("{project} status update", "Quick update on {project}", "Where {project} stands"),
        (
            "Here is a short update on {project} for anyone who missed the last sync.",
            "The main milestone is on track, and the remaining open items are in the tracker.",
            "Testing uncovered two minor issues, and both already have fixes in review.",
            "Documentation for the new endpoints is about half done.",
            "There are no blockers right now, but the vendor integration still needs sign-off.",
            "If you have questions about scope, please raise them in the project channel.",
            "The next update will follow after the upcoming review.",
            "Thanks to everyone who helped close out the bug backlog so quickly.",
        ),
    ),
    (
        ("Reminder: timesheets", "Friendly reminder about timesheets"),
        (
            "This is a friendly reminder to submit your timesheets before the payroll cutoff.",
            "Several entries are still missing project codes, so please double-check yours.",
            "Use the {project} code for any time spent on the current phase.",
            "Late submissions hold up approvals for the whole team.",
            "If the form shows an error, reloading the page usually solves it.",
            "Contact the operations inbox if you need an exception.",
        ),
    ),
    (
        ("Your expense report", "Expense report reviewed", "Action needed on your expense report"),
        (
            "Your expense report for the {project} workshop has been reviewed.",
            "Most items were approved and will be reimbursed in the next payment run.",
            "One receipt was unreadable, so please upload a clearer copy.",
            "Meals over the daily limit need a short justification.",
            "Hotel bookings should go through the travel portal whenever possible.",
            "You can follow the status of each claim in the finance tool.",
        ),
    ),
    (
        ("Notes from the {project} review", "{project} review: summary and next steps"),
        (
            "Thanks for joining the {project} review, here are the main points.",
            "The group agreed to keep the current scope and revisit the reporting features later.",
            "Design will share updated mockups before the next round.",
            "Engineering flagged a risk around data quality, which still needs an owner.",
            "Action items are assigned in the tracker, so please check that yours are correct.",
            "The recording and the slides are in the shared folder.",
            "Let me know if anything in these notes is inaccurate.",
        ),
    ),
    (
        ("Access request for {project}", "Your {project} access request"),
        (
            "Your request for access to the {project} repository has been received.",
            "An administrator will review it shortly.",
            "Access lasts for the duration of the project and is reviewed every quarter.",
            "Please make sure two-factor authentication is enabled on your account.",
            "You will receive a separate message once the permissions are active.",
            "If you no longer need access, you can withdraw the request from the portal.",
        ),
    ),
    (
        ("Planned wiki maintenance", "Heads-up: wiki maintenance"),
        (
            "The internal wiki will be unavailable for a short maintenance window later this week.",
            "Pages related to {project} will be read-only during that time.",
            "No action is needed on your side.",
            "Unsaved edits could be lost, so please save your drafts beforehand.",
            "The status page will show progress while the work happens.",
            "Thank you for your patience while the upgrade is completed.",
        ),
    ),
    (
        ("Please review: {project} proposal", "Draft {project} proposal for comments"),
        (
            "Attached is the latest draft of the {project} proposal.",
            "I would appreciate comments on the cost section in particular.",
            "The appendix lists the assumptions behind the estimates.",
            "Feel free to edit the document directly if that is easier.",
            "I plan to circulate a final version once all the comments are in.",
            "A short call is also an option if you prefer to talk it through.",
        ),
    ),
    (
        ("Team survey is open", "A few minutes for the team survey?"),
        (
            "The annual team survey is now open.",
            "It takes about ten minutes and all answers are anonymous.",
            "Results will be shared at the next all-hands.",
            "Last round, the feedback led to changes in how {project} is staffed.",
            "Please fill it in even if you answered the previous one.",
            "Questions can go to the people team inbox.",
        ),
    ),
)

ROUTINE_GREETINGS: tuple[str, ...] = ("Hi {to},", "Hello {to},", "{to},", "Hi,")
# For a mail whose reader the caller does not name.
UNADDRESSED_GREETINGS: tuple[str, ...] = ("Hi,", "Hello,", "Hi there,")
ROUTINE_CLOSINGS: tuple[str, ...] = ("Thanks", "Best", "Cheers", "Kind regards")

PERSONAL_MAILS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("Photos from the lake", "The lake pictures are here"),
        (
            "I finally sorted through the photos from our weekend at the lake.",
            "There is one of you mid-laugh that might be the best picture I have ever taken.",
            "I put the whole album in a shared folder, so download whatever you like.",
            "The sunrise ones came out better than I expected.",
            "We really need to do that trip again.",
        ),
    ),
    (
        ("You have to read this", "Book recommendation"),
        (
            "I just finished a novel that I think you would love.",
            "It is about two sisters who inherit a lighthouse and slowly uncover family secrets.",
            "The writing is beautiful without ever being slow.",
            "I can lend you my copy next time we meet.",
            "Tell me what you are reading these days, I need a new list.",
        ),
    ),
    (
        ("Party ideas", "Secret party plans"),
        (
            "I am putting together a small surprise party for my sister and could use your help.",
            "Nothing fancy, just close friends, music and a big cake.",
            "Would you be up for helping with the decorations?",
            "Please keep it quiet, she has no idea.",
            "I will send the details once the venue is confirmed.",
        ),
    ),
    (
        ("Long time no see", "Thinking of you"),
        (
            "It feels like ages since we properly talked.",
            "Life has been busy, mostly in good ways.",
            "The garden is finally producing tomatoes and I am unreasonably proud.",
            "How is your family doing?",
            "We should plan a proper catch-up soon, even a phone call would be great.",
        ),
    ),
    (
        ("Spare concert ticket", "Want to come to a concert?"),
        (
            "I ended up with a spare ticket for the folk concert at the old theater.",
            "The band is one we listened to constantly back in school.",
            "It would be so much fun to go together.",
            "No pressure at all, just let me know if you are interested.",
            "Snacks before the show are on me if you say yes.",
        ),
    ),
    (
        ("Meet the new family member", "We got a dog!"),
        (
            "We adopted a rescue dog and I had to tell you right away.",
            "She is shy, a little clumsy, and already steals socks.",
            "I have attached a photo so you can see the ears for yourself.",
            "She still startles at the vacuum cleaner but gets braver every day.",
            "Come and meet her whenever you have time.",
        ),
    ),
    (
        ("Hike this weekend?", "Up for a hike?"),
        (
            "A few of us are planning a hike up the ridge trail this weekend.",
            "The forecast looks dry and the views should be great.",
            "It is about five hours there and back, with a long stop at the top.",
            "Bring sturdy shoes and plenty of water.",
            "Reply if you want in and I will add you to the group chat.",
        ),
    ),
    (
        ("Thank you", "Just a quick thank you"),
        (
            "I just wanted to say thank you for everything last time.",
            "Your advice really helped me think things through.",
            "It means a lot to have friends like you.",
            "The next coffee is definitely on me.",
            "Give my best to everyone at home.",
        ),
    ),
)

PERSONAL_GREETINGS: tuple[str, ...] = ("Hi {user},", "Hey {user},", "Dear {user},", "{user}!")
PERSONAL_CLOSINGS: tuple[str, ...] = ("Love", "Cheers", "Talk soon", "Hugs", "Take care")
MAIL_SENTENCES = (3, 6)
_MAX_MAIL_SENTENCES = max(
    len(sentences) for _, sentences in (*ROUTINE_MAILS, *PERSONAL_MAILS)
)  # fmt: skip


def _mail(
    rng: np.random.Generator,
    kinds: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...],
    greetings: tuple[str, ...],
    closings: tuple[str, ...],
) -> tuple[str, str, str, str]:
    """(subject, greeting, middle, closing) templates: 3 to 6 sentences kept in their order."""
    u = rng.random(5 + _MAX_MAIL_SENTENCES)
    subjects, sentences = kinds[int(u[0] * len(kinds))]
    low, high = MAIL_SENTENCES
    n = min(low + int(u[1] * (high - low + 1)), len(sentences))
    chosen = np.sort(np.argsort(u[5 : 5 + len(sentences)])[:n])
    middle = " ".join(sentences[i] for i in chosen)
    return _pick(subjects, u[2]), _pick(greetings, u[3]), middle, _pick(closings, u[4])


def routine_mail(
    rng: np.random.Generator, *, sender_first: str, project: str, to: str | None = None
) -> tuple[str, str]:
    """(subject, body) of a routine work mail about `project`, signed by `sender_first` and,
    when `to` is given, greeting that first name (else greeting nobody by name)."""
    greetings = ROUTINE_GREETINGS if to is not None else UNADDRESSED_GREETINGS
    subject, greeting, middle, closing = _mail(rng, ROUTINE_MAILS, greetings, ROUTINE_CLOSINGS)
    body = f"{greeting.format(to=to)}\n\n{middle}\n\n{closing},\n{sender_first}"
    return subject.format(project=project), body.format(project=project)


def personal_mail(rng: np.random.Generator, *, friend: str, user: str) -> tuple[str, str]:
    """(subject, body) of a personal mail from `friend` to `user` that states no attribute."""
    subject, greeting, middle, closing = _mail(
        rng, PERSONAL_MAILS, PERSONAL_GREETINGS, PERSONAL_CLOSINGS
    )
    body = f"{greeting.format(user=user)}\n\n{middle}\n\n{closing},\n{friend}"
    return subject, body


# --- notes ------------------------------------------------------------------------------------

NOTES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("Groceries", "Shopping list", "To buy"),
        (
            "apples", "rice", "tomatoes", "onions", "lemons", "spinach", "coffee beans", "garlic",
            "bananas", "frozen peas", "olive oil", "chickpeas", "carrots", "potatoes", "lentils",
            "dish soap", "paper towels", "toothpaste", "laundry detergent", "batteries",
        ),
    ),
    (
        ("Books to read", "Reading list"),
        (
            "the lighthouse novel from book club", "a poetry collection by someone new to me",
            "a history of maps", "that memoir about sailing alone", "a short story anthology",
            "the sequel to the space opera", "a field guide to mushrooms",
            "a cookbook about spices", "a biography of an inventor",
            "essays on architecture", "the mystery everyone at the gym recommends",
        ),
    ),
    (
        ("Gift ideas", "Present ideas"),
        (
            "a nice notebook", "concert tickets", "a plant in a ceramic pot", "a jigsaw puzzle",
            "wool socks", "a framed print", "a pottery class voucher", "a sturdy umbrella",
            "a board game", "a scented candle", "good headphones", "a fancy tea sampler",
        ),
    ),
    (
        ("Packing list", "Trip packing"),
        (
            "passport", "phone charger", "sunscreen", "swimsuit", "hiking boots",
            "travel adapter", "headphones", "toothbrush", "rain jacket", "a paperback",
            "sunglasses", "reusable water bottle", "first aid kit", "earplugs",
        ),
    ),
    (
        ("Movies to watch", "Watchlist"),
        (
            "the documentary about deep sea creatures", "that heist comedy",
            "the old black-and-white detective film", "the new nature series",
            "the musical everyone keeps quoting", "a classic western", "the sci-fi trilogy",
            "that courtroom drama", "the animated film about a lost robot",
            "the mountain climbing documentary",
        ),
    ),
    (
        ("Home repairs", "Fix around the house"),
        (
            "fix the dripping tap", "replace the hallway bulb", "oil the squeaky hinge",
            "patch the crack above the window", "reseal the bathtub", "tighten the wobbly chair",
            "clean the gutters", "paint the balcony railing", "hang the mirror",
            "replace the shower head",
        ),
    ),
    (
        ("Plant care", "Plants"),
        (
            "water the fern", "turn the orchid toward the light", "repot the cactus",
            "check the basil for aphids", "mist the calathea", "feed the tomatoes",
            "trim the ivy", "bring the lemon tree inside before the frost",
            "wipe the dust off the rubber plant leaves",
        ),
    ),
    (
        ("Weekend ideas", "Things to do"),
        (
            "visit the flea market", "try the climbing gym", "clean out the closet",
            "call the family", "go to the botanical garden", "finish the puzzle",
            "picnic in the park", "see the photography exhibition", "sort the photo albums",
            "try a new board game",
        ),
    ),
    (
        ("Podcast queue", "Podcasts to try"),
        (
            "the episode about the history of salt", "the interview with the deep sea diver",
            "the true crime series about the art forgery", "the one on sleep science",
            "the comedy panel show", "the language learning one",
            "the episode on how bridges are built", "the series about ancient libraries",
        ),
    ),
    (
        ("Workout plan", "Exercise routine"),
        (
            "ten minutes of stretching", "three sets of squats", "push-ups", "plank holds",
            "a short yoga flow", "swim laps", "rowing machine intervals", "jump rope",
            "lunges", "foam rolling",
        ),
    ),
)  # fmt: skip

NOTE_ITEMS = (4, 8)
_MAX_NOTE_ITEMS = max(len(items) for _, items in NOTES)


def note_text(rng: np.random.Generator) -> tuple[str, str]:
    """(title, body) of an everyday list note, one item a line."""
    u = rng.random(3 + _MAX_NOTE_ITEMS)
    titles, items = NOTES[int(u[0] * len(NOTES))]
    low, high = NOTE_ITEMS
    n = min(low + int(u[1] * (high - low + 1)), len(items))
    chosen = np.argsort(u[3 : 3 + len(items)])[:n]
    return _pick(titles, u[2]), "\n".join(f"- {items[i]}" for i in chosen)
