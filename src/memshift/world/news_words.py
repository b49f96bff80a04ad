"""The words of the newsletters, apart from the code that composes them (`news`).

A template may hold `{a|b|c}`, a choice drawn afresh at each use (`{|very }` may add nothing,
choices nest), and `<name>`, a word of the grammar: a topic's own word, else a shared one. Some
words are bound once per section, so that a section tells one story: `<org>` and `<city>` (the
headline's), `<org2>`, `<org3>`, `<city2>`, `<city3>` (the others it mentions) and a topic's
`<subject>`. `<num>`, `<pct>`, `<money>` and `<few>` are figures drawn at each use.

Every topic defines the words the shared sentences use: `subject` (what the story is about, bound),
`metric` (a figure that rises or falls), `group` (the people it touches), `issue` (a worry),
`field` (the sector), `site` (a place in the city), `plan` (what the organization means to do,
after "to") and `quote` (what a spokesperson says, in the third person).

Sentences start with a capital letter as written; the composer lowers it when it puts a connector
in front. No word names a person, a weekday, a month, a year or a clock time, and none is a diet
or a way to travel to work (those are the person's facts).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Bound once per section, in this order: a topic's bound words may use the ones before them.
SECTION_NAMES: tuple[str, ...] = ("org", "city", "org2", "city2", "org3", "city3")


@dataclass(frozen=True)
class Topic:
    name: str
    headlines: tuple[str, ...]
    leads: tuple[str, ...]  # a section's first sentence: names its organization and city
    sentences: tuple[str, ...]
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    bound: tuple[str, ...] = ("subject",)


SHARED_WORDS: dict[str, tuple[str, ...]] = {
    "analysts": (
        "analysts at <org2>",
        "analysts in <city>",
        "economists who follow <city>",
        "industry watchers",
        "consultants who advise firms in <city>",
        "researchers at a university in <city2>",
        "market observers",
        "brokers in <city>",
        "credit analysts",
        "local business groups",
    ),
    "an_analyst": (
        "an analyst at <org2>",
        "one economist in <city>",
        "a consultant who advises several firms in <city>",
        "a researcher at a university in <city2>",
        "one broker in <city>",
        "a veteran industry watcher",
        "a banker familiar with the sector",
        "an adviser to the regional government",
    ),
    "spokes": (
        "a spokesperson for <org>",
        "a representative of <org>",
        "a senior manager at <org>",
        "an executive at <org>",
        "one of the directors of <org>",
        "a company spokesperson",
        "an official at the <city> council",
        "a person close to the board of <org>",
    ),
    "critics": (
        "critics",
        "residents' groups",
        "opposition councillors",
        "some local businesses",
        "a coalition of neighborhood associations",
        "skeptics",
        "a handful of rival firms",
        "campaigners",
    ),
    "source": (
        "<org2>",
        "the regional statistics office",
        "a trade association in <city>",
        "the <city> chamber of commerce",
        "a survey by <org2>",
        "the regional development agency",
        "an industry body",
        "the city's own planning department",
    ),
    "said": ("said", "noted", "argued", "pointed out", "added", "explained", "observed"),
    "says": ("says", "notes", "argues", "points out", "adds", "believes", "reckons"),
    "rose": ("rose", "climbed", "jumped", "increased", "grew", "edged up", "went up"),
    "fell": ("fell", "slipped", "dropped", "declined", "eased", "shrank", "went down"),
    "about": ("about", "roughly", "nearly", "close to", "just over", "just under", "some"),
    "horizon": (
        "over the coming months",
        "within the next few years",
        "by the end of next year",
        "before the end of the decade",
        "in the next budget cycle",
        "over the next two seasons",
        "later in the year",
        "in the coming quarters",
        "once the current phase is finished",
    ),
    "compared": (
        "compared with a year earlier",
        "from the previous quarter",
        "on the same period last year",
        "since the previous season",
        "over the past twelve months",
        "in the latest quarter",
        "over the last reporting period",
    ),
    "recently": ("recently", "lately", "in recent months", "this season", "over the past year"),
    "big": ("large", "sizable", "substantial", "significant", "considerable"),
    "cause": (
        "higher borrowing costs",
        "a strong local currency",
        "a wave of new competitors",
        "tighter planning rules",
        "a shortage of skilled workers",
        "weaker demand from abroad",
        "a run of poor weather",
        "cheaper energy",
        "a change in tax rules",
        "the end of a public subsidy",
    ),
    "context": (
        "costs across the sector are still rising",
        "investors are looking hard at every expansion plan",
        "the regional economy is only slowly regaining momentum",
        "several rivals are cutting back",
        "<city> is competing with <city2> for the same investment",
        "the council is reviewing its long-term budget",
        "labor remains scarce in much of the region",
        "demand has proved more resilient than many expected",
        "interest rates have started to come down",
    ),
    "spend": (
        "new equipment",
        "hiring and training",
        "upgrading existing sites",
        "software and data systems",
        "a new headquarters",
        "research",
        "repairs that had long been postponed",
        "marketing in new regions",
    ),
    "rumor": (
        "a possible merger with <org2>",
        "a sale of its <city2> business",
        "job cuts at its head office",
        "a bid for a rival",
        "a change at the top",
        "plans to list its shares",
        "a new partnership with <org3>",
    ),
    "people_close": (
        "people familiar with the plans",
        "two people close to the company",
        "sources in <city>",
        "people briefed on the talks",
        "insiders",
    ),
    "money": (
        "<few> million",
        "<num> million",
        "<few> billion",
        "more than <few> million",
        "close to <num> million",
    ),
    "outlook_good": (
        "the outlook is brighter than it has been for some time",
        "the worst of the slowdown is over",
        "the recovery has further to run",
        "demand will keep growing for several years",
        "the investment will pay for itself within a decade",
    ),
    "outlook_bad": (
        "the gains could fade quickly",
        "the figures flatter a weak underlying trend",
        "a single bad season could undo the progress",
        "the numbers depend on a few large customers",
        "rising costs will eat into the gains",
    ),
}

# Shared by every topic: the figures, the reported speech, the doubts and the comparisons a news
# story carries whatever it is about.
SHARED_SENTENCES: tuple[str, ...] = (
    "<analysts> {expect|predict|forecast} <metric> in <city> to {rise|grow|climb} by <about> <pct> "
    "<horizon>, {although|but} they {warn|caution} that <issue> could {slow|dent|limit} the "
    "{gains|recovery|progress}.",
    "{According to|Going by} figures from <source>, <metric> <rose> <pct> <compared>, the "
    "{strongest|fastest|largest} {gain|increase|rise} {in years|in a long while|on record|"
    "since comparable figures began}.",
    "Figures from <source> show <metric> {in <city>|across the region} <fell> <pct> <compared>, "
    "{a drop|a decline|a fall} that <analysts> {put down to|attribute to|link to} <cause>.",
    '"<quote>," <said> <spokes>.',
    '"<quote>," <spokes> {said|told reporters|said in a statement}, {adding|noting} that '
    "<org> {had|has} {no plans|no intention} to {slow down|change course|scale back}.",
    "Not everyone is {convinced|persuaded|impressed}: <critics> {argue|say|complain} that <issue> "
    "{has been|remains|is still} {ignored|underestimated|brushed aside} and that <group> "
    "{will|could} {bear the cost|pay the price|end up worse off}.",
    "<org> {declined to comment on|would not be drawn on|did not respond to questions about} "
    "{reports|speculation|rumors} of <rumor>, {but|though} <people_close> {said|suggested|"
    "indicated} that a decision could come <horizon>.",
    "The {move|decision|announcement} {comes|arrives} {at a time when|as|just as} <context>, "
    "{and|which means} <org> {will|is likely to} face {close|careful|tough} scrutiny.",
    "In <city2>, {by contrast|meanwhile|on the other hand}, <metric> <fell> <pct>, {a gap|a "
    "difference|a contrast} that <analysts> {put down to|attribute to|blame on} <cause>.",
    "For <org>, the stakes are {high|considerable|real}: <city> {accounts for|brings in|"
    "represents} <about> <pct> of its {revenue|business|sales}, and {any setback there|a weak "
    "season there|a slowdown in the city} would {show up quickly|be felt at once} in its results.",
    "<org> {said|confirmed|announced} it would {invest|put|commit} <money> in <city> <horizon>, "
    "{with most of it|with much of the money|with the bulk of it} {going to|set aside for|"
    "earmarked for} <spend>.",
    "The {project|plan|scheme} has {already|so far} cost <pct> more than {first|originally} "
    "{budgeted|estimated|planned}, {a point|a fact} that <critics> {have seized on|keep raising|"
    "are quick to mention}.",
    "<an_analyst> <said> that <outlook_good>, {provided that|as long as|so long as} <issue> "
    "{does not get worse|stays under control|is dealt with soon}.",
    "{Others|Some|A few} are {less|more} {cautious|optimistic|sanguine}, {warning|arguing|noting} "
    "that <outlook_bad>.",
    "{Still|Even so|All the same}, <an_analyst> <said> the {figures|numbers|results} for <city> "
    "{look|are} {better|stronger|healthier} than {those|the ones} {in <city2>|elsewhere in the "
    "region|for the sector as a whole}.",
    "{There is|There has been} {growing|renewed|quiet} {interest|pressure|debate} {in|around} "
    "<city> over <subject>, and <org> {has positioned itself|is trying to position itself|"
    "wants to be seen} as {a natural partner|the obvious choice|a serious contender}.",
    "{The company|<org>} {already employs|employs|has} <about> <num> {people|staff} in <city>, "
    "{and|while} {its|the firm's} {largest|main|second-largest} {site|office|base} {outside the "
    "city|abroad} is in <city2>.",
    "A {survey|poll|study} of <num> <group> {in <city>|across the region} {found|suggested|showed} "
    "that <pct> {see|regard|view} <issue> as {their biggest worry|the main problem|a serious "
    "concern}.",
    "<org2>, {a rival|a competitor|a long-standing partner} of <org>, is {watching|following} "
    "{closely|carefully}, having {tried|attempted} {a similar|a comparable} {plan|move|"
    "venture} in <city2> {with mixed results|that was later scaled back|to little effect}.",
    "The {details|terms|figures} have not been {published|made public|disclosed}, {but|though} "
    "<people_close> put the {value|cost|total} at <about> <money>.",
    "{Officials|Planners|Council officials} in <city> {say|insist|maintain} that <subject> "
    "{will|should} {benefit|help} <group> {most of all|first|more than anyone}, {even if|although|"
    "though} <issue> {remains|is still} {a concern|a sticking point|unresolved}.",
    "{Local|Regional|National} {media|newspapers|broadcasters} in <city2> have {followed|"
    "covered|tracked} the {story|plans|debate} {closely|with interest}, {since|because} the "
    "{city|region} {faces|has faced} {a similar|the same} {choice|question|problem}.",
    "{Much|A lot|A great deal} {depends|will depend|hinges} on <metric>, {which|a figure that} "
    "<rose> <pct> <compared> {but|yet} {remains|is still} {below|short of} its {earlier|former|"
    "previous} peak.",
    "{By some estimates|By one estimate|On some counts}, <field> {supports|sustains|accounts for} "
    "<about> <num> jobs {in and around|across|in} <city>, {more than|almost twice as many as|"
    "roughly as many as} {in <city2>|a decade ago|the city's finance sector}.",
    "The {next|coming} {few months|months|seasons} {will show|should reveal|will test} whether "
    "<org> can <plan> {without|while avoiding} <issue>.",
    "<org> has {said|made clear|signalled} that it {wants|intends|hopes} to <plan>, {a goal|"
    "an ambition|a target} that <analysts> {call|describe as|consider} {realistic|ambitious|"
    "achievable but tight}.",
    "{Partly as a result|As a result|Partly because of this}, {shares in|the bonds of} "
    "<org> {have|had} {gained|risen|firmed} <pct> <recently>, {outpacing|beating|lagging} "
    "{the wider market|most of its peers|<org2>}.",
    "{Behind|Beneath} the {headline|overall} {figures|numbers}, {the picture|the story} is "
    "{more mixed|less tidy|more complicated}: <metric> <rose> in <site> {but|while} it <fell> "
    "{elsewhere in <city>|on the outskirts|in the older districts}.",
    "{Some|Several|A number of} {smaller|younger|independent} {firms|operators|businesses} "
    "{in <city>|around <site>} {worry|fear|complain} that <org> {will|could} {crowd them out|"
    "squeeze their margins|draw away their customers}.",
    "{Union representatives|Staff representatives|Employee groups} at <org> {have asked|are "
    "pressing|want} {for|to see} {guarantees|assurances|details} {about|on} {jobs|working hours|"
    "pay} {before|ahead of} {the next phase|any expansion|the final decision}.",
    "{For now|At this point|For the moment}, the {mood|atmosphere|feeling} {in|around} <site> is "
    "{upbeat|cautiously hopeful|businesslike}, and <group> {are still|are already|keep} "
    "{turning out|showing up|coming} in {good|large|healthy} numbers.",
    "<org3> {is also|has also been} {involved|active} {in the city|in <city>|in the sector}, "
    "{though|but} on a {smaller|more modest|much smaller} scale, with <about> <few> {sites|"
    "contracts|projects} {so far|to date|at present}.",
    "{Observers|Commentators|Analysts} {note|point out} that <city> is not {alone|unique|the only "
    "case}: {in <city2>|across the region|in cities such as <city2> and <city3>}, <metric> "
    "{has followed|has taken|shows} {a similar|much the same|a comparable} {path|course|trend}.",
    "If {the plan|everything} goes {ahead|to plan|as hoped}, <group> {in <city>|around <site>} "
    "{could|should} {see|notice|feel} {the first|the earliest|some} {changes|benefits|effects} "
    "<horizon>.",
    "{The board|Management|The leadership} of <org> {has|is said to have} {approved|signed off "
    "on|backed} {the plan|the budget|the next step}, {according to|said} <people_close>.",
)

# Said of a short sentence before its full stop: where its news comes from.
TAILS: tuple[str, ...] = (
    ", according to <source>",
    ", according to {figures|data|a report} from <source>",
    ", <analysts> {said|say|reckon}",
    ", {figures|data|estimates} from <source> {show|suggest|indicate}",
    ", {officials|the council|planners} in <city> {said|confirmed|estimate}",
    ", {the company|<org>} {said|confirmed|added} in {a statement|its latest update|a briefing}",
    ", {a report|a study|a review} {by|from} <org2> {found|showed|concluded}",
    ", {people familiar with the matter|<people_close>} {said|added}",
)

CONNECTORS: tuple[str, ...] = (
    "Meanwhile",
    "Elsewhere",
    "Still",
    "Even so",
    "At the same time",
    "In the meantime",
    "Separately",
    "On top of that",
    "In practice",
    "For its part",
    "Looking ahead",
    "Beyond that",
    "Perhaps tellingly",
    "Either way",
)

TOPICS: tuple[Topic, ...] = (
    Topic(
        "business",
        headlines=(
            "<org> {reports|posts} a {stronger|better than expected|mixed} quarter as demand in "
            "<city> {recovers|holds up|steadies}",
            "{Shares|Investors} {rally|cheer|wobble} as <org> {lifts|trims|reaffirms} its outlook",
            "<org> {weighs|considers|explores} a sale of its <city> {unit|operations|division}",
            "{Profits|Margins|Earnings} at <org> {squeezed|lifted|held back} by <cause>",
            "<org> {names|appoints|picks} a new chief executive to {steer|lead|run} its <city> "
            "{push|expansion|turnaround}",
            "<org> and <org2> {agree|seal|finalize} a {supply|distribution|joint venture} deal",
            "Why <org> is {betting|doubling down|staking its future} on <city>",
            "<org> {cuts|trims|freezes} costs {after|as|following} a {weak|difficult|slow} "
            "season in <city>",
        ),
        leads=(
            "<org> {reported|posted|announced} <results> on {the strength of|the back of|the "
            "basis of} {steady|improving|resilient} demand in <city>, {where|as} <metric> <rose> "
            "<pct> <compared>.",
            "{Results|Figures} published by <org> {showed|pointed to} <results>, {with|and} its "
            "<city> {business|operations|division} {accounting for|contributing} <about> <pct> of "
            "{the total|group revenue|overall sales}.",
            "<org>, which {is based|has its head office|was founded} in <city>, {surprised|"
            "reassured|disappointed} investors {with|by reporting} <results>, and {said|added} it "
            "would press ahead with <subject>.",
        ),
        sentences=(
            "{Revenue|Turnover|Sales} {came in at|reached|totaled} <money>, {up|an increase of} "
            "<pct> <compared>, {while|and} {operating profit|the operating margin|net income} "
            "{improved|widened|held steady} {thanks to|because of|on the back of} "
            "{lower freight costs|a leaner head office|higher prices|a better product mix}.",
            "The {chief financial officer|finance chief|management team} {told|assured|reminded} "
            "{investors|analysts} that {the company|<org>} {would|intends to} {keep|maintain} "
            "{a tight grip on|close control over|discipline on} {costs|spending|hiring} "
            "<horizon>.",
            "{Orders|Bookings|The order book} {from|across} {mid-sized customers|large clients|"
            "public-sector buyers} {in <city>|in the region} <rose> <pct>, {a sign that|"
            "suggesting that|evidence that} {demand|confidence|spending} {is returning|has "
            "stabilized|is holding up}.",
            "{Shares in|Stock in} <org> <rose> <pct> {in early trading|after the announcement|by "
            "the close}, {while|as} {those of|shares in} <org2> <fell> {slightly|modestly|"
            "sharply}.",
            "{The group|<org>} {also|separately} {confirmed|announced|said} {a|an} {dividend|"
            "share buyback|debt refinancing} {worth|of} <money>, {which|a step that} "
            "{pleased|reassured|surprised} {long-term holders|income investors|the market}.",
            "{Smaller rivals|Competitors|Peers} {such as|including|like} <org3> have {started|"
            "begun|chosen} to {compete on service|cut prices|chase the same customers}, {a shift|"
            "a change} that could {squeeze|pressure|erode} margins {across the sector|in <city> "
            "and beyond|for everyone}.",
            "{Management|Executives|The board} {expect|see|forecast} {full-year|annual} "
            "{revenue|growth|earnings} {of|at|near} <pct> {above|over|ahead of} the previous "
            "year, {slightly|a little|well} {above|below|ahead of} {what|the level} "
            "<analysts> {had expected|had pencilled in|had forecast}.",
        ),
        words={
            "subject": (
                "its {expansion|growth} plan for the region",
                "its {restructuring|turnaround} program",
                "a {new|revised|simpler} strategy",
                "its push into {new markets|services|online sales}",
            ),
            "results": (
                "a {stronger|sharper|healthier} rise in {profit|earnings} than {expected|forecast}",
                "a {steady|modest|solid} increase in {revenue|sales|turnover}",
                "a {dip|fall|slide} in {quarterly|half-year} {profit|earnings}",
                "{record|unusually strong|surprisingly firm} {orders|bookings}",
            ),
            "metric": ("revenue", "operating profit", "order intake", "sales", "net income"),
            "group": ("shareholders", "suppliers", "staff", "business customers", "investors"),
            "issue": (
                "rising wages",
                "weak export demand",
                "higher interest payments",
                "currency swings",
                "slow payment by large clients",
            ),
            "field": ("the corporate sector", "professional services", "local manufacturing"),
            "site": ("the business district", "the old port area", "the eastern industrial zone"),
            "plan": (
                "grow its customer base",
                "expand into <city2>",
                "cut its debt",
                "double its sales abroad",
                "simplify its product range",
            ),
            "quote": (
                "the results show that the strategy is working, even in a tough market",
                "the company has never had a stronger order book, and that gives it room to invest",
                "costs are under control and the balance sheet is in good shape",
                "it was a difficult quarter, but the underlying business is sound",
                "customers in <city> are spending again, and the firm is ready for them",
            ),
        },
    ),
    Topic(
        "transport",
        headlines=(
            "<city> {approves|backs|green-lights} <subject>, with <org> {in line for|bidding for|"
            "lined up for} the contract",
            "{Delays|Costs|Questions} mount over <subject> in <city>",
            "<org> {wins|secures|lands} a {contract|deal|tender} to {build|run|upgrade} <subject>",
            "{Riders|Passengers|Travelers} in <city> {face|brace for|welcome} {fare changes|"
            "new timetables|longer journeys} as <subject> {opens|takes shape|nears completion}",
            "<subject> {opens|will open|is due to open} {early|late|on schedule}, <org> says",
            "Airport expansion in <city> draws {interest|bids|scrutiny} from <org>",
        ),
        leads=(
            "<org> {has been chosen|was selected|has won the right} to {build|operate|upgrade} "
            "<subject>, {the|a} {project|scheme} that {transport officials|planners|the council} "
            "in <city> {describe as|call|consider} {the most important|the largest|the most "
            "ambitious} {of its kind|in a generation|in decades}.",
            "Work on <subject> in <city> {is|has been} {running|moving|progressing} {ahead of|"
            "behind|roughly on} schedule, according to <org>, which {holds|won|manages} "
            "{the main|the principal|the largest} contract.",
            "The {regional transit authority|transport department|city council} in <city> "
            "{has signed|has finalized|is finishing} {a deal|an agreement|a contract} with <org> "
            "{for|covering} <subject>.",
        ),
        sentences=(
            "<subject> is expected to {carry|handle|serve} <about> <num> passengers a day, "
            "{according to|based on} {estimates|projections|forecasts} from the {regional transit "
            "authority|city's planners|operator}, which {also promised|has also promised|also "
            "pledged} {quieter|faster|more frequent} {services|connections|trips}.",
            "{Fares|Ticket prices|Season tickets} {on the network|across the city|in <city>} "
            "{will|are set to} {rise|go up|increase} by <pct>, {a move|a change|an increase} "
            "that {passenger groups|rider associations|consumer groups} {have criticized|oppose|"
            "say is too steep}.",
            "The {airline|carrier|operator} {said|announced} it would add <few> {flights|routes|"
            "departures} {a season|a week|per week} between <city> and <city2>, {citing|pointing "
            "to} {strong demand|rising bookings|a rebound in business travel}.",
            "{Ferry|Harbor|Port} {operators|authorities} in <city2> {expect|forecast} "
            "{container traffic|passenger numbers|freight volumes} to {rise|grow} by <pct> "
            "{once|after|as soon as} the {deepened channel|new terminal|upgraded quay} "
            "{opens|is in service|is finished}.",
            "{Engineers|Crews|Contractors} {working|employed} {on the line|on the site|"
            "underground} have {already|so far} {laid|installed|completed} <about> <few> "
            "{kilometers of track|new stations|signal sections}, <about> <pct> of {the total|"
            "what is planned|the full scheme}.",
            "{Cycling groups|Pedestrian campaigners|Neighborhood associations} {welcome|"
            "support|cautiously back} the plan {but|although they} {want|are asking for|insist "
            "on} {wider pavements|safer crossings|more greenery} {along|near|around} <site>.",
            "{Traffic|Congestion|Travel times} {on the ring road|in the center|across <city>} "
            "<fell> <pct> {during the trial|in the first weeks|after the changes}, {the city "
            "said|officials said|according to the council}.",
        ),
        words={
            "subject": (
                "the {new|long-planned|extended} tram line to <site>",
                "the {airport|harbor} rail link",
                "the {second|new|northern} metro line",
                "the {renovated|expanded} central station",
                "the {new|upgraded} ferry terminal",
                "the {electric|new} coach fleet",
            ),
            "metric": ("ridership", "passenger numbers", "fare revenue", "on-time performance"),
            "group": (
                "riders",
                "residents along the route",
                "regular travelers",
                "shop owners near the stations",
                "tourists",
            ),
            "issue": (
                "construction noise",
                "years of roadworks",
                "cost overruns",
                "the loss of parking spaces",
                "higher fares",
                "unreliable signalling",
            ),
            "field": ("public transport", "the transport sector", "the aviation industry"),
            "site": (
                "the eastern suburbs",
                "the university district",
                "the old docks",
                "the northern neighborhoods",
                "the central station",
            ),
            "plan": (
                "run more frequent services",
                "electrify its fleet",
                "extend the network to <city2>",
                "cut journey times in half",
                "win the next round of contracts",
            ),
            "quote": (
                "riders want reliability more than anything, and that is where the money is going",
                "the network was built for a much smaller city, and it shows",
                "every extra connection makes the whole network more useful",
                "the disruption is temporary, but the benefits will last for decades",
                "the line should have been built years ago",
            ),
        },
    ),
    Topic(
        "culture",
        headlines=(
            "{Festival season|A packed program|A new season} brings {record|bigger|younger} "
            "crowds to <city>, with <org> as {lead|main} sponsor",
            "<subject> in <city> gets a {boost|lifeline|fresh start} from <org>",
            "A {quieter|busier|strange} year for {galleries|theaters|concert halls} in <city>, "
            "but <org> keeps {funding|backing} new work",
            "<org> {signs on|returns|steps in} as {patron|sponsor|partner} of <subject>",
            "Inside <subject>, the {show|event|program} {everyone|the whole city} in <city> is "
            "talking about",
            "{Ticket sales|Visitor numbers|Audiences} {soar|climb|slip} at <subject>",
        ),
        leads=(
            "<subject> in <city> {drew|attracted|welcomed} <about> <num> visitors {in its first "
            "weeks|over its opening weekend|during its first season}, {thanks in part to|helped "
            "by|backed by} {funding|sponsorship|a grant} from <org>.",
            "<org> {has agreed|has signed on|is stepping in} to {support|sponsor|fund} "
            "<subject> in <city>, {a deal|an arrangement|a partnership} {worth|said to be worth|"
            "valued at} <about> <money>.",
            "{Organizers|Curators|Programmers} of <subject> in <city> {say|report|expect} "
            "{record|strong|steady} {interest|attendance|demand}, {and|while} <org> "
            "{has extended|has renewed|is expanding} its {sponsorship|support}.",
        ),
        sentences=(
            "{The program|The lineup|This season's program} {mixes|combines|balances} "
            "{well-known|classic|popular} {works|titles|names} with {commissions|premieres|new "
            "pieces} from {younger|emerging|local} {artists|composers|writers}, {and|while} "
            "{several|a number of|a few} {events|performances|screenings} are free.",
            "{Ticket sales|Advance bookings|Visitor numbers} were up <pct> {compared with|on|"
            "against} the previous {edition|exhibition|season}, {organizers said|curators said|"
            "the venue said}, {and|while} {several|many|some} {guided tours|performances|"
            "workshops} sold out {within hours|almost at once|well in advance}.",
            "{More than|Nearly|Over} <num> {prints|paintings|objects|photographs} {are on loan|"
            "have been borrowed|arrived} from {private collections|museums|archives} {across the "
            "continent|in <city2>|abroad}, {many of them|some of them|a few of them} {shown|"
            "exhibited} {for the first time|publicly for the first time|together for the first "
            "time}.",
            "{The book fair|The film festival|The design week} {in <city2>|nearby in <city2>} "
            "{drew|attracted} {publishers|producers|studios} from {across the continent|around "
            "the world|the whole region}, {and|while} <about> <num> {titles|films|projects} "
            "{changed hands|found buyers|were licensed}.",
            "{Independent|Smaller|Neighborhood} {venues|galleries|cinemas} in <city> {say|warn|"
            "report} that <issue> {has|have} {left them|made them} {struggling|stretched|more "
            "dependent on sponsors}, {with|and} <pct> {reporting|saying they face} {losses|"
            "shortfalls|a deficit}.",
            "{Critics|Reviewers|Early visitors} {praised|singled out|were struck by} the "
            "{staging|lighting|curation|architecture}, {though|but} {some|a few} {found|"
            "thought|called} the {program|layout|schedule} {crowded|uneven|too long}.",
            "The {city|venue|festival} {also|plans to} {runs|run|offers|offer} {late openings|"
            "night markets|street performances|school visits} {during the quieter months|"
            "throughout the season|in the summer}, {aimed at|meant for|designed for} {families|"
            "students|first-time visitors}.",
        ),
        words={
            "subject": (
                "the {reopened|renovated|expanded} {city|national|modern art} museum",
                "the {annual|new|long-running} {jazz|film|literature|street art} festival",
                "the {new|restored} concert hall",
                "a {major|large|long-awaited} retrospective of {postwar photography|modern "
                "design|early cinema}",
                "the {harbor|riverside|old town} arts quarter",
            ),
            "metric": ("attendance", "ticket revenue", "visitor numbers", "membership"),
            "group": ("visitors", "artists", "local audiences", "students", "families"),
            "issue": (
                "rising rents for studios",
                "cuts to public arts funding",
                "higher insurance costs",
                "a shortage of rehearsal space",
                "competition from streaming",
            ),
            "field": ("the arts", "the cultural sector", "the creative industries"),
            "site": ("the museum district", "the old town", "the riverside", "the harbor front"),
            "plan": (
                "commission more new work",
                "reach younger audiences",
                "keep ticket prices low",
                "tour the program to <city2>",
                "open a second venue",
            ),
            "quote": (
                "culture is not a luxury for a city like <city>, it is part of how it earns a "
                "living",
                "the audience is younger and more curious than anyone expected",
                "the sponsorship buys time, and time is what the arts need most",
                "people came for one exhibition and stayed for the whole district",
            ),
        },
    ),
    Topic(
        "housing",
        headlines=(
            "The housing market in <city> {cools|stalls|heats up again}, says a new study from "
            "<org>",
            "<org> {signs|agrees|takes} a long lease on <subject> in <city>",
            "<city> council backs a bid from <org> to redevelop <subject>",
            "{Rents|House prices|Office vacancies} in <city> {climb|ease|hit a new high} as "
            "<subject> {takes shape|stalls|fills up}",
            "Housing costs in <city> weigh on hiring plans at <org>",
            "<org> {bets|wagers} on {conversions|new apartments|mixed-use towers} in <city>",
        ),
        leads=(
            "<org> {has won approval|has been given the go-ahead|has secured permission} to "
            "{redevelop|convert|rebuild} <subject> in <city>, {a scheme|a project} that "
            "{will|is set to} {add|create|deliver} <about> <num> homes.",
            "{House prices|Rents|Asking rents} in <city> <fell> <pct> <compared>, according to a "
            "study from <org>, {the first|a rare|an unusual} {decline|drop|fall} {in a long "
            "while|for several years|since the boom began}.",
            "{Demand for|Interest in} <subject> in <city> {has|is said to have} {outstripped|"
            "exceeded|surpassed} {expectations|supply|forecasts}, <org> {said|reported|told "
            "investors}.",
        ),
        sentences=(
            "{Landlords|Property owners|Developers} in <city> have {raised|lifted|increased} "
            "{average|typical|median} {office|apartment|shop} rents by <pct>, {pushing|"
            "forcing|nudging} {some|many|a growing number of} {younger firms|tenants|families} "
            "{toward|to} {the edge of town|shared spaces|cheaper districts}.",
            "{Higher borrowing costs|Stricter lending rules|Rising mortgage rates} {kept|have "
            "kept|are keeping} {buyers|first-time buyers|investors} {cautious|on the sidelines|"
            "hesitant}, {and|while} {the number of sales|transactions|completed deals} <fell> "
            "<pct>.",
            "{Brokers|Agents|Letting agents} {report|say|note} that {tenants|buyers|firms} are "
            "{negotiating|asking for|demanding} {longer rent-free periods|lower deposits|"
            "flexible leases}, {and|while} <org2> {reportedly|is said to have} {secured|"
            "negotiated|won} {one of the largest|an unusually generous|a record} {such deals|"
            "packages|concessions}.",
            "The {plan|scheme|project} {includes|sets aside|promises} <pct> {affordable|"
            "social|below-market} homes, {a share|a figure|a proportion} that <critics> {call|"
            "consider|describe as} {too low|inadequate|a good start}.",
            "{Construction|Building} {costs|prices} {in the region|around <city>} have "
            "{risen|climbed|gone up} <pct> <recently>, {which|and that} {has|is} {delayed|"
            "slowing|stalling} {several|a number of|dozens of} {projects|developments|schemes}.",
            "{Office vacancy|The vacancy rate|Empty floor space} in <city2> {stands at|reached|"
            "rose to} <pct>, {prompting|leading} {owners|developers|the council} to "
            "{consider|explore|approve} {converting|turning} {older|empty|unused} {towers|"
            "blocks|buildings} into {apartments|student housing|hotels}.",
        ),
        words={
            "subject": (
                "the {old|disused|former} {docks|rail yards|printing works}",
                "a {landmark|glass|historic} tower {near|on} <site>",
                "the {former|empty} {hospital|brewery|textile mill} site",
                "a {new|planned} block of {rental|family|student} apartments",
            ),
            "metric": ("house prices", "average rents", "the vacancy rate", "new construction"),
            "group": (
                "renters",
                "first-time buyers",
                "young families",
                "small landlords",
                "tenants",
            ),
            "issue": (
                "the cost of land",
                "slow planning decisions",
                "rising interest rates",
                "a shortage of builders",
                "strict height limits",
            ),
            "field": ("the property market", "construction", "real estate"),
            "site": (
                "the waterfront",
                "the old town",
                "the inner suburbs",
                "the former industrial belt",
            ),
            "plan": (
                "build more rental homes",
                "convert empty offices",
                "sell part of its portfolio",
                "bring down its vacancy rate",
                "expand into <city2>",
            ),
            "quote": (
                "the city needs homes far more than it needs empty offices",
                "buyers are waiting for rates to fall, and the market is waiting with them",
                "the demand is there, the difficulty is building fast enough",
                "prices had risen too far, too fast, and a pause is healthy",
            ),
        },
    ),
    Topic(
        "food",
        headlines=(
            "Restaurants in <city> report a {busy|record|patchy} season, <org> survey finds",
            "<subject> {opens|returns|expands} in <city> with backing from <org>",
            "{Chefs|Cooks|Bakers} in <city> {shorten menus|raise prices|rethink dishes} as "
            "{ingredient|energy|staff} costs {climb|bite}",
            "<org> {brings|takes} its {bakeries|kitchens|food halls} to <city>",
            "What <subject> says about the way <city> eats now",
        ),
        leads=(
            "<subject> in <city> {has|is said to have} {drawn|attracted|pulled in} <about> "
            "<num> diners {a week|in its first month|since opening}, {according to|said} <org>, "
            "which {owns|runs|financed} the {site|venue|building}.",
            "A {survey|study|poll} {by|from} <org> {found|shows|suggests} that {restaurants|"
            "cafes|food stalls} in <city> {had|enjoyed|saw} {a busy|a record|an uneven} season, "
            "with {takings|covers|bookings} up <pct>.",
            "<org> {is opening|has opened|will open} <subject> in <city>, {its|the company's} "
            "{first|largest|third} {venture|site|outlet} {outside|beyond} <city2>.",
        ),
        sentences=(
            "{Chefs|Restaurant owners|Cooks} in <city> say that {rising|higher} {ingredient|"
            "energy|staff} {prices|costs} have {forced|pushed|led} them to {shorten their menus|"
            "raise prices|drop some dishes}, with {some|certain} {plates|dishes} costing <pct> "
            "more to {prepare|make} than {a year ago|before}.",
            "The {restaurant guide|food guide|dining listing} published by <org2> {lists|counts|"
            "includes} <num> new {openings|venues|places} in <city>, from {small|tiny} "
            "{neighborhood bakeries|noodle bars|wine bars} to {elaborate|formal|ambitious} "
            "{tasting-menu|fine dining} rooms with {long|endless} waiting lists.",
            "{Market traders|Stallholders|Grocers} {near|around|at} <site> {report|say|notice} "
            "that {shoppers|customers|regulars} are {buying less but better|comparing prices "
            "more|trading down to cheaper cuts}, {and|while} {sales of|demand for} {fresh fish|"
            "seasonal fruit|local cheese} <rose> <pct>.",
            "{Suppliers|Farmers|Wholesalers} {around|outside} <city> {benefit|stand to gain|"
            "expect to benefit} {from|because of} the {trend|shift|boom}, {since|because} "
            "{most|many|several} of the {new|busiest} {kitchens|venues} {buy|source} "
            "{locally|within the region|directly from growers}.",
            "{Staff|Kitchen staff|Waiters} remain {hard|difficult} to {find|hire|keep}, {and|so} "
            "{wages|pay|hourly rates} in {the sector|hospitality|the trade} have {risen|climbed} "
            "<pct>, {faster than|well ahead of|roughly in line with} {prices on the menu|"
            "inflation|the rest of the economy}.",
            "{Food delivery|Takeaway|Online ordering} {orders|sales|volumes} {in <city>|across "
            "the city} <fell> <pct> {as|while|after} {diners|customers} {returned to|went back "
            "to|chose} {sit-down meals|eating out|their local cafes}.",
        ),
        words={
            "subject": (
                "a {new|large|covered} food hall {near|beside} <site>",
                "the {revived|restored|enlarged} {fish|farmers'|night} market",
                "a {chain|string} of {neighborhood|corner} bakeries",
                "a {rooftop|riverside|courtyard} restaurant",
            ),
            "metric": ("restaurant bookings", "takings", "food prices", "footfall at the markets"),
            "group": ("diners", "market traders", "restaurant owners", "local growers", "chefs"),
            "issue": (
                "rising ingredient prices",
                "a shortage of kitchen staff",
                "higher energy bills",
                "late payments from delivery platforms",
                "stricter hygiene inspections",
            ),
            "field": ("hospitality", "the restaurant trade", "the food sector"),
            "site": ("the old market square", "the harbor", "the station quarter", "the old town"),
            "plan": (
                "open more kitchens",
                "buy more from local farms",
                "keep prices steady",
                "teach its own cooks",
                "expand into <city2>",
            ),
            "quote": (
                "people still want to eat out, they just think harder about where",
                "good produce is getting dearer, and diners can taste the difference",
                "the market has always been the heart of the neighborhood",
                "a full dining room does not mean a profitable one",
            ),
        },
    ),
    Topic(
        "travel",
        headlines=(
            "<org> and the <city> tourism board launch a joint campaign",
            "{Hotels|Guesthouses|Short-term rentals} in <city> {fill up|hit record occupancy|"
            "cut rates} as {visitors return|the season peaks|bookings slow}",
            "<city> {counts|weighs|tallies} the {benefits|costs} of <subject>",
            "<org> {adds|launches|restores} {routes|flights|sailings} between <city> and <city2>",
            "Where {visitors|travelers|tourists} to <city> are {staying|spending|heading} "
            "{now|this season}",
        ),
        leads=(
            "{Hotel occupancy|Bookings|Overnight stays} in <city> {reached|hit|climbed to} <pct> "
            "during <subject>, the {highest|strongest|best} {level|figure|result} since the "
            "{local|regional} tourism office {began|started} publishing {regular figures|data|"
            "monthly numbers}, according to <org>.",
            "<org> and the tourism board of <city> {have launched|are launching|unveiled} "
            "{a joint campaign|a promotion|a marketing push} {built around|centered on|to "
            "promote} <subject>.",
            "<subject> {brought|drew|pulled} <about> <num> {extra|additional|more} visitors to "
            "<city>, {estimates|figures} from <org> {show|suggest}.",
        ),
        sentences=(
            "Officials in <city2> were more {cautious|guarded|reserved}, noting that {visitor "
            "numbers|overnight stays|arrivals} there {remain|are still} <about> <pct> below "
            "their {previous|earlier|former} peak {despite|in spite of} {a busy summer|new "
            "attractions|heavy promotion}.",
            "Visitors to <city> this season will find {a renovated waterfront|new cafes|"
            "restored squares}, {a dozen|several|a handful of} {new|reopened} {galleries|"
            "guesthouses|shops} and {a public library|a botanical garden|a museum} that "
            "{stays open late|opens late into the evening|keeps long hours}.",
            "{Tourism officials|The tourism office|Hoteliers} in <city> {credit|thank|point to} "
            "{a series of|a string of|several} {night markets|street festivals|food fairs} for "
            "{attracting|bringing in} <num> extra visitors {during the quieter part of the "
            "year|outside the peak season|in the off season}.",
            "{Average room rates|Nightly prices|Hotel rates} {in <city>|in the center} <rose> "
            "<pct> <compared>, {and|while} {short-term rentals|guesthouses|hostels} "
            "{reported|saw|recorded} {similar|smaller|larger} {gains|increases}.",
            "{Residents|Some neighbors|Locals} {in|around} <site> {complain|worry|grumble} "
            "{about|over} {crowds|noise|rising prices}, {and|so} the council is {considering|"
            "studying|weighing} {a visitor tax|limits on rentals|new rules for tour groups}.",
            "{Cruise|Coach tour|Day-trip} {arrivals|passengers|visitors} {account for|make up|"
            "represent} <about> <pct> of {all|total} visitors {but|yet} {only|barely} "
            "<pct> of {spending|local spending|hotel nights}, {a study|a report|an analysis} "
            "by <org2> found.",
        ),
        words={
            "subject": (
                "the {summer|winter|spring} festival season",
                "the {new|relaunched|expanded} {coastal|mountain|wine} route",
                "a {run|series} of {international|large} {conferences|trade fairs}",
                "the {reopened|restored} old town",
            ),
            "metric": ("hotel occupancy", "visitor numbers", "overnight stays", "tourist spending"),
            "group": (
                "visitors",
                "hotel owners",
                "tour operators",
                "residents of the old town",
                "guesthouse owners",
            ),
            "issue": (
                "overcrowding in the old town",
                "a shortage of hotel staff",
                "rising room rates",
                "the strength of the local currency",
                "pressure on housing from short-term rentals",
            ),
            "field": ("tourism", "the hotel trade", "the travel industry"),
            "site": ("the old town", "the waterfront", "the cathedral quarter", "the beachfront"),
            "plan": (
                "spread visitors across the year",
                "attract more conference business",
                "open two more hotels",
                "link <city> with <city2>",
                "win back long-haul travelers",
            ),
            "quote": (
                "visitors are staying longer and spending more, which is exactly the goal",
                "the city wants fewer day-trippers and more guests who stay the night",
                "the season now starts earlier and ends later than it used to",
                "<city> is still a bargain compared with <city2>, and travelers know it",
            ),
        },
    ),
    Topic(
        "energy",
        headlines=(
            "Water and energy upgrades in <city> open doors for <org>",
            "<org> {switches on|completes|breaks ground on} <subject> near <city>",
            "{Energy bills|Power prices|Heating costs} in <city> {ease|fall|climb} as <subject> "
            "{comes online|is delayed|expands}",
            "<org> and <org2> {team up|join forces|partner} on <subject>",
            "Can <subject> keep the lights on in <city>",
        ),
        leads=(
            "<org> {has completed|has started work on|is finishing} <subject> near <city>, "
            "{which|a project that} {will|is expected to} supply {enough power for|electricity "
            "to} <about> <num> homes.",
            "{Energy prices|Wholesale power prices|Gas prices} in <city> <fell> <pct> <compared>, "
            "{giving|offering|handing} {manufacturers|households|businesses} {some|welcome|much-"
            "needed} relief, {and|while} <org> {moved ahead|pressed ahead|went ahead} with "
            "<subject>.",
            "The {city utility|regional grid operator|water authority} in <city> {has chosen|"
            "selected|hired} <org> to {build|deliver|manage} <subject>.",
        ),
        sentences=(
            "{Wind|Solar|Hydro} {output|generation} {in the region|around <city>|across the "
            "grid} <rose> <pct>, {enough to|sufficient to|which helped} {cover|supply|meet} "
            "<about> <pct> of {peak|average|local} demand {on windy days|at midday|in the "
            "summer months}.",
            "{The utility|The grid operator|<org>} {plans to|intends to|will} {replace|upgrade|"
            "renew} <about> <num> kilometers of {old|leaking|aging} {pipes|cables|mains} "
            "<horizon>, {cutting|reducing} {losses|leaks|outages} by {as much as|up to|"
            "roughly} <pct>.",
            "{Households|Homeowners|Tenants} {switching|moving} to {heat pumps|rooftop panels|"
            "district heating} {can|could|are expected to} {save|cut} <about> <pct> {on|off} "
            "their {annual|yearly} bills, {according to|by the reckoning of} <source>.",
            "{Battery storage|Grid storage|New storage capacity} {near|outside|around} <city2> "
            "{will|is set to} {smooth|even out|stabilize} {supply|prices|the grid}, {though|"
            "but} {engineers|planners|operators} {caution|warn} that {connections|permits|"
            "cables} {remain|are still} {a bottleneck|slow|scarce}.",
            "{Industrial users|Factories|Large manufacturers} {around|near} <city> {have|had} "
            "{endured|faced|weathered} {a difficult stretch|a long squeeze|months} of {rising "
            "costs|volatile prices|high bills} and {thin order books|weak demand|tight margins}.",
            "{Sales of|Orders for|Installations of} {electric vans|heat pumps|solar panels} "
            "<rose> <pct> {in the region|around <city>}, {and|while} <org2> {said|announced} it "
            "{plans to|will|intends to} {convert|switch|electrify} {most of|much of|all of} its "
            "{fleet|buildings|operations} <horizon>.",
        ),
        words={
            "subject": (
                "a {large|new|long-delayed} {wind farm|solar park|battery plant}",
                "the {new|upgraded|expanded} district heating network",
                "the {renewal|overhaul} of the {city's|region's} water mains",
                "a {grid|power} link to <city2>",
                "an {offshore|inland} wind project",
            ),
            "metric": ("power prices", "renewable output", "energy demand", "household bills"),
            "group": ("households", "manufacturers", "small businesses", "tenants", "farmers"),
            "issue": (
                "slow grid connections",
                "volatile gas prices",
                "objections from nearby residents",
                "the cost of new cables",
                "a shortage of engineers",
            ),
            "field": ("the energy sector", "renewables", "the utility sector"),
            "site": (
                "the industrial port",
                "the northern hills",
                "the coast",
                "the old power station",
            ),
            "plan": (
                "double its renewable capacity",
                "cut its customers' bills",
                "build more storage",
                "connect <city> to <city2>",
                "phase out its oldest plants",
            ),
            "quote": (
                "cheap, clean power is the best industrial policy a region can have",
                "the grid is the bottleneck, not the wind or the sun",
                "the savings for households will show up on bills within a year",
                "the project pays back faster than anyone expected",
            ),
        },
    ),
    Topic(
        "tech",
        headlines=(
            "Inside the startup scene of <city>: why <org> is hiring again",
            "<org> moves its research team closer to the universities of <city>",
            "<org> {raises|secures|lands} <money> to {expand|grow|build} <subject>",
            "<org> {pilots|tests|launches} <subject> in <city>",
            "{Startups|Investors|Engineers} {flock|return|head} to <city> as <org> {expands|grows|"
            "opens a lab}",
        ),
        leads=(
            "<org> {has raised|secured|closed} <money> {in new funding|from investors|in a "
            "funding round} to {expand|build out|scale} <subject>, {and|with} {most|much} of "
            "the {work|hiring} {taking place|based|planned} in <city>.",
            "{Startups|Young companies|Tech firms} in <city> raised <pct> more {venture "
            "funding|investment|capital} than in the previous period, and <org> {took|captured|"
            "accounted for} {a large share|a sizable slice|one of the largest rounds}.",
            "<org> {is testing|has launched|will pilot} <subject> in <city>, {hoping|aiming|in a "
            "bid} to {win|attract|sign up} <about> <num> {customers|users|businesses} "
            "<horizon>.",
        ),
        sentences=(
            "{Engineers|Developers|Teams} at <org> have spent {the past several quarters|much of "
            "the last year|months} {rebuilding|rewriting|overhauling} the {payment platform|core "
            "software|data systems}, a {project|job|task} that {insiders|people close to it} say "
            "{consumed|took up|absorbed} nearly <pct> of the {technology|engineering} budget.",
            "{Much of|Most of|A large part of} the {money|funding|investment} {is flowing|has "
            "flowed|went} into {health care|logistics|tools for small retailers|climate "
            "software}, {areas|fields|sectors} where {investors|funds|backers} {see|expect} "
            "{faster|steadier|more reliable} {growth|returns}.",
            "The {university|technical institute|polytechnic} in <city> signed a research "
            "agreement with <org> that will {support|fund} <few> {doctoral positions|research "
            "posts|fellowships}, with {most|much} of the work {focused on|centered on} "
            "{materials science|machine learning|battery chemistry|robotics}.",
            "{Salaries|Pay|Wages} for {software engineers|data scientists|designers} in <city> "
            "have {risen|climbed} <pct> <recently>, {narrowing|closing} the gap with <city2> "
            "{to|to about} <pct>.",
            "{Data centers|Server farms|Cloud facilities} {around|near|outside} <city> now use "
            "<about> <pct> of the {region's|city's|local} electricity, {prompting|leading} "
            "{officials|planners|the grid operator} to {ask for|demand|require} {efficiency "
            "pledges|new rules|waste heat recovery}.",
            "{Customers|Early users|Pilot customers} {report|say|have found} that the "
            "{service|software|system} {cuts|reduces|saves} {paperwork|processing time|costs} "
            "by <about> <pct>, {though|but|even if} {some|a few} {complain|note|mention} "
            "{about|of} {glitches|missing features|a steep learning curve}.",
        ),
        words={
            "subject": (
                "its {payments|logistics|booking} platform",
                "a {new|cloud|mobile} {service|product} for {small retailers|clinics|farmers}",
                "a {research|robotics|design} lab {in|near} <site>",
                "its {data|analytics|security} business",
            ),
            "metric": ("venture funding", "tech hiring", "software exports", "startup formation"),
            "group": ("engineers", "founders", "small retailers", "graduates", "investors"),
            "issue": (
                "a shortage of experienced engineers",
                "high office rents",
                "tighter data rules",
                "slower funding rounds",
                "competition for talent from <city2>",
            ),
            "field": ("the tech sector", "software", "the startup scene"),
            "site": (
                "the university district",
                "the old warehouses",
                "the science park",
                "the harbor front",
            ),
            "plan": (
                "double its engineering team",
                "reach profitability",
                "expand into <city2>",
                "sell to larger customers",
                "open a second lab",
            ),
            "quote": (
                "the talent is here, and it is cheaper to hire than in <city2>",
                "the product works, now the job is to sell it",
                "investors have become pickier, which is healthy for everyone",
                "the best engineers want interesting problems, not just high salaries",
            ),
        },
    ),
    Topic(
        "retail",
        headlines=(
            "<org> cuts prices as competition in <city> heats up",
            "{Footfall|Spending|Sales} in <city> {recovers|slips|holds up}, <org> {finds|says|"
            "reports}",
            "<org> {opens|closes|reshapes} <subject> in <city>",
            "{Shoppers|Consumers|Households} in <city> {trade down|spend carefully|splash out} "
            "as <subject> {opens|struggles|expands}",
            "{Online orders|Store sales|Holiday sales} {jump|slow|climb} at <org>",
        ),
        leads=(
            "{Footfall|Visitor numbers|Traffic} {in the shopping streets of|across} <city> "
            "{recovered to|returned to|reached} <pct> of its former level, {according to|said} "
            "<org>, {though|but} {shop owners|retailers|traders} say {customers|shoppers} are "
            "{spending more carefully|comparing prices online|buying less}.",
            "<org> {opened|unveiled|launched} <subject> in <city>, {betting|wagering|gambling} "
            "that {shoppers|customers|families} still {want|value|enjoy} {a physical store|"
            "seeing goods in person|personal service}.",
            "According to figures released by <org>, online orders in <city> grew <pct> faster "
            "than the national average, {driven|helped|pushed} {largely|mostly|mainly} by "
            "{groceries|household goods|clothing}.",
        ),
        sentences=(
            "{Prices|Shelf prices|Prices on everyday goods} at <org> {will|are set to} {fall|"
            "drop|come down} by {an average of|about|up to} <pct>, {a move|a step} that "
            "{rivals|competitors} {including|such as} <org2> {are expected to|will probably|"
            "could} {match|follow|answer}.",
            "A survey of <num> small business owners {around|in} <city> found that {rent|"
            "staffing|energy} {remains|is still} the {biggest|main|most pressing} worry, "
            "{well ahead of|ahead of|followed by} {energy bills|staffing shortages|the cost of "
            "borrowing}.",
            "{Loyalty program|Membership|Online} {sales|sign-ups|orders} <rose> <pct>, "
            "{suggesting|showing|a sign} that {customers|shoppers} {are sticking with|have not "
            "abandoned|still trust} {familiar brands|the chain|local stores}.",
            "{Empty shopfronts|Vacant units|Shuttered stores} {along|on|around} <site> {have|"
            "are} {begun|starting} to {fill|fill up|find tenants}, {many of them|some of them|"
            "a few} {taken by|leased to|rented to} {cafes|repair shops|pop-up stores}.",
            "{Spending on|Sales of} {clothing|furniture|electronics} <fell> <pct> <compared>, "
            "{while|and} {spending on|sales of} {groceries|toys|garden goods} <rose> {slightly|"
            "modestly|sharply}.",
            "The {chain|retailer|group} {also plans to|intends to|will} {close|shrink|refit} "
            "<few> {stores|outlets|branches} {in <city2>|elsewhere in the region|in smaller "
            "towns}, {moving|shifting} {staff|stock|investment} {to|into} {its busiest sites|"
            "online fulfilment|new formats}.",
        ),
        words={
            "subject": (
                "a {flagship|large|new} store {on|near} <site>",
                "a {new|covered|renovated} shopping arcade",
                "its {online|same-day} delivery service",
                "a {chain|network} of {smaller|neighborhood} shops",
            ),
            "metric": ("footfall", "retail sales", "online orders", "consumer spending"),
            "group": ("shoppers", "shop owners", "small retailers", "families", "store staff"),
            "issue": (
                "high rents on the main streets",
                "rising wages",
                "cautious shoppers",
                "competition from online sellers",
                "higher energy bills",
            ),
            "field": ("retail", "the shopping trade", "consumer goods"),
            "site": (
                "the main shopping street",
                "the old market square",
                "the central arcade",
                "the station quarter",
            ),
            "plan": (
                "win back price-conscious shoppers",
                "grow its online business",
                "open smaller stores",
                "expand into <city2>",
                "cut delivery times",
            ),
            "quote": (
                "customers are careful with money, but they still reward good value",
                "the store is a showroom, a pickup point and a cafe all at once",
                "the high street is not dying, it is changing",
                "price cuts like these are only possible because costs have come down",
            ),
        },
    ),
    Topic(
        "logistics",
        headlines=(
            "<org> pilots a delivery hub on the edge of <city>",
            "<org> and <org2> {team up|partner|join forces} to {speed up|cut the cost of|"
            "simplify} deliveries in <city>",
            "{Warehouse|Freight|Storage} {space|capacity} in <city> {runs short|tightens|opens up}",
            "The port of <city> {expands|modernizes|automates} with <org> on board",
            "<org> {bets|wagers} on <subject> to {beat|win over|keep up with} rivals",
        ),
        leads=(
            "<org> {is building|has opened|will open} <subject> {on the edge of|just outside|"
            "near} <city>, {a site|a facility|an operation} that {will|should} {handle|process} "
            "<about> <num> parcels a day.",
            "The partnership between <org> and <org2> is meant to {cut|shorten|speed up} "
            "delivery times for customers in <city> and <city2>, where {warehouse space|storage|"
            "land for depots} has become {scarce|expensive|hard to find}.",
            "{Container traffic|Freight volumes|Cargo} {through|at} the port of <city> <rose> "
            "<pct> <compared>, {helped|driven} by <subject>, {which|a project that} <org> "
            "{runs|operates|helped finance}.",
        ),
        sentences=(
            "{Freight|Shipping|Haulage} {rates|costs|prices} <fell> <pct> <recently>, {easing|"
            "relieving|softening} {pressure|strain} on {importers|retailers|manufacturers} "
            "{who|that} {had|have} {struggled|wrestled} with {months|a long stretch} of "
            "{delays|backlogs|high costs}.",
            "The {harbor authority|port operator|port} in <city2> {expects|forecasts} "
            "{container traffic|throughput|volumes} to {rise|grow} by <pct> once the "
            "{deepened channel|new quay|extended terminal} {opens to|can take} {larger ships|"
            "bigger vessels}, a project that has been {delayed|held up|postponed} {twice|"
            "several times|repeatedly}.",
            "{Electric vans|Cargo bikes|Small electric lorries} {now|already} {make|handle} "
            "<about> <pct> of {last-mile|final} deliveries {in the center|within the ring road|"
            "downtown}, {and|while} <org> {wants|plans|hopes} to {double|raise|lift} that "
            "share <horizon>.",
            "{Warehouse|Storage|Logistics} {rents|vacancy rates|costs} {around|near} <city> "
            "{have|are} {risen|climbed|up} <pct>, {pushing|driving|forcing} {operators|firms|"
            "shippers} {further out|to the outskirts|toward <city2>}.",
            "{Drivers|Warehouse workers|Dock workers} {at|employed by} <org> {won|secured|"
            "negotiated} a <pct> {pay rise|wage increase|raise} {after|following} {talks|"
            "negotiations|a dispute} {that|which} {lasted|dragged on} {several weeks|most of the "
            "season|months}.",
        ),
        words={
            "subject": (
                "a {new|large|automated} {delivery|distribution|parcel} hub",
                "the {expanded|automated|new} container terminal",
                "a {fleet|network} of {electric vans|small depots|parcel lockers}",
                "a {cold-storage|bonded|cross-dock} warehouse",
            ),
            "metric": ("parcel volumes", "container traffic", "freight rates", "delivery times"),
            "group": ("shippers", "drivers", "importers", "online shoppers", "warehouse workers"),
            "issue": (
                "a shortage of drivers",
                "congestion at the port",
                "the cost of land for depots",
                "new emissions rules",
                "delays at customs",
            ),
            "field": ("logistics", "the freight industry", "shipping"),
            "site": (
                "the ring road",
                "the port area",
                "the outer industrial estates",
                "the airport cargo zone",
            ),
            "plan": (
                "offer same-day delivery across <city>",
                "electrify its fleet",
                "open more depots",
                "automate its warehouses",
                "win more port business",
            ),
            "quote": (
                "the last mile is where the money is made or lost",
                "space near the city is the scarcest thing in logistics",
                "customers expect speed, and speed needs depots close to where they live",
                "automation frees people from the heaviest work, it does not replace them",
            ),
        },
    ),
    Topic(
        "city",
        headlines=(
            "<city> council {approves|debates|rejects} <subject>",
            "{Green|Quieter|Wider} streets for <city> as <subject> {gets the go-ahead|moves "
            "forward|wins support}",
            "<org> {offers|pledges|agrees} to {fund|cover part of|support} <subject> in <city>",
            "{Residents|Neighbors|Business owners} in <city> {divided|split|upbeat} over <subject>",
            "The city council in <city> {backs|approves|funds} <subject>",
        ),
        leads=(
            "The city council in <city> {approved|adopted|voted through} <subject>, a {plan|"
            "move|measure} {supported|backed|welcomed} by {several|a number of} {large|local} "
            "employers including <org>, which {offered|agreed|pledged} to {cover|fund|pay for} "
            "part of the cost.",
            "{Work|Construction|Planting} {on|for} <subject> in <city> {begins|is under way|"
            "will start} <horizon>, {with|and} <org> {providing|contributing|putting up} "
            "<about> <money>.",
            "<subject> in <city> {has divided|has split|is dividing} {residents|opinion|"
            "neighbors}, {and|while} <org>, {a major|the largest|a prominent} employer in the "
            "area, {has come out|has spoken out|has declared itself} {in favor|in support}.",
        ),
        sentences=(
            "The {plan|scheme|program} {foresees|includes|calls for} <num> {new trees|benches|"
            "street lamps} {along|on} {the main avenues|the riverside|residential streets}, "
            "{and|while} {several|a few|some} {streets|squares|blocks} {near|around} <site> "
            "{will|would} {be closed to|lose} {through traffic|parking}.",
            "The weather service warned of strong winds along the coast near <city2>, and "
            "{several|some|a few} outdoor events were {postponed|called off|moved indoors} "
            "{as a precaution|to be safe|for safety reasons} while crews {secured|took down|"
            "checked} {stages|market stalls|scaffolding}.",
            "{Air quality|Noise levels|Summer temperatures} {in|around} <site> {improved|"
            "dropped|fell} by <pct> {after|during|since} {a trial|a pilot|the first phase}, "
            "{the city said|officials said|council figures show}.",
            "{The budget|Spending|The city's budget} for {parks|public spaces|street repairs} "
            "{will|is set to} {rise|grow|increase} by <pct>, {paid for|funded|financed} {partly|"
            "in part|mostly} {by|through} {a levy on developers|parking charges|savings "
            "elsewhere}.",
            "{Shopkeepers|Traders|Cafe owners} {along|on|near} <site> {feared|worried|"
            "complained} {that|about} {fewer parking spaces|the roadworks|the closures} would "
            "{hurt|drive away|reduce} {trade|customers|footfall}, {but|yet} {early|initial|"
            "first} {counts|figures|surveys} {suggest|show} {the opposite|a modest rise|little "
            "change}.",
            "{Voters|Residents|Councillors} in <city2> {rejected|turned down|shelved} a "
            "{similar|comparable|nearly identical} {plan|scheme|proposal} {not long ago|"
            "recently|a few years back}, {a fact|something} that {opponents|supporters|both "
            "sides} in <city> {often|frequently|regularly} {mention|cite|bring up}.",
        ),
        words={
            "subject": (
                "a plan to plant <num> trees along its main avenues",
                "a {redesign|makeover} of {the central square|the riverside|the old market}",
                "a {new|long-awaited} park on the site of {an old|a former} {rail yard|factory}",
                "{wider pavements|new cycle lanes|a pedestrian zone} in the {center|old town}",
                "a {program|scheme} to {cool|green|calm} {residential streets|school streets}",
            ),
            "metric": ("air quality", "public spending", "noise levels", "visits to the parks"),
            "group": ("residents", "shopkeepers", "families", "older residents", "schools"),
            "issue": (
                "the loss of parking",
                "the cost to taxpayers",
                "months of roadworks",
                "maintenance costs",
                "noise during construction",
            ),
            "field": ("city services", "urban renewal", "local government"),
            "site": (
                "the old market square",
                "the riverside",
                "the central avenues",
                "the northern neighborhoods",
                "the school district",
            ),
            "plan": (
                "make the center greener",
                "cut noise and pollution",
                "bring more life to the center",
                "copy what worked in <city2>",
                "finish the scheme within budget",
            ),
            "quote": (
                "streets are for people first, and the plan reflects that",
                "the city is catching up with what <city2> did years ago",
                "a greener center is good for business, not just for residents",
                "the shade from the trees will matter more every summer",
            ),
        },
    ),
    Topic(
        "health",
        headlines=(
            "<org> {opens|plans|funds} <subject> in <city>",
            "{Waiting times|Staff shortages|Costs} {ease|worsen|dominate} at <subject> in <city>",
            "<org> {expands|strengthens|doubles} its {clinics|research|care services} in <city>",
            "{Patients|Families|Older residents} in <city> {welcome|wait for|question} <subject>",
        ),
        leads=(
            "<org> {will open|has opened|is building} <subject> in <city>, {adding|creating|"
            "bringing} <about> <num> {jobs|treatment places|appointments a week}.",
            "{Waiting times|Average waits|Queues} at <subject> in <city> <fell> <pct> "
            "<compared>, {after|once|since} <org> {took over|began running|started managing} "
            "{the service|the site|operations}.",
            "<org> {has committed|is committing|pledged} <money> to <subject> in <city>, "
            "{one of the|among the} {largest|biggest} {private|health care} investments in the "
            "{region|city} {in years|for a decade|to date}.",
        ),
        sentences=(
            "{Nurses|Doctors|Care workers} remain {in short supply|hard to recruit|scarce}, "
            "{and|so} {the clinic|the hospital|the operator} {plans to|will|intends to} "
            "{recruit|qualify|hire} <few> {staff|graduates|specialists} {abroad|from <city2>|"
            "through its own academy}.",
            "{Demand for|Referrals to|Appointments at} {specialist|outpatient|dental} "
            "{services|clinics|care} <rose> <pct>, {driven|pushed} {largely|mostly|partly} by "
            "{an aging population|a backlog of treatment|better screening}.",
            "{Patient groups|Advocates|Family associations} {welcome|support|cautiously back} "
            "the {investment|expansion|plan} {but|although they} {worry|fear|ask} {whether|"
            "that} {poorer districts|rural patients|smaller towns} will {benefit|be served|"
            "see any of it}.",
            "The {clinic|center|hospital} {will|is to} {focus on|specialize in|offer} "
            "{rehabilitation|eye care|children's health|sports injuries}, {with|and} <about> "
            "<pct> of {appointments|places|beds} {reserved for|set aside for|kept for} "
            "{public patients|referrals from local doctors|emergencies}.",
            "{Researchers|Scientists|Teams} at <org> {are working|have partnered|will work} "
            "with {the university|a teaching hospital|a medical school} in <city> on {new "
            "treatments|diagnostic tools|clinical trials}, {supported by|backed by|with} "
            "<about> <money> in {grants|funding}.",
        ),
        words={
            "subject": (
                "a {new|large|modern} {outpatient|diagnostic|rehabilitation} center",
                "the {expanded|rebuilt|renovated} children's hospital",
                "a network of {neighborhood|walk-in|community} clinics",
                "a {research|teaching} hospital wing",
            ),
            "metric": ("waiting times", "patient numbers", "health spending", "staff vacancies"),
            "group": ("patients", "nurses", "older residents", "families", "local doctors"),
            "issue": (
                "a shortage of nurses",
                "long waiting lists",
                "rising drug prices",
                "the cost of new equipment",
                "pressure on emergency wards",
            ),
            "field": ("health care", "the hospital sector", "life sciences"),
            "site": (
                "the medical campus",
                "the northern suburbs",
                "the old hospital grounds",
                "the city center",
            ),
            "plan": (
                "cut waiting times",
                "open more clinics",
                "recruit more nurses",
                "expand into <city2>",
                "bring specialist care closer to patients",
            ),
            "quote": (
                "patients should not have to travel to <city2> for specialist care",
                "the new center will take pressure off the emergency wards",
                "staff are the real constraint, more than buildings or equipment",
                "early diagnosis saves money as well as lives",
            ),
        },
    ),
    Topic(
        "jobs",
        headlines=(
            "<org> opens a new regional office in <city>",
            "<org> {plans|announces|confirms} <num> new jobs in <city>",
            "<org> brings its annual conference back to <city>",
            "{Hiring|Wages|Skills} {top|dominate|lead} the agenda {as|while} <org> {grows|"
            "expands|settles} in <city>",
            "<org> and <org2> {fund|launch|expand} <subject> in <city>",
        ),
        leads=(
            "<org> {said|confirmed|announced} it would add {roughly|about|up to} <num> jobs in "
            "<city> once <subject> is fully staffed, {although|though|but} the hiring "
            "{will|is to} be spread over several phases.",
            "<org> {has opened|is opening|will open} <subject> in <city>, {its|the firm's} "
            "{first|largest|second} {presence|base|office} in the region, {with|and} <about> "
            "<few> {staff|employees|people} {already|initially|to start with}.",
            "<org> and <org2> are jointly funding <subject> in <city>, aimed at {skilled roles|"
            "technical jobs|careers} in {maintenance|electrical work|engineering|logistics}.",
        ),
        sentences=(
            "{Unemployment|The jobless rate|Youth unemployment} in <city> <fell> to <pct>, "
            "{the lowest|among the lowest|one of the lowest} {levels|rates} {in the country|in "
            "the region|on record}, {which|and this} {makes|has made} {hiring|recruitment|"
            "finding staff} {harder|slower|more expensive}.",
            "{The program|The scheme|The initiative} {will|is to} {coach|take on|support} "
            "<num> young people {over|across|during} {several years|the next few years|its "
            "first phase}, with {most|many|a third} of them {expected|likely|due} to "
            "{stay on|be hired|find work} at {local|partner|nearby} firms.",
            "Observers note that the gap in average wages between <city> and <city2> has "
            "{narrowed|shrunk|closed} to about <pct>, making relocation decisions for growing "
            "firms {harder to predict|less obvious|more finely balanced}.",
            "{Remote|Hybrid|Flexible} {work|working} {remains|is still} {popular|common|the "
            "norm} {at|among staff at|across} <org>, {with|and} <about> <pct> of {employees|"
            "staff|workers} {in the office|on site|at their desks} {fewer than three|only two|"
            "most} days a week.",
            "{Recruiters|Headhunters|Staffing agencies} in <city> {report|say|notice} "
            "{that|how} {candidates|applicants|job seekers} {now|increasingly} {ask about|"
            "prioritize|weigh} {housing|training|flexibility} {as much as|before|ahead of} "
            "{pay|salary|job titles}.",
        ),
        words={
            "subject": (
                "a {new|larger|regional} {office|hub|campus} {near|in} <site>",
                "an apprenticeship program for <num> young people",
                "a {training|skills} center",
                "a {customer service|engineering|shared services} center",
            ),
            "metric": ("employment", "average wages", "job vacancies", "graduate hiring"),
            "group": ("job seekers", "graduates", "apprentices", "employees", "local firms"),
            "issue": (
                "a shortage of skilled workers",
                "the cost of housing for new staff",
                "rising wages",
                "competition for graduates",
                "slow visa processing",
            ),
            "field": ("the local labor market", "the services sector", "skilled trades"),
            "site": (
                "the business park",
                "the city center",
                "the university district",
                "the old harbor",
            ),
            "plan": (
                "hire several hundred people",
                "qualify its own technicians",
                "move more roles to <city>",
                "open a second site in <city2>",
                "keep staff turnover low",
            ),
            "quote": (
                "<city> has the people, the universities and the connections the firm needs",
                "the hardest part of growing is finding people, not customers",
                "young people in the region deserve a route into skilled work",
                "the new roles are permanent, not a seasonal spike",
            ),
        },
    ),
)
