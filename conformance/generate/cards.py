"""The cards generated games are played with: real cards, as the corpus's cases list them (names,
faces, printings, MTGO and Arena IDs), and the ways a source may describe one.

A generated request's `cards` section holds the cards its game used; a description names a card
as a real source would: by its Oracle name, a face's name, a printing, or a source ID (Arena's
`grpId` for a source that relinks handles, MTGO's catalogue ID for one that keeps them).
"""

from __future__ import annotations

import random
import unicodedata
from typing import Any

Card = dict[str, Any]

#: Real cards, each as a case's card database section lists it (cases/writer/*.yaml).
POOL: tuple[Card, ...] = (
    {"name": "Lightning Bolt", "printings": [{"set": "TD0", "number": "B21", "source_ids": ["mtgo:37907", "mtgo:37908"]}]},
    {"name": "Counterspell", "printings": [{"set": "LEB", "number": "55"}]},
    {"name": "Llanowar Elves", "printings": [{"set": "WC01", "number": "jt253"}]},
    {"name": "Goblin Guide", "printings": [{"set": "PGPX", "number": "2012a"}]},
    {"name": "Brainstorm", "printings": [{"set": "WC00", "number": "jf61"}]},
    {"name": "Memory Lapse", "printings": [{"set": "HML", "number": "32a"}]},
    {"name": "Karn Liberated", "printings": [{"set": "PUMA", "number": "U2", "source_ids": ["mtgo:69997", "mtgo:69998"]}]},
    {"name": "Island", "printings": [{"set": "ELD", "number": "254", "source_ids": ["mtgo:78654", "arena:70401"]}]},
    {"name": "Forest", "printings": [{"set": "M19", "number": "277", "source_ids": ["mtgo:68717", "arena:68236"]}]},
    {"name": "Mountain", "printings": [{"set": "XLN", "number": "272", "source_ids": ["mtgo:65574", "mtgo:65575", "arena:66523"]}]},
    {"name": "Jace, the Mind Sculptor", "printings": [{"set": "MED", "number": "WS3", "source_ids": ["mtgo:72194"]}]},
    {"name": "Demonic Tutor", "printings": [{"set": "PUMA", "number": "U8", "source_ids": ["mtgo:70259", "mtgo:70260"]}]},
    {"name": "Exalted Angel", "printings": [{"set": "WC04", "number": "gn28"}]},
    {"name": "Control Magic", "printings": [{"set": "PTC", "number": "ml64"}]},
    {"name": "Lightning Strike", "printings": [{"set": "DMU", "number": "137", "source_ids": ["mtgo:102750", "arena:82189"]}]},
    {"name": "Duress", "printings": [{"set": "WC02", "number": "cr131sb"}]},
    {"name": "Murderous Rider // Swift End", "faces": ["Murderous Rider", "Swift End"],
     "printings": [{"set": "ELD", "number": "97", "source_ids": ["mtgo:78308", "arena:70244"]}]},
    {"name": "Fire // Ice", "faces": ["Fire", "Ice"], "printings": [{"set": "APC", "number": "128", "source_ids": ["mtgo:16338"]}]},
    {"name": "Lovestruck Beast // Heart's Desire", "faces": ["Lovestruck Beast", "Heart's Desire"],
     "printings": [{"set": "ELD", "number": "165", "source_ids": ["mtgo:78468", "arena:70312"]}]},
    {"name": "Delver of Secrets // Insectile Aberration", "faces": ["Delver of Secrets", "Insectile Aberration"],
     "printings": [{"set": "MID", "number": "47", "source_ids": ["mtgo:93028", "arena:78378"]}]},
    {"name": "Brutal Cathar // Moonrage Brute", "faces": ["Brutal Cathar", "Moonrage Brute"],
     "printings": [{"set": "MID", "number": "7", "source_ids": ["mtgo:92934", "arena:78331"]}]},
    {"name": "Graveyard Trespasser // Graveyard Glutton", "faces": ["Graveyard Trespasser", "Graveyard Glutton"],
     "printings": [{"set": "MID", "number": "104", "source_ids": ["mtgo:93164", "arena:78446"]}]},
    {"name": "Winota, Joiner of Forces", "printings": [{"set": "IKO", "number": "216", "source_ids": ["mtgo:80441", "arena:71283"]}]},
    {"name": "A-Winota, Joiner of Forces", "printings": [{"set": "IKO", "number": "A-216", "source_ids": ["arena:83474"]}]},
    {"name": "Urza's Command", "printings": [{"set": "BRO", "number": "70", "source_ids": ["mtgo:104758", "arena:82554"]}]},
    {"name": "A-Urza's Command", "printings": [{"set": "BRO", "number": "A-70", "source_ids": ["arena:91368"]}]},
    {"name": "Vesuvan Doppelganger", "aliases": ["Doppelganger Vésuvéen"], "printings": [{"set": "FBB", "number": "88"}]},
    {"name": "Junún Efreet", "aliases": ["Efreet di Junún"], "printings": [{"set": "RIN", "number": "55"}]},
    {"name": "Lim-Dûl's Vault", "printings": [{"set": "C13", "number": "197", "source_ids": ["mtgo:51240", "mtgo:51241"]}]},
    {"name": "Kapow!", "aliases": ["Perilous Lunge"], "printings": [{"set": "OM1", "number": "111"}]},
    {"name": "Loam Lion", "aliases": ["壌土のライオン"], "printings": [{"set": "PWWK", "number": "13★"}]},
    {"name": "Flesh // Blood", "faces": ["Flesh", "Blood"], "printings": [{"set": "DGM", "number": "128", "source_ids": ["mtgo:48514"]}]},
    {"name": "Realm-Scorcher Hellkite", "printings": [{"set": "PWCS", "number": "2024-01"}]},
    {"name": "Rosethorn Acolyte // Seasonal Ritual", "faces": ["Rosethorn Acolyte", "Seasonal Ritual"],
     "printings": [{"set": "ELD", "number": "174", "source_ids": ["mtgo:78488", "arena:70321"]}]},
    {"name": "Balefire Dragon", "printings": [{"set": "PUMA", "number": "U14", "source_ids": ["mtgo:70321", "mtgo:70322"]}]},
    {"name": "Oran-Rief, the Vastwood", "aliases": ["巨森、オラン\uff1dリーフ"], "printings": [{"set": "PZEN", "number": "221★"}]},
)

