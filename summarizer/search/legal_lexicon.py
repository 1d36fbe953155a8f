"""From the way people ask about a contract to the way contracts say it.

A user asks "can they terminate early?"; the clause says "either party may terminate this
Agreement for convenience upon ninety (90) days' prior written notice". BM25 only sees the
words, so each entry below maps a pattern of everyday phrasing to the words a drafting lawyer
would use for that clause. The matched entries' terms are added to the BM25 query (the user's
own words stay in it); multi-word terms are searched as phrases.

The entries are general contract vocabulary, one per kind of clause a reader commonly asks about
(the CUAD clause categories and a few more), written from drafting practice and not from any one
contract. ``Preamble`` is the heading ``summarizer.library.cutting.clauses`` gives the text before a contract's
first numbered clause, where its title, parties and date are. docs/retrieval.md measures what
the lexicon adds; it is English only.
"""

from __future__ import annotations

from summarizer.search.lexicon import Entry, expand, matching
from summarizer.search.lexicon import entry as _entry

LEXICON: tuple[Entry, ...] = (
    _entry(
        "parties",
        r"\bpart(y|ies)\b|\bwho\b.*\b(signed|involved|between)\b|\bwho\b.*\b(are we|am i) dealing|counterpart(y|ies)\b",
        "preamble; by and between; by and among; entered into; party; parties; hereinafter",
    ),
    _entry(
        "date signed",
        r"\b(signed|sign|executed|dated|concluded)\b|\bdate of (the|this) (agreement|contract)\b",
        "preamble; dated; day of; made; entered into; as of; date; executed; execution",
    ),
    _entry(
        "effective date",
        r"\btakes? effect\b|\beffective\b|\b(start|starts|begin|begins|commence|commences|kick off)\b",
        "effective date; commencement date; effective as of; commence; preamble; effective",
    ),
    _entry(
        "term and expiry",
        r"\b(end|ends|expire|expires|expiry|expiration|how long|duration|run until|last until)\b",
        "term; initial term; expire; expiration; continue in effect; remain in force; years; anniversary; until",
    ),
    _entry(
        "most favoured nation",
        r"\bmfn\b|most[- ]favou?red|better (deal|price|terms|rate)|best (price|terms)|lower price",
        "most favored; most favoured; no less favorable; more favorable; lowest price; better terms; equivalent terms; "
        "charged to; other customers; comparable; shall not exceed",
    ),
    _entry(
        "non-compete",
        r"non-?compet|\bcompet(e|es|ing|itor|itors|ition|itive)\b|\brivals?\b",
        "compete; competing; competitive; competitor; non-competition; similar products; directly or indirectly; "
        "engage in; competitive products; shall not engage",
    ),
    _entry(
        "exclusivity",
        r"exclusiv|\bother (suppliers?|vendors?|customers?|distributors?|partners?|providers?|companies)\b|"
        r"\bwork with (anyone|others|someone)\b|\bonly (supplier|provider|distributor|partner)\b",
        "exclusive; exclusively; sole; solely; exclusivity; non-exclusive; only; exclusive right; shall not appoint; "
        "any other party",
    ),
    _entry(
        "no-solicit of customers",
        r"\b(approach|poach|solicit|contact|steal|take)\b.*\b(clients?|customers?)\b|"
        r"\b(clients?|customers?)\b.*\b(solicit|poach)",
        "solicit; customers; clients; induce; divert; entice; interfere; solicitation",
    ),
    _entry(
        "exceptions to restrictions",
        r"carve-?outs?|carved out|\bexceptions?\b|\bexempt|\bexcluded\b",
        "except; exception; notwithstanding; shall not apply; provided, however; excluding; shall not restrict; "
        "shall not prevent; nothing in this agreement; permitted",
    ),
    _entry(
        "no-solicit of employees",
        r"\b(hire|hiring|poach|poaching|recruit|recruiting|employ)\b|non-?poach",
        "solicit; employ; hire; employees; personnel; recruit; induce; leave the employ; solicitation; employment",
    ),
    _entry(
        "non-disparagement",
        r"criticiz|criticis|disparag|bad-?mouth|negative(ly)? (statements?|comments?|things)|speak (ill|badly)|defam",
        "disparage; disparaging; derogatory; negative statements; defamatory; reputation; detrimental; "
        "public statements; goodwill",
    ),
    _entry(
        "termination for convenience",
        r"walk away|get out of|without (a )?(cause|reason)|for (any|no) reason|at any time|terminate early|"
        r"early termination|\bcancel\b|\bquit\b",
        "for convenience; without cause; for any reason; at any time; terminate; upon notice; prior written notice; "
        "termination; days notice",
    ),
    _entry(
        "first refusal, offer or negotiation",
        r"first (refusal|offer|negotiation|option|look|shot|dibs)|\brof[rno]\b|before (they|it is|it's) offer|"
        r"\bmatch(ing)? (right|offer)",
        "right of first refusal; first refusal; first option; first offer; first negotiation; right to match; "
        "option; negotiate exclusively; right of first offer; first right; offer",
    ),
    _entry(
        "change of control",
        r"\bacquir|acquisition|\bmerge|\bmerger|bought|buys? out|takeover|take over|change (of|in) "
        r"(control|ownership)|\bsold\b",
        "change of control; change in control; merger; acquisition; acquired; consolidation; "
        "all or substantially all; controls; ownership; voting",
    ),
    _entry(
        "revenue and profit sharing",
        r"\bcut of|\bshare of|\bpercentage\b|royalt|\brevenue|\bprofits?\b|commission|\bsplit\b",
        "royalty; royalties; revenue; net sales; percent; share; profits; commission; payable; percentage; "
        "net revenue; gross",
    ),
    _entry(
        "price changes",
        r"\b(raise|increase|change|adjust)\b.*\b(price|prices|pricing|fees|rates)\b|\bprice (increase|change)s?",
        "price; prices; pricing; increase; adjust; adjustment; change; fees; rates; shall not exceed",
    ),
    _entry(
        "minimum commitment",
        r"\bminimum\b|\bat least\b|\bquota\b|\bcommit(ment)? to (buy|purchase|order)",
        "minimum; purchase; order; quantity; at least; commitment; shortfall; annual; minimum purchase; "
        "performance; targets; requirements; quota",
    ),
    _entry(
        "volume limits",
        r"usage limits?|\bgo over\b|\bexceed|\bcap on (usage|volume)|\bvolume\b|more than allowed|overage",
        "exceed; limit; maximum; volume; additional fees; in excess of; cap; overage; usage; excess; threshold",
    ),
    _entry(
        "ownership of intellectual property",
        r"\b(own|owns|owned|ownership|belongs?)\b.*\b(ip|intellectual property|work product|inventions?|"
        r"developments?|results|deliverables|data)\b|\b(ip|intellectual property|work product)\b.*\b(own|owns|"
        r"owned|belongs?)\b",
        "ownership; own; owned; title; right, title and interest; vest; assign; intellectual property; inventions; "
        "shall own; sole property; belong; developed",
        ("parties",),
    ),
    _entry(
        "licence grant",
        r"\blicen[cs](e|es|ed|ing)\b",  # not "licensor" or "licensee": those name the parties
        "license; licence; grants; hereby grants; right to use; licensed; exclusive license; license to use",
    ),
    _entry(
        "affiliates",
        r"affiliat|subsidiar|parent (company|companies)|sister compan|group compan",
        "affiliates; subsidiaries; controlled by; under common control; parent; affiliated company",
    ),
    _entry(
        "after termination",
        r"after (the )?(contract|agreement|deal|termination|it) (ends|expires|is over|terminates)|"
        r"after (termination|expiry|expiration)|transition|wind(-| )?down|surviv",
        "upon termination; after termination; following termination; expiration or termination; survive; return; "
        "transition; wind down; cease; thereafter; return or destroy",
        ("term and expiry",),
    ),
    _entry(
        "audit",
        r"\baudit|\binspect|\bbooks\b|\brecords\b|check (the|their) (accounts|numbers)",
        "audit; inspect; examine; books; records; access; accounting; inspection; accounts; verify",
    ),
    _entry(
        "liquidated damages",
        r"liquidated|termination fee|break(-| )?fee|penalt|\bforfeit",
        "liquidated damages; termination fee; penalty; shall pay; fee; payment; compensation; liquidated; "
        "one-time payment; termination payment",
    ),
    _entry(
        "warranty",
        r"warrant(y|ies)|guarantee",
        "warrants; warranty; warranty period; months; defects; free from defects; from the date of",
        ("term and expiry",),
    ),
    _entry(
        "third-party beneficiaries",
        r"third[- ]part(y|ies)|outside the (contract|agreement)|anyone else|beneficiar|\benforce",
        "third party beneficiary; third-party beneficiaries; beneficiaries; enforce; no third party; confer; "
        "third parties; right to enforce; intended",
    ),
    _entry(
        "confidentiality",
        r"confidential|\bsecrets?\b|\bnda\b|\bdisclos",
        "confidential; confidentiality; disclose; non-disclosure; proprietary",
    ),
    _entry(
        "indemnity",
        r"indemn|hold harmless|\bcover (our|their) (costs|losses)",
        "indemnify; indemnification; hold harmless; defend; losses; claims",
    ),
    _entry(
        "force majeure",
        r"force majeure|act of god|beyond .*control|pandemic|natural disaster",
        "force majeure; beyond its reasonable control; acts of god; delay in performance",
    ),
    _entry(
        "disputes",
        r"\bdisputes?\b|arbitrat|mediat",
        "dispute resolution; arbitration; arbitrator; mediation; disputes",
    ),
)


def matching_entries(query: str) -> list[Entry]:
    return matching(LEXICON, query)


def expansion_terms(query: str, limit: int | None = None) -> list[str]:
    """The contract words for what ``query`` asks about, without repeats: at most ``limit``,
    taken in turn from each concept it matches (each entry lists its most telling terms first)."""
    return expand(LEXICON, query, limit)
