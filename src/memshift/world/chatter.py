"""The words of a world's everyday messages, apart from the code that composes them (`filler`).

A template may hold `{a|b|c}`, a choice drawn afresh at each use (`{|very }` may add nothing),
and `{name}`, a slot bound once per message: a topic's own slot (the dish both its sentences talk
about) or a caller's name (`{to}`, `{project}`, `{colleague}`). Each component has its own
material, so that two components never write the same sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --- direct messages --------------------------------------------------------------------------

# What a message does decides how it may close: a question waits for an answer, news asks for a
# reaction, a plan for a yes or no, a tip for a try.
NEWS, QUESTION, PLAN, TIP = "news", "question", "plan", "tip"


@dataclass(frozen=True)
class Topic:
    kind: str
    openers: tuple[str, ...]
    details: tuple[str, ...]
    slots: dict[str, tuple[str, ...]] = field(default_factory=dict)


DM_GREETINGS: tuple[str, ...] = ("hey {to}, ", "hi {to}, ", "{to}, ", "oh {to}, ", "so {to}, ", "")
# The same greetings without the name, in the same order.
DM_NAMELESS_GREETINGS: tuple[str, ...] = ("hey, ", "hi, ", "", "oh, ", "so, ", "")

DM_CLOSERS: dict[str, tuple[str, ...]] = {
    NEWS: (
        "Just had to tell someone.",
        "Anyway, how are you?",
        "Made my day, honestly.",
        "Thought you'd appreciate that.",
        "Still laughing about it.",
        "Wish you'd seen it.",
        "How's your week going?",
        "Anyway, your turn, any news?",
    ),
    QUESTION: (
        "No rush!",
        "Curious what you think.",
        "Any thoughts welcome.",
        "Tell me honestly.",
        "You always know these things.",
        "Asking for a friend, obviously.",
    ),
    PLAN: (
        "Let me know!",
        "No pressure either way.",
        "Say yes?",
        "It'd be fun.",
        "Just tell me what suits you.",
        "I'll save you a seat.",
    ),
    TIP: (
        "You'd love it.",
        "Trust me on this one.",
        "Report back if you go.",
        "Thank me later.",
        "You can thank me later.",
        "Go before everyone finds out.",
    ),
}

DM_TOPICS: tuple[Topic, ...] = (
    Topic(
        NEWS,
        (
            "my umbrella {finally gave up|turned inside out} in the {rain|downpour} today.",
            "I got {completely|properly} soaked in the {rain|downpour} on the way home.",
        ),
        (
            "I looked like a {drowned cat|wet sponge} by the time I got in.",
            "Buying a {sturdier|proper} one is now {officially|finally} on my list.",
        ),
    ),
    Topic(
        QUESTION,
        (
            "did you ever finish that {show}?",
            "be honest, is the ending of that {show} worth it?",
            "I'm {two|three} episodes into that {show}, does it get better?",
        ),
        (
            "Everyone at {work|the gym} keeps talking about it.",
            "I keep almost giving up {on it|halfway through}.",
        ),
        {
            "show": (
                "detective series",
                "spy drama",
                "baking show",
                "courtroom series",
                "ghost story series",
            )
        },
    ),
    Topic(
        TIP,
        (
            "that {dish} place {near the park|by the river|on the corner} is worth the queue.",
            "you have to try the {dish} at the place {near the park|by the river}.",
            "found the best {dish} {in ages|I've had in years}, {tiny|no-frills} place.",
        ),
        (
            "Go hungry, the portions are {huge|ridiculous}.",
            "The {sauce|broth} alone is worth the trip.",
            "The queue moves {fast|quicker than it looks}, don't be put off.",
        ),
        {"dish": ("noodle", "dumpling", "taco", "falafel", "ramen", "pastry")},
    ),
    Topic(
        NEWS,
        (
            "I spent the whole weekend {painting|repainting} the {room} and I still smell like "
            "{primer|paint}.",
            "the {room} is {finally|at last} painted, {two|three} coats later.",
        ),
        (
            "The colour looks {nothing like|darker than} the sample, but I've decided I love it.",
            "I found paint {in my hair|on my elbow} {hours|a day} later.",
        ),
        {"room": ("hallway", "kitchen", "bedroom", "bathroom")},
    ),
    Topic(
        NEWS,
        (
            "the sunset {just now|this evening} was {ridiculous|unreal}, {pink|orange} everywhere.",
            "the sky {just now|this evening} went {bright pink|deep orange}, I hope you saw it.",
        ),
        (
            "I took {about forty|far too many} photos and none of them do it justice.",
            "Half the street was standing {outside|on balconies} staring at it.",
        ),
    ),
    Topic(
        NEWS,
        (
            "my {plant} is {finally|somehow} flowering after {ages|months} of sulking.",
            "I think I {killed|drowned} my {plant}, it looks {very|deeply} unwell.",
        ),
        (
            "I've been talking to it {daily|every morning}, maybe that's the secret.",
            "The internet has {twelve|far too many} contradicting opinions about watering.",
        ),
        {"plant": ("orchid", "cactus", "fern", "basil", "lemon tree")},
    ),
    Topic(
        NEWS,
        (
            "we went to that {tiny|little} jazz club {over the weekend|last night} and the "
            "{drummer|bassist|pianist} stole the show.",
            "the jazz club was {packed|heaving} {last night|over the weekend}, standing room only.",
        ),
        (
            "Nobody {could|wanted to} leave until they {stopped|finished their encore}.",
            "I {still have|can't shake} one of the tunes stuck in my head.",
        ),
    ),
    Topic(
        NEWS,
        (
            "I started the {genre} novel you lent me and I'm {hooked|completely gripped}.",
            "I {finished|devoured} the {genre} novel you lent me in {two|three} sittings.",
        ),
        (
            "That {twist|chapter} near the {middle|end} got me.",
            "I'll give it back {soon|next time}, promise, it's {a bit|slightly} battered.",
        ),
        {"genre": ("fantasy", "mystery", "science fiction", "historical")},
    ),
    Topic(
        NEWS,
        (
            "the cat has decided the {spot} is her {new throne|kingdom} now.",
            "the cat {knocked|swept} a {glass|mug} off the {table|counter} while looking at me.",
        ),
        (
            "She {refuses|declines} to move {for anyone|even for treats}.",
            "I {swear|am sure} she {planned|enjoyed} it.",
        ),
        {"spot": ("laundry basket", "bookshelf", "windowsill", "spare chair")},
    ),
    Topic(
        NEWS,
        (
            "a {weather} came out of nowhere {earlier|this afternoon}, {completely wild|so "
            "dramatic}.",
            "we {just|briefly} had a {weather} and now it's {sunny|calm} again like nothing "
            "happened.",
        ),
        (
            "The {balcony|garden} chairs {ended up|got blown} halfway across the yard.",
            "Everyone {ran|dived} under the nearest {awning|doorway}.",
        ),
        {"weather": ("hailstorm", "thunderstorm", "wild gust of wind", "sudden downpour")},
    ),
    Topic(
        NEWS,
        (
            "I tried baking {bake} again and the kitchen {still smells|smells} of burnt sugar.",
            "my {bake} {actually came out|turned out} {well|edible} this time!",
        ),
        (
            "The {recipe|oven} and I are {still|no longer} on speaking terms.",
            "I {ate|had} {two|three} slices {standing up|straight from the tray}.",
        ),
        {"bake": ("banana bread", "a lemon cake", "cinnamon rolls", "sourdough", "brownies")},
    ),
    Topic(
        QUESTION,
        (
            "have you seen the trailer for that {doc} yet?",
            "did you ever watch that {doc} you mentioned?",
        ),
        (
            "It looks {either amazing or terrible|weirdly good}, I can't tell which.",
            "I need someone to {watch it|discuss it} with.",
        ),
        {"doc": ("space documentary", "ocean documentary", "volcano film", "bird documentary")},
    ),
    Topic(
        NEWS,
        (
            "the {market} {had|was selling} the best {fruit} I've eaten in {years|ages}.",
            "I {bought|came home with} {way too many|a whole bag of} {fruit} at the {market}.",
        ),
        (
            "I'm {already|currently} planning {a crumble|a jam} situation.",
            "The stallholder {gave|slipped} me an extra {handful|few} for free.",
        ),
        {
            "market": ("farmers market", "corner shop", "street market"),
            "fruit": ("peaches", "cherries", "plums", "strawberries", "figs"),
        },
    ),
    Topic(
        NEWS,
        (
            "I binged {a whole|an entire} season of that {contest} and now I want to {learn|try}.",
            "that {contest} {finale|semi-final} had me shouting at the screen.",
        ),
        (
            "The {judges|hosts} were {brutal|far too kind} this year.",
            "My {favourite|pick} {lost|won} {in the end|on the last round}.",
        ),
        {"contest": ("cooking competition", "pottery show", "sewing contest", "quiz show")},
    ),
    Topic(
        NEWS,
        (
            "the fog {this morning|earlier} was so thick I could {barely|hardly} see across the "
            "{street|road}.",
            "it's so foggy {out|outside} the {trees|houses} across the road have disappeared.",
        ),
        (
            "Felt like {stepping into|being in} an old {horror film|ghost story}.",
            "Everything {sounded|felt} {muffled|strangely quiet} too.",
        ),
    ),
    Topic(
        NEWS,
        (
            "the {neighbours|people upstairs} are learning the {instrument} and it is going about "
            "as well as you'd expect.",
            "{day three|week two} of the {neighbours|people upstairs} practising the {instrument}.",
        ),
        (
            "They {only|mostly} know {one|half a} song so far.",
            "I'm {weirdly|secretly} rooting for them {now|at this point}.",
        ),
        {"instrument": ("trumpet", "violin", "drums", "accordion")},
    ),
    Topic(
        NEWS,
        (
            "I {finished|completed} a {size} piece jigsaw {puzzle|of a harbour} and I regret "
            "nothing.",
            "the {size} piece jigsaw is {finally|nearly} done, {one piece is missing|send snacks}.",
        ),
        (
            "The {sky|sea} section {nearly broke me|took a whole evening}.",
            "The {dining|coffee} table has been {out of action|buried} for {days|a week}.",
        ),
        {"size": ("thousand", "five hundred", "two thousand")},
    ),
    Topic(
        NEWS,
        (
            "the first snow {of the season|of the year} is coming down and everything is so quiet.",
            "it's snowing {properly|heavily} {here|outside} and I'm {not going out|staying in}.",
        ),
        (
            "The {kids|neighbours} {next door|across the street} are already building a snowman.",
            "I've {made|got} {a big pot of|hot} {tea|soup} and a blanket.",
        ),
    ),
    Topic(
        NEWS,
        (
            "someone at the climbing gym talked me into the {hardest|steepest} wall and my "
            "{arms|forearms} are done.",
            "I {finally|actually} topped the {orange|blue|black} route at the climbing gym!",
        ),
        (
            "I can {barely|hardly} lift my {cup|phone} {now|this evening}.",
            "{Three|Four} weeks of {falling off|failing} that one {hold|move}, and then it just "
            "worked.",
        ),
    ),
    Topic(
        TIP,
        (
            "found a secondhand {shop} with a whole {crate|shelf} of {old|forgotten} {stock}.",
            "there's a {tiny|dusty} {shop} near the {square|station} you need to see.",
        ),
        (
            "I {spent|lost} {ages|a whole afternoon} in there.",
            "Prices are {silly|absurdly} low, the owner just wants them gone.",
        ),
        {
            "shop": ("record shop", "bookshop", "junk shop"),
            "stock": ("soul albums", "travel books", "film posters", "jazz records"),
        },
    ),
    Topic(
        NEWS,
        (
            "board game night got so {competitive|heated} that we had to ban {game}.",
            "we played {game} {until very late|for hours} and I {won|lost} {everything|badly}.",
        ),
        (
            "{Two|Three} people {are no longer|aren't} speaking {to each other|to me}.",
            "Rematch {is already|has been} {scheduled|demanded}.",
        ),
        {"game": ("the trading game", "the railway game", "the one with the dragons", "charades")},
    ),
    Topic(
        TIP,
        (
            "the {tea house|cafe} downstairs does a {flavour} {blend|drink} I keep thinking about.",
            "try the {flavour} {blend|one} at the {tea house|cafe} next time you're near me.",
        ),
        (
            "I've been {three|four} times {this week|already}, it's a problem.",
            "They {also|even} do a {cake|biscuit} that goes {with it|perfectly with it}.",
        ),
        {"flavour": ("cardamom", "ginger", "rose", "smoky", "lavender")},
    ),
    Topic(
        NEWS,
        (
            "I've been trying to learn the {skill} and my {fingers|hands} are {sore|not happy}.",
            "{week two|a month} into learning the {skill} and I can {almost|nearly} play a song.",
        ),
        (
            "The {video|app} teacher is {relentlessly|suspiciously} cheerful.",
            "Please don't ask me to perform {anything|yet}.",
        ),
        {"skill": ("ukulele", "guitar", "piano", "banjo")},
    ),
    Topic(
        QUESTION,
        (
            "do you know any {good|decent} {thing} {around here|near you}?",
            "where do you {go|get} {thing} these days?",
        ),
        (
            "Mine {closed|changed owners} and it's {not the same|gone downhill}.",
            "I've tried {two|three} {so far|already} and {none of them|neither} felt right.",
        ),
        {"thing": ("haircuts", "bakeries", "key cutters", "tailors", "shoe repairs")},
    ),
    Topic(
        NEWS,
        (
            "I watched a documentary about {animal} and now I have {a lot of|so many} feelings.",
            "apparently {animal} can {recognise faces|solve puzzles}, I've learned so much.",
        ),
        (
            "I'm {seriously|half} considering a {career|life} change.",
            "I {paused|rewound} it {every few minutes|constantly} to tell someone.",
        ),
        {"animal": ("octopuses", "crows", "elephants", "otters")},
    ),
    Topic(
        NEWS,
        (
            "the {storm|wind} knocked out the power for {an hour|ages} and we played cards by "
            "candlelight.",
            "power cut {here|on our street} {earlier|tonight}, so it's candles and cards.",
        ),
        (
            "{Honestly|Weirdly} it was the {best|nicest} evening in ages.",
            "The {fridge|freezer} is {fine|probably fine}, I'm choosing to believe.",
        ),
    ),
    Topic(
        PLAN,
        (
            "want to {come to|try} the {event} with me {this weekend|soon}?",
            "I've got a spare ticket for the {event}, {interested|are you in}?",
        ),
        (
            "{A couple of|Some} friends {from the choir|from the gym} are coming too.",
            "We could {grab food|get something to eat} {before|after}.",
        ),
        {"event": ("pottery class", "quiz night", "open-air film", "craft fair", "comedy night")},
    ),
    Topic(
        NEWS,
        (
            "I {finally|actually} fixed the {thing} and it feels like a personal victory.",
            "the {thing} {broke|gave up} {again|today}, I'm {done|defeated}.",
        ),
        (
            "{One|Two} videos and {a borrowed|a single} screwdriver, that's all it took.",
            "The {landlord|handyman} {still hasn't replied|says soon, whatever that means}.",
        ),
        {"thing": ("squeaky door", "leaky tap", "wobbly shelf", "stuck window", "oven door")},
    ),
    Topic(
        NEWS,
        (
            "it's so windy {out|outside} that my hair has {given up|stopped cooperating} entirely.",
            "the wind {today|earlier} {took|stole} my {hat|scarf} and I {chased|followed} it for "
            "{a block|ages}.",
        ),
        (
            "A {stranger|kid} {caught it|helped} and we {both laughed|had a moment}.",
            "The {bins|recycling} {are|ended up} all over the street.",
        ),
    ),
    Topic(
        PLAN,
        (
            "the old cinema is showing {films} all season, {want to go|fancy it}?",
            "shall we {do|catch} one of the {films} at the old cinema?",
        ),
        (
            "They {do|serve} {proper|real} popcorn and the seats {creak|wobble}.",
            "I'd {happily|gladly} see {every one|all of them}.",
        ),
        {
            "films": (
                "classic monster movies",
                "old musicals",
                "silent comedies",
                "noir double bills",
            )
        },
    ),
    Topic(
        NEWS,
        (
            "I reorganised my bookshelf by {colour|size} and now I can't find {anything|a thing}.",
            "I've been sorting my books {all evening|for hours} and the floor is {covered|a maze}.",
        ),
        (
            "It looks {gorgeous|amazing} though, so no {regrets|going back}.",
            "I found {a letter|an old postcard} {tucked|hidden} inside one of them.",
        ),
    ),
    Topic(
        NEWS,
        (
            "the pottery class was {humbling|a lesson in patience}, my {item} looks like a "
            "{blob|hat}.",
            "I made a {item} at pottery and it's {lopsided|leaning} but {mine|I love it}.",
        ),
        (
            'The teacher {called|described} it "{characterful|very expressive}".',
            "Next week is glazing, {wish me luck|so there's still hope}.",
        ),
        {"item": ("bowl", "mug", "vase", "plate")},
    ),
    Topic(
        NEWS,
        (
            "the {tree} trees {outside|along the street} are in full bloom and it smells amazing.",
            "everything outside is {blooming|in flower} {now|at last}, the {tree} trees "
            "especially.",
        ),
        (
            "I keep {stopping|pausing} to {look|take pictures} like a tourist.",
            "My {allergies|sinuses} {disagree|are less thrilled}, but worth it.",
        ),
        {"tree": ("cherry", "magnolia", "apple", "lilac")},
    ),
    Topic(
        QUESTION,
        (
            "the crossword nearly broke me, {clue}?",
            "crossword help please: {clue}?",
        ),
        (
            "I've {stared at|circled} it for {ages|far too long}.",
            "{Every|Each} letter I try {ruins|breaks} the {corner|row} below.",
        ),
        {
            "clue": (
                "seven letters for a small boat",
                "five letters for a kind of cloud",
                "six letters for a sea bird",
                "eight letters for a spice",
            )
        },
    ),
    Topic(
        NEWS,
        (
            "I went to a silent disco and {laughed|giggled} the {whole way through|entire time}.",
            "silent disco {last night|over the weekend}, {best|silliest} fun I've had in ages.",
        ),
        (
            "My {channel|headphones} {kept|somehow} switching to the {cheesy|eighties} one.",
            "Seeing a room dance to {nothing|silence} is {very|oddly} moving.",
        ),
    ),
    Topic(
        QUESTION,
        (
            "what are you reading {at the moment|these days}?",
            "any {good|gripping} {podcasts|books} lately?",
        ),
        (
            "I need something for the {evenings|long weekend} and my list is {empty|stale}.",
            "{Nothing|No} sad endings {please|for now}, I'm fragile.",
        ),
    ),
    Topic(
        PLAN,
        (
            "{fancy|up for} a {outing} {soon|sometime this month}?",
            "we should do a {outing} before the weather turns, {yes|thoughts}?",
        ),
        (
            "I'll bring {snacks|the thermos}, you bring {good shoes|the map}.",
            "It's been {way too long|ages} since we {did anything|had a proper day out}.",
        ),
        {
            "outing": (
                "hike",
                "picnic",
                "swim at the lake",
                "long walk by the river",
                "gallery trip",
            )
        },
    ),
    Topic(
        NEWS,
        (
            "my {sibling} {called|rang} to say they're {moving|getting a puppy}, big news here.",
            "{family|my family} group chat is in {chaos|uproar} over {holiday|birthday} plans "
            "again.",
        ),
        (
            "{Everyone|Half of them} has {opinions|a spreadsheet}.",
            "I'm staying {neutral|quiet} and {muting|ignoring} it for a while.",
        ),
        {"sibling": ("brother", "sister", "cousin")},
    ),
    Topic(
        NEWS,
        (
            "I {signed up|finally signed up} for {course} lessons, {terrifying|very exciting}.",
            "first {course} lesson {done|survived} and I {fell over|tripped} only {once|twice}.",
        ),
        (
            "The teacher {is|seems} {lovely|patient} but {very strict|unimpressed}.",
            "Everyone else {seemed|looked} to know {exactly|already} what they were doing.",
        ),
        {"course": ("dance", "swimming", "skating", "drawing")},
    ),
    Topic(
        TIP,
        (
            "if you need a {gift|present}, the {shop} near the {square|old bridge} is "
            "{great|perfect}.",
            "the {shop} I told you about is {even|somehow} better now.",
        ),
        (
            "They {wrap|pack} everything {beautifully|in brown paper}.",
            "The owner {remembers|recognises} everyone, it's {sweet|charming}.",
        ),
        {"shop": ("candle shop", "stationery shop", "toy shop", "plant shop")},
    ),
    Topic(
        QUESTION,
        (
            "how did the {thing} go, {tell me everything|any news}?",
            "any news on the {thing} {yet|so far}?",
        ),
        (
            "I {kept|have been keeping} my fingers crossed {all day|for you}.",
            "{Hope|I hope} it went the way you wanted.",
        ),
        {"thing": ("interview", "flat viewing", "dentist visit", "big presentation", "exam")},
    ),
    Topic(
        NEWS,
        (
            "I {slept|actually slept} {ten|nine} hours {last night|straight} and feel like a new "
            "person.",
            "{barely|hardly} slept {last night|all week}, the {bird|dog} outside {would not|won't} "
            "stop.",
        ),
        (
            "{Coffee|Tea} is {doing|carrying} all the work today.",
            "I'd forgotten what {rested|awake} feels like.",
        ),
    ),
    Topic(
        PLAN,
        (
            "{dinner|lunch} at mine {soon|one of these days}, I'm {testing|trying} a new {dish}?",
            "come over {soon|some evening} and help me eat a {giant|huge} pot of {dish}?",
        ),
        (
            "I've {bought|got} {far too much|enough for ten}, honestly.",
            "Bring {nothing|dessert if you insist}, just yourself.",
        ),
        {"dish": ("curry", "stew", "soup", "risotto", "chilli")},
    ),
)

# --- work chat ----------------------------------------------------------------------------------

# Each line names the project and the colleague; a follow-up, when there is one, names nobody.
WORK_CHAT_LINES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "{colleague}, the {project} build is {green|passing} again, can you {rerun|kick off} the "
        "{smoke|integration} tests?",
        ("The last {two|three} runs were {flaky|red} for {no clear reason|unrelated reasons}.",),
    ),
    (
        "quick one {colleague}: who owns the {open|remaining} review comments on {project}?",
        ("Some of them are {weeks|a while} old {now|already}.",),
    ),
    (
        "{colleague}, I pushed the {project} {config|settings} change, please {sanity check|skim} "
        "the diff",
        ("It's {small|tiny}, {mostly|just} renamed keys.", "Nothing {urgent|blocking}, whenever."),
    ),
    (
        "{colleague} do you have the {latest|current} numbers for {project}? the doc {still "
        "shows|has} the old ones",
        ("I want them in the {deck|summary} before it goes out.",),
    ),
    (
        "thanks {colleague}, the {project} {fix|patch} looks good to me, {merging|shipping} it "
        "{now|"
        "shortly}",
        ("{Nice|Clean} work on the {tests|error handling}.",),
    ),
    (
        "is anyone else seeing {timeouts|slow responses} in {project} staging? {colleague} "
        "{maybe you know|any idea}?",
        ("Started {about an hour ago|after the last deploy}.",),
    ),
    (
        "{colleague}, left a few comments on the {project} {proposal|design doc}, mostly {small|"
        "minor} wording things",
        ("One bigger question about the {rollout|migration} order.",),
    ),
    (
        "the {project} demo went {well|really well}, {colleague} {nailed|handled} the walkthrough",
        ("The {clients|stakeholders} asked {good|sharp} questions too.",),
    ),
    (
        "{colleague}, can we pair on the {project} {flaky|failing} test {later|at some point}?",
        ("It {failed|broke} {three|four} times in a row {now|already}.",),
    ),
    (
        "{colleague} the {project} ticket you {filed|opened} is a duplicate, I linked the original",
        ("{Easy|Easy enough} to miss, the {search|tracker} is {awful|terrible}.",),
    ),
    (
        "just shipped a {small|quick} {project} patch for the {logging|retry} issue, {colleague} "
        "thanks for the repro",
        ("Let me know if you {still see|spot} it {anywhere|again}.",),
    ),
    (
        "{colleague} could you add me to the {project} {doc|board}? I only have view access",
        ("{No rush|Whenever suits}, I'm {just|only} reading for now.",),
    ),
    (
        "the {project} dashboard is {loading slowly|timing out} again, {colleague} I'll {look|dig} "
        "into it after this meeting",
        ("{Probably|Likely} the {same|old} query problem.",),
    ),
    (
        "{nice|great} work on {project}, {colleague}, the error rate {dropped|fell} {a "
        "lot|sharply}",
        ("The {support|on-call} folks noticed {straight away|right away}.",),
    ),
    (
        "{colleague}, where did we {land|end up} on the {project} naming question?",
        ("I {need|want} to {update|finish} the docs {before|after} the next release.",),
    ),
    (
        "I'm blocked on {project} until the {permissions|access} request {goes through|is approved}"
        ", {colleague} any idea who handles those?",
        ("The form {just|only} says pending.",),
    ),
    (
        "{colleague} the {project} retro notes are up, add anything I {missed|got wrong}",
        ("I {grouped|sorted} the action items by {owner|theme}.",),
    ),
    (
        "do we still need the {project} feature flag? {colleague} I think it can {go|be removed}",
        ("It's been {fully on|at full rollout} for {a while|weeks}.",),
    ),
    (
        "{colleague}, the {customer|support team} asked about {project} again, {any|is there an} "
        "update I can share?",
        ("Even a {rough|ballpark} estimate would help.",),
    ),
    (
        "rolling back the last {project} deploy, {something is off|something's wrong} with the "
        "{cache|queue}, {colleague} fyi",
        ("{Will|I'll} post a {summary|write-up} once it's {stable|calm}.",),
    ),
    (
        "{colleague} {great|good} catch on the {project} edge case, that would have {bitten|hurt} "
        "us",
        ("{Adding|I'll add} a test for it {now|today}.",),
    ),
    (
        "{colleague} can you take the {project} on-call handoff? I'm in workshops {most of|all} "
        "the day",
        ("{Nothing|No} open incidents, {just|only} one noisy alert.",),
    ),
    (
        "{updated|refreshed} the {project} roadmap slide with the new scope, {colleague} shout if "
        "it looks wrong",
        ("I {moved|pushed} the {reporting|export} work to the next phase.",),
    ),
    (
        "{colleague}, the {project} load test {finished|is done} and the results are in the shared "
        "folder",
        ("{Latency|Memory} looks {fine|better than last time}.",),
    ),
    (
        "anyone have a minute to review the {project} {cleanup|migration} script? {colleague} "
        "maybe?",
        ("It's {short|under a hundred lines}, promise.",),
    ),
    (
        "{colleague} lol the {project} bot just {approved|merged} its own pull request",
        ("We {might|should} want to {look at|revisit} its permissions.",),
    ),
    (
        "{colleague} I think the {project} alerts are too {noisy|chatty}, can we raise the "
        "thresholds?",
        ("{Most|Nearly all} of them {resolve|clear} on their own.",),
    ),
    (
        "the {project} docs {finally|now} have a {proper|real} getting started page, thanks "
        "{colleague}",
        ("{New|Newer} folks will {love|appreciate} it.",),
    ),
    (
        "{colleague}, are you {presenting|demoing} {project} at the next team sync or shall I?",
        ("Happy either way, {just|only} want to {prepare|avoid double work}.",),
    ),
    (
        "{colleague} the {project} {backlog|board} needs a {tidy|grooming pass}, want to do it "
        "together?",
        ("Half the {tickets|cards} are {stale|done already}.",),
    ),
    (
        "heads up {colleague}, the {project} {vendor|partner} API {changed|deprecated} an endpoint",
        ("We have {a few|several} weeks before it {breaks|stops working}.",),
    ),
    (
        "{colleague} {welcome back|good to have you back}! the {project} {channel|thread} has a "
        "summary of what you missed",
        ("{Short version|Tl;dr}: nothing {caught fire|broke}.",),
    ),
)

# --- mail ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MailKind:
    """Subjects and, in reading order, the parts of a body: each part is a few ways of saying one
    thing. The first part always opens the mail; a mail keeps some of the others, in order."""

    subjects: tuple[str, ...]
    parts: tuple[tuple[str, ...], ...]


# Notices: what a team sends round (the `routine` component).
NOTICE_MAILS: tuple[MailKind, ...] = (
    MailKind(
        ("{project} status update", "Where {project} stands", "{project}: weekly status"),
        (
            (
                "Here is a short update on {project} for anyone who {missed|could not make} the "
                "last sync.",
                "A quick {summary|round-up} of where {project} stands {this week|right now}.",
            ),
            (
                "The {main|current} milestone is on track, and the {open|remaining} items are in "
                "the tracker.",
                "We are {slightly|a little} behind on the {current|main} milestone but expect to "
                "catch up.",
            ),
            (
                "Testing {uncovered|turned up} {two|three} minor issues, and {both|all} have fixes "
                "in review.",
                "The {regression|integration} suite is {green|stable} {again|for now}.",
            ),
            (
                "Documentation for the new {endpoints|screens} is about {half|mostly} done.",
                "The {user guide|runbook} {still|now} needs a {final|careful} review.",
            ),
            (
                "There are no blockers, but the {vendor|partner} integration still needs sign-off.",
                "One risk remains {around|in} the data {migration|import}, and it has an owner.",
            ),
            (
                "If you have questions about scope, please raise them in the project channel.",
                "The next update will {follow|come} after the {upcoming|next} review.",
            ),
        ),
    ),
    MailKind(
        ("Reminder: timesheets", "Friendly reminder about timesheets", "Timesheets are due"),
        (
            (
                "This is a {friendly|quick} reminder to submit your timesheet before the payroll "
                "cutoff.",
                "Timesheets for this period {are due soon|close shortly}, so please fill in yours.",
            ),
            (
                "{Several|A few} entries are still missing project codes, so please check yours.",
                "Please {log|book} time on {project} against its own code {rather than|not} the "
                "general one.",
            ),
            (
                "Late submissions hold up approvals for the whole {team|department}.",
                "Managers cannot approve {a team|anyone} until every entry is in.",
            ),
            (
                "If the form shows an error, reloading the page usually {solves|fixes} it.",
                "A known bug {sometimes|occasionally} {hides|drops} the save button on small "
                "screens.",
            ),
            ("Contact the operations inbox if you need an exception.",),
        ),
    ),
    MailKind(
        ("Your expense report", "Expense report reviewed", "Action needed on your expense report"),
        (
            (
                "Your expense report for the {project} {workshop|site visit} has been reviewed.",
                "Finance {has|have} {checked|gone through} your claim for the {project} "
                "{workshop|offsite}.",
            ),
            (
                "Most items were approved and will be {reimbursed|paid} in the next payment run.",
                "{All but one|Nearly all} of the items {were|have been} approved.",
            ),
            (
                "One receipt was {unreadable|too blurry to read}, so please upload a clearer copy.",
                "A {taxi|hotel} receipt is missing, so please add it when you can.",
            ),
            (
                "Meals over the daily limit need a short {justification|note}.",
                "{Hotel|Travel} bookings should go through the {travel|booking} portal next time.",
            ),
            ("You can follow the status of each claim in the finance tool.",),
        ),
    ),
    MailKind(
        ("Notes from the {project} review", "{project} review: summary and next steps"),
        (
            (
                "Thanks for joining the {project} review, here are the main points.",
                "A summary of the {project} review for {everyone|those} who could not attend.",
            ),
            (
                "The group agreed to keep the current scope and revisit {reporting|exports} later.",
                "We agreed to {split|phase} the {rollout|launch} into two smaller releases.",
            ),
            (
                "Design will share updated mockups before the next round.",
                "{Engineering|The platform team} will {estimate|size} the remaining work {first|"
                "before we commit}.",
            ),
            (
                "A risk around data quality was flagged and still needs an owner.",
                "{Security|Legal} asked for a short review before anything {ships|goes live}.",
            ),
            (
                "Action items are in the tracker, so please check that yours are correct.",
                "The recording and the slides are in the shared folder.",
            ),
        ),
    ),
    MailKind(
        ("Access request for {project}", "Your {project} access request"),
        (
            (
                "Your request for access to the {project} repository has been received.",
                "We {got|received} your request to join the {project} {workspace|board}.",
            ),
            (
                "An administrator will review it {shortly|within a few days}.",
                "{Requests|Approvals} are {usually|normally} handled within {two|three} working "
                "days.",
            ),
            (
                "Access lasts for the length of the project and is reviewed every quarter.",
                "Please make sure two-factor authentication is enabled on your account.",
            ),
            (
                "You will {receive|get} a separate message once the permissions are active.",
                "If you no longer need access, you can withdraw the request from the portal.",
            ),
        ),
    ),
    MailKind(
        ("Planned wiki maintenance", "Heads-up: wiki maintenance", "Wiki downtime ahead"),
        (
            (
                "The internal wiki will be {unavailable|offline} for a short maintenance window "
                "{later this week|soon}.",
                "{Planned|Scheduled} maintenance will take the wiki offline for {a short while|an "
                "hour or so}.",
            ),
            (
                "Pages {related to|about} {project} will be read-only during that time.",
                "The {project} space will {stay|remain} readable but {cannot|can't} be edited.",
            ),
            (
                "Unsaved edits could be lost, so please save your drafts beforehand.",
                "No action is needed on your side.",
            ),
            ("The status page will show progress while the work {happens|is under way}.",),
        ),
    ),
    MailKind(
        ("Team survey is open", "A few minutes for the team survey?"),
        (
            (
                "The {annual|yearly} team survey is now open.",
                "This year's engagement survey {is open|has opened} {until the end of the "
                "month|for "
                "a few weeks}.",
            ),
            (
                "It takes about ten minutes and all answers are anonymous.",
                "{Answers|Responses} are anonymous and {only|just} reported in groups.",
            ),
            (
                "Results will be shared at the next all-hands.",
                "Last round, the feedback changed how {project} is staffed.",
            ),
            ("Questions can go to the people team inbox.",),
        ),
    ),
    MailKind(
        ("Security training due", "Reminder: annual security training"),
        (
            (
                "The annual security training is due {soon|by the end of the quarter}.",
                "Your security awareness {course|module} is still {marked as|showing as} "
                "incomplete.",
            ),
            (
                "It covers phishing, passwords and {how to report|reporting} a lost laptop.",
                "This year's {module|course} adds a {section|chapter} on handling customer data.",
            ),
            (
                "Anyone working on {project} also needs the {data handling|privacy} module.",
                "{Most|Many} people finish it in {under half an hour|about twenty minutes}.",
            ),
            ("Your progress is saved, so you can stop and continue {later|another time}.",),
        ),
    ),
    MailKind(
        ("{project} release notes", "What shipped in {project}"),
        (
            (
                "A new {project} release went out {earlier today|overnight}.",
                "The latest {project} {version|build} is now live for {all|every} users.",
            ),
            (
                "It {fixes|addresses} the {export|search} bug that {several|some} teams reported.",
                "{Loading|Start-up} times {improved|dropped} {noticeably|quite a bit} in testing.",
            ),
            (
                "The {old|legacy} settings page is {gone|retired}, everything lives in one place "
                "now.",
                "A {dark mode|compact view} option {has been|was} added by popular request.",
            ),
            (
                "Please report anything odd in the {support|project} channel.",
                "The full changelog is linked from the {wiki|project} page.",
            ),
        ),
    ),
    MailKind(
        ("On-call rota for {project}", "{project} on-call: next rotation"),
        (
            (
                "The {project} on-call rota for the next {rotation|cycle} is published.",
                "{Here is|Please find} the {updated|new} {project} on-call schedule.",
            ),
            (
                "Please check your {shifts|slots} and swap directly with a colleague if needed.",
                "{Swaps|Changes} should be {recorded|noted} in the rota sheet, not just agreed in "
                "chat.",
            ),
            (
                "The {runbook|escalation guide} has been updated with {two|a few} new alerts.",
                "New joiners will shadow {a|one} shift before taking their own.",
            ),
            ("Thanks to everyone who covered {extra|additional} shifts last {cycle|time}.",),
        ),
    ),
)

# Work mail one person writes to another (work mail in the `mail` component).
DIRECT_WORK_MAILS: tuple[MailKind, ...] = (
    MailKind(
        ("Could you look at the {project} draft?", "{project} draft for your eyes"),
        (
            (
                "I've {attached|shared} the latest draft of the {project} proposal.",
                "The {project} {proposal|plan} is {finally|nearly} in a shape I'm happy to share.",
            ),
            (
                "I'd {especially|really} value your view on the {cost|timeline} section.",
                "The {risks|assumptions} part is the one I'm least sure about.",
                "I {rewrote|shortened} the {summary|introduction} since the {last|previous} "
                "version.",
            ),
            (
                "Feel free to {edit|comment on} the document directly if that's easier.",
                "{Rough|Quick} comments are fine, no need to polish them.",
                "{Tracked changes|Margin notes} are {easiest|best} for me to {merge|work through}.",
            ),
            (
                "I'm hoping to {circulate|send round} a final version once the comments are in.",
                "A short call works too if you'd rather talk it through.",
            ),
        ),
    ),
    MailKind(
        ("Following up on {project}", "Re: {project} next steps", "{project} follow-up"),
        (
            (
                "Following up on our {chat|conversation} about {project}.",
                "Picking up where we left off on {project} {last time|the other day}.",
            ),
            (
                "I {checked|looked into} the numbers and {your|the} estimate looks about right.",
                "I {spoke|talked} to the {data|platform} team and they can help {after all|with "
                "the "
                "setup}.",
            ),
            (
                "The {one|main} open question is who signs off on the {budget|scope}.",
                "We still need {an owner|someone} for the {testing|rollout} plan.",
                "The {dependency|hand-off} on the {billing|identity} team is {still|now} the "
                "tricky part.",
            ),
            (
                "Would you be {okay|happy} to take that to the {steering|planning} group?",
                "Let me know if I've {misremembered|missed} anything from our {chat|discussion}.",
            ),
        ),
    ),
    MailKind(
        ("Handover notes", "Handover: {project}", "Covering {project} while I'm away"),
        (
            (
                "I'm {away|off} for a {few days|week}, so here is a {quick|short} {project} "
                "handover.",
                "Before I {head off|go on leave}, a few notes on where {project} stands.",
            ),
            (
                "The {open|pending} pull requests are {tagged|labelled} and need one more review.",
                "The {client|partner} is waiting on a reply about the {export|report} format.",
                "{Two|A couple of} {tickets|bugs} are {half done|in progress}, with notes in each.",
            ),
            (
                "Nothing is {urgent|on fire}, but the {nightly|weekly} job needs watching.",
                "{Dashboards|Alerts} for the {sync|import} are {pinned|linked} in the "
                "{team|project} channel.",
                "If the {sync|import} fails, the fix is in the runbook under {known issues|"
                "troubleshooting}.",
            ),
            (
                "Thanks {so much|a lot} for covering, I'll return the favour.",
                "I'll {check|read} messages {once a day|occasionally} if anything is really stuck.",
            ),
        ),
    ),
    MailKind(
        ("Question about the {project} numbers", "{project} figures"),
        (
            (
                "Quick question about the {project} figures in the {last|latest} report.",
                "I was {going through|reading} the {project} {report|dashboard} and something "
                "looks off.",
            ),
            (
                "The {totals|monthly figures} don't {match|line up with} what the {tracker|finance "
                "sheet} shows.",
                "It looks like {returns|refunds} are counted {twice|in both columns}.",
            ),
            (
                "It {could|might} just be a timing difference, but I'd like to be sure.",
                "{Possibly|Maybe} the {currency|rounding} {settings|rules} changed "
                "{somewhere|along the way}.",
                "I don't want to {send|present} it to the {leads|directors} until we know.",
            ),
            (
                "Could you {check|have a look} when you {have|get} a moment?",
                "Happy to {walk through|go over} it together if that's quicker.",
                "{No rush|Whenever suits}, the {report|summary} isn't due {yet|for a while}.",
            ),
        ),
    ),
    MailKind(
        ("Thank you", "Thanks for the help on {project}"),
        (
            (
                "I wanted to say thanks for your help on {project} {last week|recently}.",
                "{Just|A quick note to} say thank you for {jumping in|stepping in} on {project}.",
            ),
            (
                "The {demo|review} went {smoothly|much better} because of your {prep|slides}.",
                "Your {fix|analysis} saved us {days|a lot} of {work|back and forth}.",
            ),
            (
                "I've {mentioned|passed} it {to the leads|on to the team} as well.",
                "{Honestly|Truly}, I {could not|couldn't} have {done|finished} it {alone|in time} "
                "without you.",
                "{Several|A few} people {asked|wanted to know} who put it together.",
            ),
            ("Coffee is on me {next time|whenever you like}.",),
        ),
    ),
    MailKind(
        ("Feedback on {project}?", "Your view on {project}"),
        (
            (
                "I'm collecting feedback on how {project} {went|has gone} so far.",
                "Before the {retro|next phase}, I'd like to hear how {project} has felt for you.",
            ),
            (
                "What {worked|went well}, and what would you {change|do differently}?",
                "I'm {particularly|especially} interested in how the {handoffs|reviews} felt.",
            ),
            (
                "{Honest|Blunt} answers are {welcome|very welcome}, nothing goes beyond me.",
                "{Small|Minor} {annoyances|frustrations} {count|matter} too, {please|so} include "
                "them.",
                "A few {bullet points|lines} are {plenty|more than enough}.",
            ),
            ("I'll {share|summarise} the {themes|main points} with the group afterwards.",),
        ),
    ),
    MailKind(
        ("Vendor quote for {project}", "{project}: the quote came back"),
        (
            (
                "The {vendor|supplier} quote for {project} {came in|arrived} {today|this morning}.",
                "We finally {have|got} the {licence|hosting} quote for {project}.",
            ),
            (
                "It's {a bit|noticeably} higher than we {budgeted|planned} for.",
                "{Support|Training} is {priced|charged} separately, which {surprised|annoyed} me.",
            ),
            (
                "I think there is room to {negotiate|push back} on the {term|volume}.",
                "Their {references|case studies} {look|seem} {solid|decent}, for what it's worth.",
                "{Procurement|Purchasing} wants {a second|another} quote before deciding.",
            ),
            (
                "Can you {have a look|take a look} before I reply to them?",
                "Let me know {what you think|your view} and I'll {draft|write} the answer.",
            ),
        ),
    ),
    MailKind(
        ("Talk proposal", "Want to co-present {project}?"),
        (
            (
                "The {internal|engineering} {talks|showcase} series is looking for speakers again.",
                "I {thought|was thinking} {project} would make a {good|great} internal talk.",
            ),
            (
                "We could {cover|tell} the story of the {migration|redesign} and what we learned.",
                "A {short|twenty minute} talk with a {live|small} demo would work well.",
                "The {failures|dead ends} {might|could} be the {most useful|best} part {to "
                "share|of the story}.",
            ),
            (
                "Would you be up for {presenting|doing it} together?",
                "The {organisers|hosts} {want|need} a {title|short abstract} {fairly soon|before "
                "long}.",
                "I'm happy to do the slides if you {take|handle} the demo.",
            ),
            ("No {pressure|worries} if you're too busy right now.",),
        ),
    ),
    MailKind(
        ("Intro: someone you should meet", "An introduction"),
        (
            (
                "I'd like to introduce you to a {colleague|friend} from the {design|research} "
                "team.",
                "Someone from the {analytics|platform} group {asked|wanted} to {meet|talk to} you.",
            ),
            (
                "They're {working|starting} on something {very|quite} similar to {project}.",
                "They {ran|led} a {migration|pilot} like {project} {before|last year} and hit the "
                "same problems.",
            ),
            (
                "A {short|quick} {chat|call} could save you both a lot of time.",
                "They {have|kept} {notes|a write-up} from that work that {might|could} help you.",
                "I think you'd {get on|work well together}.",
            ),
            ("I'll {leave|let} you two {to it|take it from here}.",),
        ),
    ),
    MailKind(
        ("Planning the {project} workshop", "{project} workshop ideas"),
        (
            (
                "I'm {starting|beginning} to plan the {project} workshop and wanted your input.",
                "The {project} workshop is {coming up|getting closer}, so {some|a few} thoughts.",
            ),
            (
                "I'd like {half|most} of it to be hands-on rather than slides.",
                "{Mixing|Pairing up} {new and old|junior and senior} folks {worked|went} well "
                "{before|last time}.",
                "We should {invite|include} {support|sales} this time, they {asked|have asked} "
                "twice.",
            ),
            (
                "Do you know a {room|space} with enough {whiteboards|wall space}?",
                "{Remote|Online} people {need|should get} a {proper|decent} way to join {in|as "
                "well}.",
                "{Snacks matter|Lunch matters} more than the agenda, {honestly|in my experience}.",
            ),
            (
                "Send me any {topics|ideas} you'd {want|like} covered.",
                "Who else {should|ought to} be in the room, {in your view|do you think}?",
                "I'll {put|pull} together a {rough|first} agenda {after that|once I hear back}.",
            ),
        ),
    ),
)

PERSONAL_MAILS: tuple[MailKind, ...] = (
    MailKind(
        ("Photos from the lake", "The lake pictures are here", "Photos!"),
        (
            (
                "I finally sorted through the photos from our {weekend|trip} at the lake.",
                "The {lake|trip} photos are {finally|at last} {sorted|edited}, {sorry|apologies} "
                "for the wait.",
            ),
            (
                "There is one of you {mid-laugh|mid-jump} that {might be|is} the best picture I "
                "have {ever taken|taken in years}.",
                "The {sunrise|sunset} ones came out better than I expected.",
            ),
            (
                "I put the {whole album|lot} in a shared folder, so {take|download} whatever you "
                "like.",
                "I'm {getting|printing} {one|a couple} framed for the {hallway|kitchen}.",
            ),
            ("We really {need|have} to do that trip again.",),
        ),
    ),
    MailKind(
        ("You have to read this", "Book recommendation", "A book for you"),
        (
            (
                "I just finished a {novel|book} that I think you would love.",
                "I've {found|got} your next {favourite|great} read, I'm {sure|certain} of it.",
            ),
            (
                "It is about two {sisters|brothers} who inherit a {lighthouse|bookshop} and "
                "uncover "
                "{family|old} secrets.",
                "It follows a {retired|young} {mapmaker|beekeeper} on one {strange|very long} "
                "summer.",
            ),
            (
                "The writing is {beautiful|lovely} without ever being slow.",
                "I {read|finished} the last {hundred pages|third} in one {go|sitting}.",
            ),
            (
                "I can lend you my copy {next time we meet|when I see you}.",
                "Tell me what you are reading these days, I need a new list.",
            ),
        ),
    ),
    MailKind(
        ("Party ideas", "Secret party plans", "Shh, a surprise"),
        (
            (
                "I am {putting together|planning} a {small|little} surprise party for my "
                "{sister|brother|mum} and could use your help.",
                "{Secret|Top secret} plan: a surprise party for my {sister|brother|dad}, and I "
                "need "
                "an accomplice.",
            ),
            (
                "Nothing fancy, just close friends, music and a {big|huge} cake.",
                "I'm thinking {fairy lights|paper lanterns}, a playlist and {far too much|lots of} "
                "food.",
            ),
            (
                "Would you be up for helping with the {decorations|food}?",
                "Could you {keep them busy|distract them} for an hour before?",
            ),
            (
                "Please keep it quiet, {they have|there's} no idea.",
                "I will send the details once the {venue|room} is confirmed.",
            ),
        ),
    ),
    MailKind(
        ("Long time no see", "Thinking of you", "Hello from me"),
        (
            (
                "It feels like {ages|forever} since we properly talked.",
                "I {was|got} thinking about you {today|the other day} and realised it's been "
                "{far too long|ages}.",
            ),
            (
                "Life has been busy, mostly in {good|nice} ways.",
                "{Things|Work} {got|have been} {hectic|a bit much}, but it's calming down now.",
            ),
            (
                "The garden is finally producing {tomatoes|beans|courgettes} and I am "
                "{unreasonably|ridiculously} proud.",
                "I've {taken up|started} {pottery|running|painting} {again|at last}, badly but "
                "happily.",
            ),
            (
                "How is your family doing?",
                "We should plan a proper catch-up soon, even a {phone|video} call would be great.",
            ),
        ),
    ),
    MailKind(
        ("Spare concert ticket", "Want to come to a concert?", "A concert?"),
        (
            (
                "I ended up with a spare ticket for the {folk|jazz|choir} concert at the old "
                "theater.",
                "{Guess|Guess what}: I have an extra {concert|gig} ticket {going spare|with your "
                "name on it}.",
            ),
            (
                "The band is one we listened to {constantly|all the time} back in school.",
                "{Apparently|Supposedly} the {new|latest} album is {even better|their best} live.",
            ),
            (
                "It would be so much fun to go together.",
                "No pressure at all, just let me know if you are interested.",
            ),
            ("{Snacks|Drinks} before the show are on me if you say yes.",),
        ),
    ),
    MailKind(
        ("Meet the new family member", "We got a dog!", "Puppy news"),
        (
            (
                "We adopted a rescue {dog|puppy} and I had to tell you right away.",
                "{Big|Huge} news: there's a {dog|small dog} living with us now.",
            ),
            (
                "She is shy, a little clumsy, and already steals {socks|slippers}.",
                "He {snores|sighs} like an old man and {follows|trails} me from room to room.",
            ),
            (
                "I have attached a photo so you can see the ears for yourself.",
                "The {vacuum cleaner|doorbell} still {startles|scares} {her|him}, but {less|less "
                "so} every day.",
            ),
            ("Come and meet {her|him|the little one} whenever you have time.",),
        ),
    ),
    MailKind(
        ("Hike this weekend?", "Up for a hike?", "Ridge trail"),
        (
            (
                "A few of us are planning a hike up the {ridge|forest} trail {this weekend|soon}.",
                "{Fancy|How about} a {long|proper} hike {soon|this weekend}? The {ridge|valley} "
                "trail is calling.",
            ),
            (
                "The forecast looks dry and the views should be {great|spectacular}.",
                "It is about {five|six} hours there and back, with a long stop at the top.",
            ),
            (
                "Bring {sturdy|good} shoes and plenty of water.",
                "I'll {bring|pack} {sandwiches|the flask} if someone else brings cake.",
            ),
            ("Reply if you want in and I will add you to the group chat.",),
        ),
    ),
    MailKind(
        ("Thank you", "Just a quick thank you", "Thanks, really"),
        (
            (
                "I just wanted to say thank you for everything {last time|the other week}.",
                "{Thank you|Thanks} {again|so much} for {listening|being there} when I needed it.",
            ),
            (
                "Your advice really helped me think things through.",
                "I {did|took} what you suggested and it {worked|helped} {out|a lot}.",
            ),
            (
                "It means a lot to have friends like you.",
                "I don't say it {often|enough}, but I'm lucky to know you.",
            ),
            (
                "The next {coffee|dinner} is definitely on me.",
                "Give my best to everyone at home.",
            ),
        ),
    ),
    MailKind(
        ("Recipe, as promised", "That recipe you asked for"),
        (
            (
                "Here is the {soup|stew|pie} recipe you asked about, as promised.",
                "{As promised|Finally}, the recipe from {dinner|the other night} {is below|is "
                "attached}.",
            ),
            (
                "The {secret|trick} is {toasting|roasting} the spices first.",
                "Don't skip the {lemon|herbs} at the end, it makes {all the difference|the dish}.",
            ),
            (
                "I {usually|always} double it and freeze half.",
                "It's {forgiving|flexible}, so swap in whatever vegetables you have.",
            ),
            ("Send me a photo if you make it!",),
        ),
    ),
    MailKind(
        ("Moving day help?", "Boxes and pizza"),
        (
            (
                "We're finally moving {flats|house} {soon|next month} and I'm {drowning|buried} "
                "in boxes.",
                "The move is {happening|on}, and I'm {recruiting|looking for} helpers.",
            ),
            (
                "Any chance you could help {carry|lift} things for a {few hours|morning}?",
                "We mostly need {strong arms|people} for the {sofa|bookshelves}.",
            ),
            (
                "Pizza and {cold drinks|gratitude} are {guaranteed|provided}.",
                "I'll {owe|owe you} one {forever|for life}, obviously.",
            ),
            ("No worries at all if you {can't|are busy}.",),
        ),
    ),
)

MAIL_GREETINGS: tuple[str, ...] = ("Hi {to},", "Hello {to},", "{to},", "Hi,")
# For a mail whose reader the caller does not name.
UNADDRESSED_GREETINGS: tuple[str, ...] = ("Hi,", "Hello,", "Hi there,")
WORK_CLOSINGS: tuple[str, ...] = ("Thanks", "Best", "Cheers", "Kind regards", "Many thanks")
PERSONAL_GREETINGS: tuple[str, ...] = ("Hi {user},", "Hey {user},", "Dear {user},", "{user}!")
PERSONAL_CLOSINGS: tuple[str, ...] = ("Love", "Cheers", "Talk soon", "Hugs", "Take care")
