"""The tile sets board-pi knows, as data: one entry per set, written as its source publishes it.

To add a set, add one :class:`TileSetSpec` to ``SPECS`` (and a line to the tests' table of
published totals): no other code changes. Each entry gives the tiles by point value, the way the
published tables list them, so an entry can be checked against its source by eye::

    1: E15 N9 S7      -> E, N and S are worth 1 point; 15 Es, 9 Ns, 7 Ss
    5: CH1 Q1         -> a two-letter tile is written as its face: CH, one tile worth 5
    0: ?2             -> two blanks

``text_digraphs`` says how plain text is read for a set with multi-letter tiles: True where
the set's rules make the letters always one tile (Spanish: FISE rules forbid C+H for the CH
tile, L+L for LL, R+R for RR; the Dutch IJ edition: "ijsvrij" was a 5-tile word), so "CHICO"
reads as [CH] I C O. Brackets ("[CH]") are read in every set.
"""

from __future__ import annotations

from dataclasses import dataclass

WIKIPEDIA = "https://en.wikipedia.org/wiki/Scrabble_letter_distributions"


@dataclass(frozen=True)
class TileSetSpec:
    """One published distribution: its name (as GCG's ``#tile-distribution`` gives it),
    the edition it describes, where it was checked, and the tiles by value."""

    name: str
    title: str
    source: str
    tiles: str
    text_digraphs: bool = False
    aliases: tuple[str, ...] = ()


SPECS: tuple[TileSetSpec, ...] = (
    TileSetSpec(
        "english", "English (every edition since 1938): 100 tiles",
        f"{WIKIPEDIA}#English (100 tiles, face value 187)",
        """
        1: E12 A9 I9 O8 N6 R6 T6 L4 S4 U4
        2: D4 G3
        3: B2 C2 M2 P2
        4: F2 H2 V2 W2 Y2
        5: K1
        8: J1 X1
        10: Q1 Z1
        0: ?2
        """,
    ),
    TileSetSpec(
        "german", "German (since 1989-90, 7-tile racks): 102 tiles",
        f"{WIKIPEDIA}#German; the same table in fr.wikipedia 'Lettres du Scrabble' (Allemand). "
        "Not the 119-tile set sold before 1990 for 8-tile racks.",
        """
        1: E15 N9 S7 I6 R6 T6 U6 A5 D4
        2: H4 G3 L3 O3
        3: M4 B2 W1 Z1
        4: C2 F2 K2 P1
        6: Ä1 J1 Ü1 V1
        8: Ö1 X1
        10: Q1 Y1
        0: ?2
        """,
        aliases=("deutsch",),
    ),
    TileSetSpec(
        "french", "French: 102 tiles",
        f"{WIKIPEDIA}#French; checked against Macondo's data/letterdistributions/french.csv "
        "and lemagloisirs.fr/regle-scrabble (M is worth 2)",
        """
        1: E15 A9 I8 N6 O6 R6 S6 T6 U6 L5
        2: D3 G2 M3
        3: B2 C2 P2
        4: F2 H2 V2
        8: J1 Q1
        10: K1 W1 X1 Y1 Z1
        0: ?2
        """,
        aliases=("francais", "français"),
    ),
    TileSetSpec(
        "spanish", "Spanish (FISE, sets sold outside North America): 100 tiles",
        f"{WIKIPEDIA}#Spanish; Macondo's data/letterdistributions/spanish (CH, LL, RR written "
        "there as 1, 2, 3). FISE rules: C+H, L+L, R+R may not stand for CH, LL, RR.",
        """
        1: A12 E12 O9 I6 S6 N5 L4 R5 U5 T4
        2: D5 G2
        3: C4 B2 M2 P2
        4: H2 F1 V1 Y1
        5: CH1 Q1
        8: J1 LL1 Ñ1 RR1 X1
        10: Z1
        0: ?2
        """,
        text_digraphs=True,
        aliases=("espanol", "español"),
    ),
    TileSetSpec(
        "italian", "Italian (Mattel/Spear's): 120 tiles",
        f"{WIKIPEDIA}#Italian; gtoal.com/scrabble/details/italian (Spear's spreadsheet, 120 tiles). "
        "Not Scarabeo (Editrice Giochi, 130 tiles, 17x17).",
        """
        1: O15 A14 I12 E11
        2: C6 R6 S6 T6
        3: L5 M5 N5 U5
        5: B3 D3 F3 P3 V3
        8: G2 H2 Z2
        10: Q1
        0: ?2
        """,
        aliases=("italiano",),
    ),
    TileSetSpec(
        "dutch", "Dutch (since 14 March 1998, no IJ tile: IJ is played as I and J): 102 tiles",
        f"{WIKIPEDIA}#Dutch; Macondo's data/letterdistributions/dutch; "
        "gtoal.com/wordgames/details/dutch ('current style', from Gert Serneels)",
        """
        1: E18 N10 A6 O6 I4
        2: D5 R5 S5 T5
        3: G3 K3 L3 M3 B2 P2
        4: U3 F2 H2 J2 V2 Z2
        5: C2 W2
        8: X1 Y1
        10: Q1
        0: ?2
        """,
        aliases=("nederlands",),
    ),
    TileSetSpec(
        "dutch-ij", "Dutch with the IJ tile (the Netherlands' sets before 14 March 1998): 102 tiles",
        "gtoal.com/wordgames/details/dutch ('old styles': the IJ tile was dropped on 14 March 1998; "
        "Flanders never used it). Its primary column is used; the Spear's set scanned on that page "
        "differs in E, F, G, N, P, S, T, U and has no Y.",
        """
        1: A6 E18 I4 N10 O6
        2: D5 G3 R5 S4 T5
        3: B2 K3 L3 M3 P2
        4: F1 H2 J2 U3 V2 IJ2 Z2
        5: C2 W2
        8: X1 Y1
        10: Q1
        0: ?2
        """,
        text_digraphs=True,
    ),
    TileSetSpec(
        "polish", "Polish: 100 tiles",
        f"{WIKIPEDIA}#Polish (the set of the Polska Federacja Scrabble)",
        """
        1: A9 E7 I8 N5 O6 R4 S4 W4 Z5
        2: C3 D3 K3 L3 M3 P3 T3 Y4
        3: B2 G2 H2 J2 Ł2 U2
        5: Ą1 Ę1 F1 Ó1 Ś1 Ż1
        6: Ć1
        7: Ń1
        9: Ź1
        0: ?2
        """,
    ),
)
