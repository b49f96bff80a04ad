"""Short background text that fills a world without stating any gold fact: everyday messages,
mail and notes that name no organization, city, diet, way of commuting, time of day, weekday or
month. (Newsletters, the long distractors, are in `news`.)
"""

from __future__ import annotations

import numpy as np


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
