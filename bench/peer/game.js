// "Climb": the boardgame.io side's card game, shaped like cardroom's Exact Plays for 4
// players (bench/peer/README.md says what is and is not the same).
//
// 32 cards (numbers 2-9 in four suits), all dealt, 8 a hand, from a deck shuffled by
// boardgame.io's seeded random plugin. Turn by turn a player either plays a single or a set
// (cards of one number) onto the field, or passes. On an empty field any single or set may
// be played; otherwise the same number of cards, of a higher number. A pass is refused on an
// empty field. When everyone else has passed, the field is cleared and whoever played it
// leads. A round ends as soon as a hand is empty; every player then scores minus the sum of
// the distinct numbers left in hand. After ROUNDS rounds the highest total wins.
//
// Hands are secret: `playerView` shows each player only its own hand (the others' sizes are
// public). Moves run on the server only (`client: false`), as a game with secrets must.

const { INVALID_MOVE } = require('boardgame.io/core');

const SUITS = ['M', 'S', 'A', 'B'];
const NUMBERS = [2, 3, 4, 5, 6, 7, 8, 9];
const PLAYERS = 4;
const HAND = 8;
const ROUNDS = 2;

const numberOf = (card) => Number(card[0]);

function deal(G, random) {
  const deck = random.Shuffle(NUMBERS.flatMap((n) => SUITS.map((s) => `${n}${s}`)));
  for (let p = 0; p < PLAYERS; p++) {
    G.hands[p] = deck.slice(p * HAND, (p + 1) * HAND);
  }
  G.field = [];
  G.fieldBy = null;
  G.passes = 0;
}

function setup({ random }) {
  const G = {
    hands: {},
    field: [],
    fieldBy: null,
    passes: 0,
    round: 1,
    leader: 0,
    next: 0,
    scores: Array(PLAYERS).fill(0),
    penalties: [],
  };
  deal(G, random);
  return G;
}

// The plays a hand may make on a field: one per (number, count); the lowest suits first.
function plays(hand, field) {
  const byNumber = new Map();
  for (const card of hand) {
    const n = numberOf(card);
    if (!byNumber.has(n)) byNumber.set(n, []);
    byNumber.get(n).push(card);
  }
  const out = [];
  const fieldNumber = field.length ? numberOf(field[0]) : 0;
  for (const [n, cards] of byNumber) {
    cards.sort();
    for (let count = 1; count <= cards.length; count++) {
      if (field.length === 0 || (count === field.length && n > fieldNumber)) {
        out.push(cards.slice(0, count));
      }
    }
  }
  return out;
}

function endRound(G, random) {
  const penalties = [];
  for (let p = 0; p < PLAYERS; p++) {
    const penalty = [...new Set(G.hands[p].map(numberOf))].reduce((a, b) => a + b, 0);
    penalties.push(penalty);
    G.scores[p] -= penalty;
  }
  G.penalties.push(penalties);
  G.round += 1;
  if (G.round <= ROUNDS) {
    deal(G, random);
    G.leader = (G.leader + 1) % PLAYERS;
    G.next = G.leader;
  }
}

function play({ G, ctx, playerID, random }, cards) {
  const p = Number(playerID);
  const hand = G.hands[p];
  if (!Array.isArray(cards) || cards.length === 0 || !cards.every((c) => hand.includes(c))) {
    return INVALID_MOVE;
  }
  const n = numberOf(cards[0]);
  const fieldNumber = G.field.length ? numberOf(G.field[0]) : 0;
  const fits = G.field.length === 0 || (cards.length === G.field.length && n > fieldNumber);
  if (new Set(cards).size !== cards.length || !cards.every((c) => numberOf(c) === n) || !fits) {
    return INVALID_MOVE;
  }
  G.hands[p] = hand.filter((c) => !cards.includes(c));
  G.field = [...cards];
  G.fieldBy = p;
  G.passes = 0;
  G.next = (p + 1) % ctx.numPlayers;
  if (G.hands[p].length === 0) endRound(G, random);
}

function pass({ G, ctx, playerID }) {
  const p = Number(playerID);
  if (G.field.length === 0) return INVALID_MOVE;
  G.passes += 1;
  if (G.passes >= ctx.numPlayers - 1) {
    G.field = [];
    G.passes = 0;
    G.next = G.fieldBy;
    G.fieldBy = null;
  } else {
    G.next = (p + 1) % ctx.numPlayers;
  }
}

// Every move a player may make now, as boardgame.io's bots enumerate them.
function enumerate(G, ctx, playerID) {
  const hand = G.hands[playerID];
  if (!hand || ctx.gameover) return [];
  const moves = plays(hand, G.field).map((cards) => ({ move: 'play', args: [cards] }));
  if (G.field.length > 0) moves.push({ move: 'pass', args: [] });
  return moves;
}

function playerView({ G, playerID }) {
  const hands = {};
  const handSizes = {};
  for (const [p, hand] of Object.entries(G.hands)) {
    handSizes[p] = hand.length;
    if (p === String(playerID)) hands[p] = hand;
  }
  return { ...G, hands, handSizes };
}

const Climb = {
  name: 'climb',
  minPlayers: PLAYERS,
  maxPlayers: PLAYERS,
  setup,
  moves: {
    play: { move: play, client: false },
    pass: { move: pass, client: false },
  },
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: ({ G }) => G.next,
      next: ({ G }) => G.next,
    },
  },
  endIf: ({ G }) => {
    if (G.round <= ROUNDS) return undefined;
    const best = Math.max(...G.scores);
    return { winners: G.scores.flatMap((s, p) => (s === best ? [String(p)] : [])) };
  },
  playerView,
  ai: { enumerate },
};

module.exports = { Climb, enumerate, ROUNDS, PLAYERS };
