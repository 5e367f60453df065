// Exact Plays at the web table: cards, seats, the field, the controls and the words for
// events. Rules: /rules/exact-plays (EP-1 … EP-19). The controls are exactly the
// view's legal_actions; nothing here decides what is legal (whyUnusable only puts into words
// why the view's legal actions leave a card out).

import { h, listing, plural, ruleRef } from "../dom.js";

const SUIT_LETTERS = { mushroom: "M", splat: "S", acorn: "A", bolt: "B" };

export const title = "Exact Plays";

function cardText(card) {
  return `${card.number} ${card.suit}`;
}

const OPTION_NAMES = { decks: "The stacked decks" };

/** An option's name as a player reads it (the secret ones are revealed at the end). */
export function optionName(name) {
  return OPTION_NAMES[name] || name.replaceAll("_", " ");
}

export function cardName(card) {
  return cardText(card);
}

export function renderCard(card, { small = false } = {}) {
  const label = cardText(card);
  return h(
    "span",
    {
      class: ["card", "ep", `ep-${card.suit}`, small && "small"],
      dataset: { cardId: card.id, code: card.code },
      role: "img",
      "aria-label": label,
      title: label,
    },
    h("span", { class: "card-value", "aria-hidden": "true" }, String(card.number)),
    h("span", { class: "card-name", "aria-hidden": "true" }, card.suit),
    h("span", { class: "suit-mark", "aria-hidden": "true" }, SUIT_LETTERS[card.suit] || ""),
  );
}

function wildCard(wild, { small = true } = {}) {
  const label = `Wild token as ${wild.number}${wild.suit ? ` ${wild.suit}` : ""}`;
  return h(
    "span",
    { class: ["card", "ep", "ep-wild", small && "small"], role: "img", "aria-label": label, title: label },
    h("span", { class: "card-value", "aria-hidden": "true" }, String(wild.number)),
    h("span", { class: "card-name", "aria-hidden": "true" }, "wild"),
  );
}

export function sortHand(cards) {
  return [...cards]; // the server keeps hands in canonical order (number, then suit)
}

function plays(count) {
  return plural(count, "play");
}

function tokens(play, wild) {
  return `${play} Play, ${wild} Wild`;
}

// The view's start_player is whoever plays first on the latest empty field: the round's
// start player, then whoever the field came back to or a pass handed the start (EP-4, EP-5,
// EP-10). "Start player" would read as the round's, which the log names once: "Leads now".
export function seatDetails(view, seat, ctx) {
  const pub = view.public;
  const info = pub.seats[seat];
  let declaration;
  if (info.declaration !== null && info.declaration !== undefined) declaration = plays(info.declaration);
  else if (pub.phase === "declare") declaration = info.declared ? "yes, secret" : "not yet";
  else declaration = "—";
  const rps = pub.rps;
  return [
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Total"),
      h("dd", { class: "score" }, String(info.total)),
      h("dt", {}, "Hand"),
      h("dd", {}, plural(info.hand_size, "card")),
      h("dt", {}, "Tokens"),
      h("dd", {}, tokens(info.play_tokens, info.wild_tokens)),
      h("dt", {}, "Declared"),
      h("dd", {}, declaration),
      pub.start_player === seat ? [h("dt", {}, "Leads now"), h("dd", {}, "yes")] : null,
      rps && pub.phase === "rps" && rps.players.includes(seat)
        ? [h("dt", {}, "Throw"), h("dd", {}, rps.chosen.includes(seat) ? "has chosen" : "choosing")]
        : null,
    ),
  ];
}

export function phaseText(view, ctx) {
  lastCtx = ctx;
  const pub = view.public;
  const round = `Round ${pub.round} of ${pub.rounds}`;
  switch (pub.phase) {
    case "declare":
      return `${round}: everyone declares, secretly, how many plays they need to empty their hand.`;
    case "rps":
      return `${round}: a tie for start player, settled by rock-paper-scissors.`;
    case "play":
      return `${round}: ${ctx.me === pub.turn ? "your" : `${ctx.Name(pub.turn)}'s`} turn.`;
    default:
      return "The game is over.";
  }
}

/** What the status line says after phaseText when the game awaits you: what you may do,
 * and why when it is less than a player expects (EP-7, EP-9, EP-10, EP-11). */
