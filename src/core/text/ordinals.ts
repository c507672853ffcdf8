/**
 * The words a shopper uses to point at a listed item, with its 0-based position ("first" → 0,
 * "2nd" → 1; "last" → -1, counted from the end). One table for everything that reads such
 * references: the local recommenders (what the user means) and the LLM users' end checks (which
 * item an accept names). A null prototype: a word read from conversation text ("the constructor
 * one") is never an inherited property taken for a position.
 */
export const ORDINAL_POSITIONS: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  {
    first: 0,
    '1st': 0,
    second: 1,
    '2nd': 1,
    third: 2,
    '3rd': 2,
    fourth: 3,
    '4th': 3,
    fifth: 4,
    '5th': 4,
    sixth: 5,
    '6th': 5,
    seventh: 6,
    '7th': 6,
    eighth: 7,
    '8th': 7,
    ninth: 8,
    '9th': 8,
    tenth: 9,
    '10th': 9,
    eleventh: 10,
    twelfth: 11,
    last: -1,
  },
);
