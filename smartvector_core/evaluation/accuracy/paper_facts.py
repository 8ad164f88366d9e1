"""Vocabulary of the rebuilt paper benchmark: products, numeric policy facts, reference texts.

Data only; :mod:`.paper_suite` draws from it with a seeded generator. Document sentences and
query questions are written separately for every fact, so a query is a paraphrase of the
document that answers it, never a copy (``name`` is the document's wording, ``qnoun`` the
question's). Questions carry no numbers: the answer cannot be matched as a token.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FactType:
    """One kind of numeric policy fact.

    ``values``: candidate values (at least 7: up to 4 versions plus a temporary event value,
    a rumoured value and a contradicting value, all distinct). ``sentence``: the document's
    statement, with ``{p}`` (product) and ``{v}`` (formatted value). ``questions``: two current
    questions with ``{p}``; the first is used by queries, the second by FAQ documents.
    ``qnoun``: how a question names the fact (a synonym of ``name``).
    """

    key: str
    name: str
    unit: str
    values: tuple[float, ...]
    sentence: str
    questions: tuple[str, str]
    qnoun: str
    descending: bool = False      # values change downwards over versions (prices fall, etc.)


FACT_TYPES: tuple[FactType, ...] = (
    FactType("refund", "refund window", "days", (14, 21, 30, 45, 60, 75, 90, 120, 180),
             "Customers may request a full refund within {v} days of purchase.",
             ("How long do I have to ask for my money back after buying {p}?",
              "What is the deadline for getting a refund on an order from {p}?"),
             "money-back period"),
    FactType("ratelimit", "API rate limit", "requests per minute",
             (60, 100, 250, 500, 1000, 1500, 2000, 5000, 10000),
             "Each API key may send up to {v} requests per minute; calls above that receive HTTP 429.",
             ("How many calls can one key make to the {p} API each minute before it gets throttled?",
              "What throttling threshold applies to clients of the {p} API?"),
             "request throttling threshold"),
    FactType("storage", "storage quota", "GB per user", (5, 10, 15, 25, 50, 100, 250, 500, 1000),
             "Every user account includes {v} GB of storage.",
             ("How much disk space does each {p} user get?",
              "What is the per-account space allowance on {p}?"),
             "per-user space allowance"),
    FactType("sla", "uptime commitment", "percent", (98.5, 99.0, 99.5, 99.8, 99.9, 99.95, 99.99),
             "{p} guarantees {v}% monthly availability; service credits apply below that level.",
             ("What availability does {p} promise its customers each month?",
              "How reliable is {p} contractually, in terms of guaranteed service availability?"),
             "guaranteed availability"),
    FactType("retention", "data retention period", "days", (7, 14, 30, 60, 90, 180, 365, 730),
             "Customer records are retained for {v} days and then permanently deleted.",
             ("How long does {p} keep customer records before deleting them?",
              "When does {p} purge the customer data it stores?"),
             "customer-data keeping period"),
    FactType("price", "monthly price", "USD per seat", (8, 10, 12, 15, 19, 24, 29, 39, 49),
             "The standard plan costs ${v} per seat per month.",
             ("What does a seat on the {p} standard plan cost monthly?",
              "How much is {p} per user each month?"),
             "per-seat monthly cost", descending=True),
    FactType("session", "session timeout", "minutes", (5, 10, 15, 20, 30, 45, 60, 120, 240),
             "Idle sessions are signed out automatically after {v} minutes.",
             ("After how long without activity does {p} log me out?",
              "When does an idle {p} login expire?"),
             "idle logout delay", descending=True),
    FactType("upload", "maximum upload size", "MB", (10, 25, 50, 100, 250, 500, 1000, 2000, 5000),
             "Single files of up to {v} MB can be uploaded.",
             ("What is the largest file I can put into {p}?",
              "Is there a cap on attachment size in {p}?"),
             "file size cap"),
    FactType("support", "support response time", "hours", (1, 2, 4, 8, 12, 24, 48, 72),
             "Support tickets receive a first response within {v} hours.",
             ("How quickly will {p} support answer a new ticket?",
              "What is the first-reply target for {p} help requests?"),
             "first-reply target", descending=True),
    FactType("trial", "free trial length", "days", (7, 14, 21, 30, 45, 60, 90),
             "New accounts get a free trial of {v} days.",
             ("How long can I try {p} without paying?",
              "For how long does the {p} evaluation period last?"),
             "evaluation period"),
    FactType("password", "password rotation interval", "days", (30, 45, 60, 90, 120, 180, 365),
             "Passwords must be changed every {v} days.",
             ("How often must {p} users change their passwords?",
              "When do {p} credentials have to be renewed?"),
             "credential change interval"),
    FactType("backup", "backup frequency", "hours", (1, 2, 4, 6, 8, 12, 24, 48),
             "Automated backups run every {v} hours.",
             ("How often does {p} back up my data?",
              "What is the interval between automatic {p} snapshots?"),
             "snapshot interval", descending=True),
    FactType("seats", "workspace member limit", "members", (5, 10, 20, 25, 50, 100, 250, 500, 1000),
             "A workspace can hold at most {v} members.",
             ("How many people can join one {p} workspace?",
              "What is the cap on team size in one {p} workspace?"),
             "team size cap"),
    FactType("shipping", "free shipping threshold", "USD", (25, 35, 49, 50, 75, 99, 100, 150),
             "Orders over ${v} ship free of charge.",
             ("How much do I need to spend on {p} to avoid delivery charges?",
              "Above what order value is {p} delivery free?"),
             "minimum order for free delivery", descending=True),
    FactType("keyexpiry", "API key lifetime", "days", (14, 30, 60, 90, 180, 365, 730),
             "API keys expire {v} days after they are created.",
             ("How long does an API key issued by {p} stay usable?",
              "When do newly issued {p} access tokens stop working?"),
             "access token lifetime"),
    FactType("latefee", "late payment fee", "percent", (1, 1.5, 2, 2.5, 3, 5, 10),
             "Overdue invoices incur a {v}% late fee per month.",
             ("What penalty does {p} charge on overdue invoices?",
              "How much extra do I pay if my {p} bill is paid late?"),
             "overdue-invoice penalty"),
    FactType("cancellation", "cancellation notice period", "days", (7, 14, 30, 45, 60, 90, 120),
             "Subscriptions can be cancelled with {v} days' notice.",
             ("How far in advance must I tell {p} that I am cancelling?",
              "What lead time is required to end my {p} subscription?"),
             "cancellation lead time"),
)

PRODUCTS: tuple[str, ...] = (
    "Nimbus Cloud", "Orion API", "Atlas Storage", "Helix CRM", "Quasar Analytics",
    "Vega Payments", "Lumen Mail", "Pulsar Streaming", "Zephyr HR", "Cobalt Backup",
    "Aurora Desk", "Boreal Maps", "Cirrus Docs", "Delta Shop", "Ember Chat", "Fjord Search",
)

# Extra sentences appended to policy versions (chosen per document, for varied wording).
POLICY_BOILERPLATE: tuple[str, ...] = (
    "This policy applies to all {p} customers worldwide.",
    "Enterprise contracts may set different terms in writing.",
    "Questions about this policy can be sent to the {p} account team.",
    "The terms below are binding for every plan unless stated otherwise.",
    "Regional regulations may add further obligations.",
    "This document is maintained by the {p} legal and operations teams.",
)

EVENT_REASONS: tuple[str, ...] = (
    "we migrate the billing platform", "scheduled infrastructure maintenance takes place",
    "the seasonal promotion runs", "a security review is under way",
    "the data centre move is completed", "an incident is being investigated",
)

# Questions about the current state that invite a live notice (no numbers, {q} = qnoun).
ACTIVE_QUESTIONS: tuple[str, ...] = (
    "Is anything temporarily different about the {q} for {p} at the moment?",
    "Right now, is there a temporary change to the {q} of {p}?",
    "Is a live notice affecting the {q} for {p} today?",
)

# Questions about a named past month ({when}: "March 2024").
PAST_QUESTIONS: tuple[str, ...] = (
    "What was the {q} for {p} as of {when}?",
    "Back in {when}, what {q} did {p} apply?",
    "In {when}, which {q} was in force for {p}?",
)


@dataclass(frozen=True)
class ReferenceDoc:
    """A timeless STATIC document and, when ``question`` is set, the definitional query it answers."""

    key: str
    title: str
    doc_type: str            # "reference" or "mathematics"
    year: int                # decades old
    text: str
    question: str | None


REFERENCE_DOCS: tuple[ReferenceDoc, ...] = (
    ReferenceDoc("gibibyte", "Units of digital storage", "reference", 1999,
                 "A gigabyte (GB) is 10^9 bytes in SI units, while a gibibyte (GiB) is 2^30 bytes "
                 "(1,073,741,824). The binary prefixes kibi, mebi and gibi were standardised by the IEC.",
                 "What separates a gigabyte from a gibibyte?"),
    ReferenceDoc("availability", "Availability and allowed downtime", "reference", 1994,
                 "Availability is the fraction of time a system is operational: uptime divided by "
                 "total time. Each additional nine sharply reduces the permitted downtime per month.",
                 "How is the availability of a service defined in terms of uptime?"),
    ReferenceDoc("compound", "Compound interest", "mathematics", 1978,
                 "With compound interest the amount after t periods is A = P(1 + r)^t, where P is the "
                 "principal and r the rate per period; interest is earned on earlier interest.",
                 "Which formula gives the balance when interest is earned on interest?"),
    ReferenceDoc("median", "Mean and median", "mathematics", 1981,
                 "The arithmetic mean is the sum of the values divided by their count; the median is "
                 "the middle value of the sorted data and is robust to outliers.",
                 "Why is the middle value of sorted data less sensitive to outliers than the average?"),
    ReferenceDoc("halflife", "Exponential decay and half-life", "mathematics", 1983,
                 "A quantity that decays exponentially satisfies N(t) = N0 · 2^(−t/T), where T is the "
                 "half-life: after each interval T, half of the remaining quantity is left.",
                 "What does half-life mean for something that shrinks exponentially?"),
    ReferenceDoc("little", "Little's law", "mathematics", 1961,
                 "Little's law states L = λW: the long-run average number of items in a queueing "
                 "system equals the arrival rate times the average time an item spends in it.",
                 "How are queue length, arrival rate and waiting time related?"),
    ReferenceDoc("percentile", "Percentiles", "reference", 1988,
                 "The p-th percentile is the value below which p percent of observations fall. "
                 "Latency targets are often stated at the 95th or 99th percentile rather than the mean.",
                 "What does it mean to report latency at a high percentile?"),
    ReferenceDoc("leapyear", "The Gregorian leap year rule", "reference", 1975,
                 "In the Gregorian calendar a year is a leap year if it is divisible by 4, except "
                 "century years, which are leap years only when divisible by 400.",
                 "Which years get an extra day in February under the Gregorian calendar?"),
    ReferenceDoc("binarysearch", "Binary search", "mathematics", 1986,
                 "Binary search finds an item in a sorted array by halving the search interval at "
                 "each step, so it needs O(log n) comparisons for n items.",
                 "How many comparisons does searching a sorted list by repeated halving take?"),
    ReferenceDoc("pythagoras", "The Pythagorean theorem", "mathematics", 1970,
                 "In a right triangle the square of the hypotenuse equals the sum of the squares of "
                 "the other two sides: a^2 + b^2 = c^2.",
                 "How do the side lengths of a right-angled triangle relate to each other?"),
    ReferenceDoc("stddev", "Standard deviation", "mathematics", 1979,
                 "The standard deviation is the square root of the variance, the mean squared "
                 "deviation from the mean; it measures how spread out values are.",
                 "How is the spread of a data set around its average measured?"),
    ReferenceDoc("poisson", "The Poisson distribution", "mathematics", 1984,
                 "The Poisson distribution gives the probability of k events in a fixed interval when "
                 "events occur independently at a constant mean rate λ: P(k) = λ^k e^(−λ) / k!.",
                 "Which distribution models the count of independent arrivals in a fixed interval?"),
    ReferenceDoc("amdahl", "Amdahl's law", "reference", 1967,
                 "Amdahl's law bounds the speed-up of a program run on N processors by "
                 "1 / ((1 − p) + p/N), where p is the fraction of the work that can run in parallel.",
                 "What limits the speed-up from adding processors when part of a program is serial?"),
    ReferenceDoc("bayes", "Bayes' theorem", "mathematics", 1972,
                 "Bayes' theorem states P(A|B) = P(B|A)·P(A) / P(B): it updates the probability of a "
                 "hypothesis A after observing evidence B.",
                 "How do you update the probability of a hypothesis after seeing evidence?"),
    ReferenceDoc("geometric", "Geometric series", "mathematics", 1976,
                 "The sum of a geometric series a + ar + ar^2 + ... converges to a / (1 − r) when the "
                 "absolute value of the ratio r is below one.",
                 "When does an infinite series with a constant ratio between terms converge, and to what?"),
    ReferenceDoc("euclid", "Euclid's algorithm", "mathematics", 1980,
                 "Euclid's algorithm computes the greatest common divisor of two integers by "
                 "repeatedly replacing the larger number with the remainder of dividing it by the smaller.",
                 "How can the greatest common divisor of two whole numbers be computed?"),
    ReferenceDoc("primes", "Prime numbers", "mathematics", 1974,
                 "A prime number has exactly two divisors, one and itself. Every integer above one "
                 "factors uniquely into primes (the fundamental theorem of arithmetic).", None),
    ReferenceDoc("logbase", "Changing the base of a logarithm", "mathematics", 1982,
                 "Logarithms in any base are proportional: log_b(x) = log_k(x) / log_k(b) for any "
                 "positive base k other than one.", None),
    ReferenceDoc("luhn", "The Luhn checksum", "reference", 1990,
                 "The Luhn algorithm validates identification numbers such as card numbers: double "
                 "every second digit from the right, sum the digits, and check the total modulo ten.", None),
    ReferenceDoc("ascii", "ASCII character encoding", "reference", 1985,
                 "ASCII encodes 128 characters in seven bits: control codes, digits, Latin letters "
                 "and punctuation. UTF-8 keeps ASCII's byte values for those characters.", None),
)