export function yourMove(view) {
  const pub = view.public;
  if (pub.phase === "declare") return "Choose how many plays you declare.";
  if (pub.phase === "rps") return "Choose rock, paper or scissors.";
  const actions = view.legal_actions;
  const types = new Set(actions.map((action) => action.type));
  const draw = types.has("draw") ? "draw a card" : null;
  const pass = types.has("pass") ? `pass${actions.some((action) => action.switch) ? " (you may turn a token over)" : ""}` : null;
  const either = (...moves) => listing(moves.filter(Boolean)).replace(/ and ([^,]*)$/, " or $1");
  if (types.has("play")) {
    if (!pub.field.length) return `The field is empty: play any single, set or run${draw ? ", or draw a card" : ""}.`;
    return `${capital(either("beat the field", pass, draw))}.`;
  }
  if (!pass && !draw) return "It's your move.";
  let why = "You cannot beat the field";
  if (!view.you?.hand?.length) why = "You have no cards left";
  else if (!view.you.play_tokens) why = "You have no Play token left";
  return `${why}: ${either(pass, draw)}.`;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function centre(view, ctx) {
  lastCtx = ctx;
  const pub = view.public;
  const field = pub.field.length
    ? h(
        "div",
        { class: "field" },
        h(
          "ul",
          { class: "card-row", "aria-label": "Cards on the field" },
          pub.field.map((card) => h("li", {}, renderCard(card))),
          pub.field_wild ? h("li", {}, wildCard(pub.field_wild, { small: false })) : null,
        ),
        h("p", {}, `A ${pub.field_kind || "play"} by ${ctx.name(pub.field_by)}.${pub.phase === "play" ? ` ${beatWords(pub)}` : ""}`),
      )
    : h("p", { class: "muted" }, pub.phase === "play" ? "The field is empty: any play goes." : "The field is empty.");
  const facts = h(
    "dl",
    { class: "facts piles" },
    h("dt", {}, "Round"),
    h("dd", {}, `${pub.round} of ${pub.rounds}`),
    h("dt", {}, "Token pile"),
    h("dd", {}, String(pub.token_pile)),
    pub.draw_pile !== null && pub.draw_pile !== undefined
      ? [h("dt", {}, "Draw pile"), h("dd", {}, plural(pub.draw_pile, "card"))]
      : null,
    h("dt", {}, "Cleared"),
    h("dd", {}, `${plural(pub.cleared.length, "card")} this round`),
    pub.start_player !== null && pub.start_player !== undefined
      ? [h("dt", {}, "Leads now"), h("dd", {}, ctx.Name(pub.start_player))]
      : null,
  );
  const parts = [h("h3", { class: "sub" }, "The field"), field, facts];
  if (pub.rps?.throws?.length) {
    parts.push(
      h(
        "div",
        { class: "throws" },
        h("h3", { class: "sub" }, "Rock-paper-scissors"),
        h(
          "ol",
          {},
          pub.rps.throws.map((thrown) =>
            h(
              "li",
              {},
              `${throwWords(thrown, ctx, (seat) => ctx.Name(seat))}: ${throwOutcome(thrown, ctx)}.`,
            ),
          ),
        ),
      ),
    );
  }
  if (pub.penalties.length) {
    parts.push(
      // On a phone four players' columns may be wider than the panel: the table scrolls in its box.
      h(
        "div",
        { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Penalties by round" },
        h(
          "table",
          { class: "penalties" },
          h("caption", {}, "Penalties by round"),
          h(
            "thead",
            {},
            h("tr", {}, h("th", { scope: "col" }, "Round"), pub.seats.map((seat) => h("th", { scope: "col" }, ctx.Name(seat.seat)))),
          ),
          h(
            "tbody",
            {},
            pub.penalties.map((row, index) =>
              h("tr", {}, h("th", { scope: "row" }, String(index + 1)), row.map((value) => h("td", {}, String(value)))),
            ),
            h("tr", { class: "total" }, h("th", { scope: "row" }, "Total"), pub.totals.map((value) => h("td", {}, String(value)))),
          ),
        ),
      ),
      h("p", { class: "hint penalty-help" }, PENALTY_HELP, " ", ruleRef("EP-14", "EP-15")),
    );
  }
  return parts;
}

export function youDetails(view) {
  const you = view.you;
  if (!you) return [];
  const declaration =
    you.declaration === null || you.declaration === undefined ? "not yet" : plays(you.declaration);
  return [
    h(
      "dl",
      { class: "facts ep-you" },
      h("dt", {}, "Your declaration"),
      h("dd", {}, declaration),
      h("dt", {}, "Your tokens"),
      h("dd", {}, tokens(you.play_tokens, you.wild_tokens)),
      you.rps_choice ? [h("dt", {}, "Your throw"), h("dd", {}, you.rps_choice)] : null,
    ),
  ];
}

function describeAction(action, byId) {
  switch (action.type) {
    case "declare":
      return { group: "declare", cards: [], label: `${action.tokens}`, ariaLabel: `Declare ${plays(action.tokens)}` };
    case "rps":
      return { group: "rps", cards: [], label: action.shape[0].toUpperCase() + action.shape.slice(1) };
    case "pass": {
      const switched = {
        to_wild: "Pass, and turn a Play token to its Wild side",
        to_play: "Pass, and turn a Wild token back to Play",
      }[action.switch];
      return { group: "turn", cards: [], label: switched || "Pass" };
    }
    case "draw":
      return { group: "turn", cards: [], label: "Draw a card (your turn ends)" };
    case "play": {
      const played = action.cards.map((id) => byId.get(id)).map((card, index) => (card ? cardText(card) : action.cards[index]));
      const wild = action.wild === null || action.wild === undefined ? "" : ` + Wild as ${action.wild}`;
      return { group: "play", cards: [...action.cards], label: `Play ${played.join(", ")}${wild}` };
    }
    default:
      return null;
  }
}

// What a newcomer needs at the declaration (EP-3, EP-7, EP-14): what a play is, and what
// a wrong guess costs.
const DECLARE_HELP = [
  "How many plays will you need to empty your hand? A play is one of your turns in which you put",
  "down cards: a single card, a set (two or more cards of one number) or a run (two or more",
  "numbers in a row, all of one suit). You take one Play token per play you declare, and each",
  "play costs one. Secret until everyone has declared; you may change it until then.",
].join(" ");
const PENALTY_HELP = [
  "A round's penalty, in minus points: the distinct numbers left in your hand (four 9s count 9",
  "once), plus 10 if you still hold a Play token, plus 10 if you hold a Wild token. The total",
  "closest to 0 wins.",
].join(" ");

// What a Wild token is for (EP-8, EP-10), next to the passes that turn one over.
const WILD_HELP = [
  "A Wild token is a joker: add it to one of your plays as any number from 1 to 10 (the play",
  "still costs a Play token; the Wild token then goes back to the pile). Turning a Play token",
  "to Wild leaves you one play fewer but gives you that joker; turning it back undoes that.",
].join(" ");

const GROUPS = [
  ["declare", "Declare", () => [DECLARE_HELP, " ", ruleRef("EP-3", "EP-7"), h("br"), PENALTY_HELP, " ", ruleRef("EP-14")]],
  ["rps", "Rock, paper or scissors?", "Your throw stays secret until every tied player has chosen."],
  ["turn", "Your turn", (items) => (items.some((item) => item.action.switch) ? [WILD_HELP, " ", ruleRef("EP-8", "EP-10")] : null)],
  ["play", "Play", "Each play costs a Play token."],
];

export function actionGroups(view) {
  const byId = new Map((view.you?.hand || []).map((card) => [card.id, card]));
  const grouped = new Map(GROUPS.map(([key]) => [key, []]));
  const other = [];
  for (const action of view.legal_actions) {
    const described = describeAction(action, byId);
    if (described && grouped.has(described.group)) {
      grouped.get(described.group).push({ action, label: described.label, ariaLabel: described.ariaLabel, cards: described.cards });
    } else {
      other.push({ action, label: actionWords(action), cards: [] });
    }
  }
  const groups = GROUPS.filter(([key]) => grouped.get(key).length).map(([key, title, hint]) => ({
    key,
    title,
    hint: typeof hint === "function" ? hint(grouped.get(key)) : hint,
    items: grouped.get(key),
    compact: key === "declare" || key === "rps",
  }));
  if (other.length) groups.push({ key: "other", title: "Other moves", hint: null, items: other });
  return groups;
}

const ACTION_TITLES = {
  declare: "declares",
  rps: "throws rock, paper or scissors",
  play: "plays",
  pass: "passes",
  draw: "draws a card",
};

/** What a move does, in a few words: a replay's step title ("Bea: gives a chore"). */
export function actionTitle(action) {
  return ACTION_TITLES[action?.type] || String(action?.type ?? "").replaceAll("_", " ");
}

/** An action this page has no words for (a newer server), said as plainly as it can. */
function actionWords(action) {
  const { type, ...fields } = action;
  const parts = Object.entries(fields).map(([name, value]) => `${name.replaceAll("_", " ")} ${Array.isArray(value) ? value.join(", ") : value}`);
  const text = `${String(type).replaceAll("_", " ")}${parts.length ? ` (${parts.join("; ")})` : ""}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The numbers on the field, the Wild token's included (it counts for EP-7's test, EP-8). */
function fieldNumbers(pub) {
  const numbers = pub.field.map((card) => card.number);
  if (pub.field_wild) numbers.push(pub.field_wild.number);
  return numbers;
}

// Cards go from 2 to 9; a Wild token may stand for 1 to 10 (EP-8).
const LOWEST_CARD = 2;
const HIGHEST_CARD = 9;

/** How to beat the field, with its numbers (EP-7), leaving out what no play can do and
 * saying when only a Wild token can; [] when nothing can. */
function beatWays(pub) {
  const numbers = fieldNumbers(pub);
  const count = numbers.length;
  const high = Math.max(...numbers);
  const low = Math.min(...numbers);
  const ways = [];
  if (high < 10) {
    const higher = count === 1 ? `one card higher than ${high}` : `${count} cards, one of them higher than ${high}`;
    ways.push(high >= HIGHEST_CARD ? `${higher} (only with a Wild token as 10)` : higher);
  }
  if (low > 1) {
    const lower = `${count + 1} cards, one of them lower than ${low}`;
    ways.push(low <= LOWEST_CARD ? `${lower} (only with a Wild token as 1)` : lower);
  }
  return ways;
}

function beatWords(pub) {
  const ways = beatWays(pub);
  if (!ways.length) return "Nothing can beat it: pass.";
  return `Beat it with ${ways.join(", or with ")}.`;
}

/** Why no legal action uses `card` now, or null. Asked only while the seat has a move. */
export function whyUnusable(view) {
  const pub = view.public;
  if (!pub || !view.you || pub.phase !== "play") return null;
  if (!view.you.play_tokens) {
    return { text: "You have no Play token left, so you cannot play cards again this round: you can only pass.", rule: "EP-7" };
  }
  if (pub.field.length) {
    return { text: `Not part of any play that beats the ${pub.field_kind || "play"} on the field (how to beat it is under "The field").`, rule: "EP-7" };
  }
  return null;
}

/** Why no legal play uses all the picked cards together (each is usable on its own), or
 * null: not a set nor a run (EP-7), a gap no Wild token fills (EP-8), the wrong number of
 * cards for the field, or too low to beat it (EP-7). */
export function whyNotTogether(view, cards) {
  const pub = view.public;
  if (!pub || pub.phase !== "play" || cards.length < 2) return null;
  const numbers = cards.map((card) => card.number).sort((a, b) => a - b);
  const wild = (view.you?.wild_tokens || 0) > 0;
  let gap = 0; // cards a run still needs between its numbers, each only a Wild token can be
  if (numbers.some((number) => number !== numbers[0])) {
    if (cards.some((card) => card.suit !== cards[0].suit)) {
      return "they are neither a set (cards of one number) nor a run (numbers in a row, all of one suit)";
    }
    const missing = [];
    for (let number = numbers[0] + 1; number < numbers[numbers.length - 1]; number += 1) {
      if (!numbers.includes(number)) missing.push(number);
    }
    if (missing.length > 1) {
      return `they are not a run: ${listing(missing.map(String))} are missing between them, and a Wild token stands for one card only`;
    }
    if (missing.length && !wild) return `they are not a run: ${missing[0]} is missing between them, and you have no Wild token to stand for it`;
    gap = missing.length;
  }
  if (!pub.field.length) return null;
  const fieldSize = fieldNumbers(pub).length;
  const fewest = cards.length + gap;
  const most = cards.length + (wild ? 1 : 0);
  const sizes = `on a field of ${plural(fieldSize, "card")} a play has ${fieldSize} or ${fieldSize + 1} cards`;
  if (fewest > fieldSize + 1) return `${sizes}, and these make ${fewest}${gap ? " with the Wild token" : ""}`;
  if (most < fieldSize) return `${sizes}, and these make only ${most}${wild ? " with a Wild token" : ""}`;
  const ways = beatWays(pub);
  return `together they do not beat the ${pub.field_kind || "play"} on the field${ways.length ? `: it takes ${ways.join(", or ")}` : ""}`;
}

function playedWords(event) {
  const cards = event.cards.map(cardText);
  const wild = event.wild ? ` + Wild as ${event.wild.number}` : "";
  return `${listing(cards)}${wild}`;
}

const START_REASONS = {
  most_tokens: "most tokens",
  rock_paper_scissors: "won rock-paper-scissors",
  random: "drawn among the tied players",
  field_cleared: "the field came back",
  pass: "after a pass",
};

// Why a move was made by the server (EP-9, docs/rules "Rulings"): it was the seat's only move.
const AUTO_PLAY = ", automatically: with one card left and an empty field, it was the only move";
const AUTO_PASS = " automatically: with no tokens left, passing was the only move";

/** Who threw what: "Bea paper and Tess rock". */
function throwWords(thrown, ctx, name) {
  return listing(thrown.shapes.map((shape, seat) => (shape ? `${name(seat)} ${shape}` : null)).filter(Boolean));
}

/** What a throw of rock-paper-scissors decided (EP-4): throw again, who is out, or who wins
 * and starts the round. */
function throwOutcome(thrown, ctx) {
  const you = (seat) => seat === ctx.me;
  if (thrown.replay) {
    const shapes = new Set(thrown.shapes.filter(Boolean)).size;
    return shapes === 1 ? "a tie, throw again" : "all three shapes, nobody wins: throw again";
  }
  const remaining = thrown.remaining || [];
  if (remaining.length === 1) {
    const [winner] = remaining;
    return `${ctx.name(winner)} ${you(winner) ? "win and start" : "wins and starts"}`;
  }
  const out = thrown.shapes.map((shape, seat) => (shape && !remaining.includes(seat) ? seat : null)).filter((seat) => seat !== null);
  const are = out.length === 1 && !you(out[0]) ? "is" : "are";
  return `${listing(out.map((seat) => ctx.name(seat)))} ${are} out, ${listing(remaining.map((seat) => ctx.name(seat)))} throw again`;
}

function possessive(seat, ctx) {
  return seat === ctx.me ? "your" : `${ctx.name(seat)}'s`;
}

function roundEndWords(event, ctx) {
  switch (event.reason) {
    case "no_play_tokens":
      return "nobody has a Play token left";
    case "out_of_cards": {
      const out = (event.hand_sizes || []).map((size, seat) => (size === 0 ? seat : null)).filter((seat) => seat !== null);
      if (!out.length) return "the field was cleared while someone was out of cards";
      const was = out.length === 1 && out[0] !== ctx.me ? "was" : "were";
      return `the field was cleared while ${listing(out.map((seat) => ctx.name(seat)))} ${was} out of cards`;
    }
    case "turn_limit":
      return "the game's turn limit was reached";
    default:
      return String(event.reason).replaceAll("_", " ");
  }
}

export function describe(event, ctx) {
  const who = event.seat === undefined ? "" : ctx.Name(event.seat);
  const secret = (key) => event[key] ?? event.private?.[key];
  switch (event.type) {
    case "round_started": {
      const hand = secret("hand");
      return `Round ${event.round} begins${hand ? `: your new hand is ${listing(hand.map(cardText))}` : ""}.`;
    }
    case "declared": {
      const count = secret("tokens");
      if (event.changed) return `${who} changed ${ctx.me === event.seat ? "your" : "their"} declaration${count === undefined ? "" : ` to ${plays(count)}`}.`;
      return count === undefined ? `${who} declared.` : `${who} declared ${plays(count)}.`;
    }
    case "declarations_revealed":
      return `Declarations: ${event.declarations.map((count, seat) => `${ctx.name(seat)}: ${plays(count)}`).join("; ")}.`;
    case "rps_started":
      return `${listing(event.players.map((seat) => ctx.Name(seat)))} tie for start player: rock-paper-scissors!`;
    case "rps_chosen": {
      const shape = secret("shape");
      return shape ? `${who} chose ${shape}.` : `${who} has chosen a shape.`;
    }
    case "rps_revealed":
      return `Throw ${event.throw}: ${throwWords(event, ctx, (seat) => ctx.name(seat))}: ${throwOutcome(event, ctx)}.`;
    case "start_player":
      if (event.reason === "field_cleared") return null; // said by the field_cleared just before
      return `${who} ${ctx.me === event.seat ? "start" : "starts"} (${START_REASONS[event.reason] || event.reason}).`;
    case "played":
      return `${who} played ${playedWords(event)}${event.kind ? ` (${event.kind})` : ""}${event.auto ? AUTO_PLAY : ""}.`;
    case "passed": {
      const switched = { to_wild: " and turned a Play token to Wild", to_play: " and turned a Wild token to Play" }[event.switch] || "";
      return `${who} passed${switched}${event.auto ? AUTO_PASS : ""}.`;
    }
    case "drew": {
      const card = secret("card");
      return card ? `${who} drew ${cardText(card)}.` : `${who} drew a card.`;
    }
    case "field_cleared":
      return event.reason === "returned"
        ? `Nobody beat ${possessive(event.by, ctx)} play: the field is cleared and ${ctx.name(event.by)} ${event.by === ctx.me ? "start" : "starts"} again.`
        : "The field was cleared after the pass.";
    case "round_ended":
      return `Round ${event.round} is over (${roundEndWords(event, ctx)}). Penalties: ${listing(event.penalties.map((value, seat) => `${ctx.name(seat)} ${penaltyWords(event, seat)}`))}.`;
    default:
      return null;
  }
}

/** One seat's penalty for the round, and where it comes from (EP-14): "-24 (4 for the
 * numbers left in hand, 10 for Play tokens left, 10 for Wild tokens left)". */
function penaltyWords(event, seat) {
  const penalty = event.penalties[seat];
  const playTokens = event.play_tokens?.[seat] ? 10 : 0;
  const wildTokens = event.wild_tokens?.[seat] ? 10 : 0;
  const numbers = -penalty - playTokens - wildTokens;
  if (!penalty || !event.play_tokens || numbers < 0) return String(penalty);
  const parts = [
    numbers ? `${numbers} for the numbers left in hand` : null,
    playTokens ? "10 for Play tokens left" : null,
    wildTokens ? "10 for Wild tokens left" : null,
  ];
  return `${penalty} (${listing(parts.filter(Boolean))})`;
}

// table.js calls resultReason(result) without a ctx; the names come from the last ctx seen.
let lastCtx = null;

/** Why the game ended and who won, with names: "you reached -52 (-50 or lower ends the game
 * early); Bea is closest to 0" (EP-15, EP-16). */
export function resultReason(result, ctx = lastCtx) {
  const scores = result.scores || [];
  const name = (seat) => (ctx ? ctx.name(seat) : `Seat ${seat + 1}`);
  const winners = result.winners || [];
  const youWin = winners.length === 1 && ctx && winners[0] === ctx.me;
  const closest = winners.length
    ? `${listing(winners.map(name))} ${winners.length > 1 || youWin ? "are" : "is"} closest to 0`
    : "";
  let why;
  if (result.reason === "minus_50") {
    const low = scores.map((score, seat) => (score <= -50 ? seat : null)).filter((seat) => seat !== null);
    why = `${listing(low.map((seat) => `${name(seat)} reached ${scores[seat]}`))} (-50 or lower ends the game early)`;
  } else if (result.reason === "rounds") {
    why = `all ${plural(result.rounds?.length || 0, "round")} have been played`;
  } else if (result.reason === "turn_limit") {
    why = "the game's turn limit was reached";
  } else {
    why = String(result.reason || "").replaceAll("_", " ");
  }
  return closest ? `${why}; ${closest}` : why;
}

// --- the replay: the public table followed through the events ----------------------------

// Events the replay leaves out because the line before already says who starts (describe
// gives no words for some of them).
export const saidElsewhere = ["start_player"];

/** The table before the first event: round 1, nobody has declared, no tokens, an empty field. */
export function replayStart(replay) {
  const zeros = () => new Array(replay.players).fill(0);
  return {
    round: 1,
    field: [],
    fieldWild: null,
    fieldKind: null,
    fieldBy: null,
    playTokens: zeros(),
    wildTokens: zeros(),
    declarations: new Array(replay.players).fill(null),
    revealed: false,
  };
}

/** The table after one event (a replay shows every event's secret part). */
export function replayEvent(table, event) {
  const next = { ...table };
  const setTokens = (seat) => {
    next.playTokens = table.playTokens.map((count, index) => (index === seat ? event.play_tokens : count));
    next.wildTokens = table.wildTokens.map((count, index) => (index === seat ? event.wild_tokens : count));
  };
  switch (event.type) {
    case "round_started":
      return { ...replayStart({ players: table.declarations.length }), round: event.round };
    case "declared":
      if (event.tokens !== undefined) next.declarations = table.declarations.map((count, seat) => (seat === event.seat ? event.tokens : count));
      return next;
    case "declarations_revealed":
      next.declarations = [...event.declarations];
      next.playTokens = [...event.declarations];
      next.revealed = true;
      return next;
    case "played":
      Object.assign(next, { field: event.cards, fieldWild: event.wild, fieldKind: event.kind, fieldBy: event.seat });
      setTokens(event.seat);
      return next;
    case "passed":
      setTokens(event.seat);
      return next;
    case "field_cleared":
      return { ...next, field: [], fieldWild: null, fieldKind: null, fieldBy: null };
    case "round_ended":
      // The tokens still held are part of the round's penalty (EP-14): they show until the next deal.
      return { ...next, field: [], fieldWild: null, fieldKind: null, fieldBy: null, playTokens: [...event.play_tokens], wildTokens: [...event.wild_tokens] };
    default:
      return table;
  }
}

/** The followed table in a replay: the round, the field, each seat's declaration and tokens. */
export function replayTable(table, ctx) {
  const field = table.field.length
    ? h(
        "div",
        { class: "field" },
        h(
          "ul",
          { class: "card-row", "aria-label": "Cards on the field" },
          table.field.map((card) => h("li", {}, renderCard(card, { small: true }))),
          table.fieldWild ? h("li", {}, wildCard(table.fieldWild)) : null,
        ),
        h("p", {}, `A ${table.fieldKind || "play"} by ${ctx.name(table.fieldBy)}.`),
      )
    : h("p", { class: "muted" }, "The field is empty.");
  const declared = (seat) => {
    const count = table.declarations[seat];
    if (count === null || count === undefined) return "not yet";
    return table.revealed ? plays(count) : `${plays(count)} (secret)`;
  };
  return [
    h("p", { id: "replay-round" }, `Round ${table.round}`),
    h("h3", { class: "sub" }, "The field"),
    field,
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "scores replay-seats" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Declared"), h("th", { scope: "col" }, "Tokens"))),
        h(
          "tbody",
          { id: "replay-seat-rows" },
          table.declarations.map((_, seat) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, ctx.Name(seat)),
              h("td", {}, declared(seat)),
              h("td", {}, tokens(table.playTokens[seat], table.wildTokens[seat])),
            ),
          ),
        ),
      ),
    ),
  ];
}

// --- the lobby ---------------------------------------------------------------------------

// The ruling that describes the turn clock's options (EP-19), cited beside them in the lobby.
export const clockRule = "EP-19";

// A player's words for each option (the API's descriptions are written for programmers), read
// by the lobby (docs/web.md, "Renderers"): label and help say what the option changes; rule is
// the ruling it belongs to; choices names each value; empty says what an empty number means;
// unit follows a number; seats: the value is a seat; example shows a value written as JSON.
// An option with no help here goes under "Advanced", with the API's description.
export const optionTexts = {
  tiebreak: {
    label: "Tie for start player",
    rule: "EP-4",
    help: "When several players declare the most tokens, this decides which of them starts.",
    choices: { rps: "Rock-paper-scissors", random: "Drawn at random" },
  },
  turn_limit: {
    label: "Turn limit",
    rule: "EP-16",
    help:
      "A house rule so that no game goes on for ever: after this many turns in the whole " +
      "game (plays, passes and draws, automatic ones too) the round under way is scored and " +
      "the game ends.",
    unit: "turns",
  },
  decks: { label: "Stacked decks, one per round" },
};