#: A meld pair and the permanent they meld into (CR 712.4): `meld` is played with these.
MELD: tuple[Card, ...] = (
    {"name": "Bruna, the Fading Light", "printings": [{"set": "EMN", "number": "15", "source_ids": ["mtgo:61098"]}]},
    {"name": "Gisela, the Broken Blade", "printings": [{"set": "EMN", "number": "28", "source_ids": ["mtgo:61100"]}]},
    {"name": "Brisela, Voice of Nightmares", "printings": [{"set": "EMN", "number": "15b"}]},
)

#: Cards that transform (CR 712): their second face is shown by `transform`.
TRANSFORMING = frozenset({"Delver of Secrets // Insectile Aberration", "Brutal Cathar // Moonrage Brute",
                          "Graveyard Trespasser // Graveyard Glutton"})

TRANSFORMERS: tuple[Card, ...] = tuple(card for card in POOL if card["name"] in TRANSFORMING)

#: Token names: most match no card of the section, and are recorded as shown (NAME-7); Blood
#: is a card of its own, named like a face of Flesh // Blood, whose Oracle name wins.
TOKENS = ("Goblin", "Zombie", "Treasure", "Soldier", "Blood", "Tamiyo's Notebook")
TOKEN_CARDS: dict[str, Card] = {"Blood": {"name": "Blood", "printings": [{"set": "TINR", "number": "21"}]}}


def spelled(rng: random.Random, name: str) -> str:
    """A name as a source may spell it: as it is, with curly apostrophes, or decomposed (NFD);
    NAME-6 and NAME-7 read all three as one."""
    roll = rng.random()
    if roll < 0.15 and "'" in name:
        return name.replace("'", "\u2019")
    if roll < 0.3:
        return unicodedata.normalize("NFD", name)
    return name


def describe(rng: random.Random, card: Card, *, arena: bool) -> dict[str, Any]:
    """A description of `card` as a source shows it (NAME-7): a name (the Oracle name, a face's,
    an alias, spelled as sources spell it), a source ID of the source's own kind when the card
    has one, a printing (its set code in any case), or two of these, one of them now and then
    another card's or one the section does not list (the first step that matches decides)."""
    printing = card["printings"][0]
    ids = [i for i in printing.get("source_ids", ()) if i.startswith("arena:" if arena else "mtgo:")]
    way = rng.randrange(10 if ids else 5)

    def shown() -> dict[str, str]:
        return {"set": rng.choice((printing["set"], printing["set"].lower())), "number": printing["number"]}

    def other() -> str:
        return str(rng.choice(POOL)["name"])

    match way:
        case 0:
            return {"name": spelled(rng, rng.choice([card["name"], *card.get("faces", ())[:1], *card.get("aliases", ())]))}
        case 1:
            return {"printing": shown()}
        case 2:
            return {"printing": shown(), "name": spelled(rng, other())}
        case 3:
            return {"source_id": _unlisted(rng, arena), "name": spelled(rng, card["name"])}
        case 4:
            return {"source_id": _unlisted(rng, arena), "printing": shown()}
        case 5:
            return {"source_id": rng.choice(ids)}
        case 6:
            return {"source_id": rng.choice(ids), "name": spelled(rng, card["name"])}
        case 7:
            return {"source_id": rng.choice(ids), "name": other()}
        case 8:
            return {"source_id": rng.choice(ids), "printing": shown()}
        case _:
            elsewhere = rng.choice(POOL)["printings"][0]
            return {"source_id": rng.choice(ids), "printing": {"set": elsewhere["set"], "number": elsewhere["number"]}}


def _unlisted(rng: random.Random, arena: bool) -> str:
    return f"{'arena' if arena else 'mtgo'}:{rng.randint(900000, 999999)}"


def unknown(rng: random.Random, *, arena: bool) -> dict[str, Any]:
    """A description that matches no card of the section: a source ID or a printing the
    section does not list (SRC-1, PRINT-2, VIS-2)."""
    if rng.random() < 0.5:
        return {"source_id": _unlisted(rng, arena)}
    return {"printing": {"set": "ZZZ", "number": str(rng.randint(1, 400))}}


def face(card: Card, up: int) -> dict[str, Any]:
    """The description of face `up` (0 front, 1 back) of a transforming card."""
    return {"name": card["faces"][up]}
