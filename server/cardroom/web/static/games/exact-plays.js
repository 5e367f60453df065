// Exact Plays at the web table: cards, seats, the field, the controls and the words for
// events. Rules: docs/rules/exact-plays.md (EP-1 … EP-17). The controls are exactly the
// view's legal_actions; nothing here decides what is legal.

import { h, listing } from "../dom.js";

const SUIT_LETTERS = { mushroom: "M", splat: "S", acorn: "A", bolt: "B" };

export const title = "Exact Plays";

function cardText(card) {
  return `${card.number} ${card.suit}`;
}

export function renderCard(card, { small = false } = {}) {
  const label = `${card.number} of ${card.suit}`;
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
  const label = `Wild token as ${wild.number}${wild.suit ? ` of ${wild.suit}` : ""}`;
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
  return `${count} play${count === 1 ? "" : "s"}`;
}

function tokens(play, wild) {
  return `${play} Play, ${wild} Wild`;
}

export function seatDetails(view, seat, ctx) {
  const pub = view.public;
  const info = pub.seats[seat];
  let declaration;
  if (info.declaration !== null && info.declaration !== undefined) declaration = plays(info.declaration);
  else if (pub.phase === "declare") declaration = info.declared ? "declared (secret)" : "not yet";
  else declaration = "—";
  const rps = pub.rps;
  return [
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Total"),
      h("dd", { class: "score" }, String(info.total)),
      h("dt", {}, "Hand"),
      h("dd", {}, `${info.hand_size} card${info.hand_size === 1 ? "" : "s"}`),
      h("dt", {}, "Tokens"),
      h("dd", {}, tokens(info.play_tokens, info.wild_tokens)),
      h("dt", {}, "Declared"),
      h("dd", {}, declaration),
      pub.start_player === seat ? [h("dt", {}, "Start"), h("dd", {}, "start player")] : null,
      rps && pub.phase === "rps" && rps.players.includes(seat)
        ? [h("dt", {}, "Throw"), h("dd", {}, rps.chosen.includes(seat) ? "has chosen" : "choosing")]
        : null,
    ),
  ];
}

export function phaseText(view, ctx) {
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

export function centre(view, ctx) {
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
        h("p", {}, `A ${pub.field_kind || "play"} by ${ctx.name(pub.field_by)}. Beat it with as many cards and one higher, or one card more with one lower.`),
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
      ? [h("dt", {}, "Draw pile"), h("dd", {}, `${pub.draw_pile} cards`)]
      : null,
    h("dt", {}, "Cleared"),
    h("dd", {}, `${pub.cleared.length} cards this round`),
    pub.start_player !== null && pub.start_player !== undefined
      ? [h("dt", {}, "Start player"), h("dd", {}, ctx.Name(pub.start_player))]
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
              listing(
                thrown.shapes
                  .map((shape, seat) => (shape ? `${ctx.Name(seat)}: ${shape}` : null))
                  .filter(Boolean),
              ),
              thrown.replay ? " (again)" : "",
            ),
          ),
        ),
      ),
    );
  }
  if (pub.penalties.length) {
    parts.push(
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
      { class: "facts" },
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
      return { group: "declare", cards: [], label: `${action.tokens}` };
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

const GROUPS = [
  ["declare", "Declare", "How many plays will you need to empty your hand? Secret until everyone has declared."],
  ["rps", "Rock, paper or scissors?", "Your throw stays secret until every tied player has chosen."],
  ["turn", "Your turn", null],
  ["play", "Play", "Pick cards in your hand to narrow the list. Each play costs a Play token."],
];

export function actionGroups(view) {
  const byId = new Map((view.you?.hand || []).map((card) => [card.id, card]));
  const grouped = new Map(GROUPS.map(([key]) => [key, []]));
  const other = [];
  for (const action of view.legal_actions) {
    const described = describeAction(action, byId);
    if (described && grouped.has(described.group)) {
      grouped.get(described.group).push({ action, label: described.label, cards: described.cards });
    } else {
      other.push({ action, label: JSON.stringify(action), cards: [] });
    }
  }
  const groups = GROUPS.filter(([key]) => grouped.get(key).length).map(([key, title, hint]) => ({
    key,
    title,
    hint,
    items: grouped.get(key),
    compact: key === "declare" || key === "rps",
  }));
  if (other.length) groups.push({ key: "other", title: "Other actions", hint: null, items: other });
  return groups;
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

const ROUND_END_REASONS = {
  no_play_tokens: "no Play tokens left",
  out_of_cards: "the field was cleared while someone was out of cards",
  turn_limit: "the turn limit",
};

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
      if (event.changed) return `${who} changed ${ctx.me === event.seat ? "your" : "their"} declaration${count === undefined ? "" : ` to ${count}`}.`;
      return count === undefined ? `${who} declared.` : `${who} declared ${count} play${count === 1 ? "" : "s"}.`;
    }
    case "declarations_revealed":
      return `Declarations: ${listing(event.declarations.map((count, seat) => `${ctx.name(seat)} ${count}`))}.`;
    case "rps_started":
      return `${listing(event.players.map((seat) => ctx.Name(seat)))} tie for start player: rock-paper-scissors!`;
    case "rps_chosen": {
      const shape = secret("shape");
      return shape ? `${who} chose ${shape}.` : `${who} has chosen a shape.`;
    }
    case "rps_revealed": {
      const shown = event.shapes.map((shape, seat) => (shape ? `${ctx.name(seat)} ${shape}` : null)).filter(Boolean);
      const after = event.replay ? "again!" : `${listing(event.remaining.map((seat) => ctx.name(seat)))} stay${event.remaining.length === 1 && ctx.me !== event.remaining[0] ? "s" : ""} in.`;
      return `Throw ${event.throw}: ${listing(shown)}; ${after}`;
    }
    case "start_player":
      return `${who} ${ctx.me === event.seat ? "start" : "starts"} (${START_REASONS[event.reason] || event.reason}).`;
    case "played":
      return `${who} played ${playedWords(event)}${event.kind ? ` (${event.kind})` : ""}${event.auto ? ", automatically" : ""}.`;
    case "passed": {
      const switched = { to_wild: " and turned a Play token to Wild", to_play: " and turned a Wild token to Play" }[event.switch] || "";
      return `${who} passed${switched}${event.auto ? " (automatically)" : ""}.`;
    }
    case "drew": {
      const card = secret("card");
      return card ? `${who} drew ${cardText(card)}.` : `${who} drew a card.`;
    }
    case "field_cleared":
      return event.reason === "returned"
        ? `The field came back to ${ctx.name(event.by)}: cleared.`
        : "The field was cleared after the pass.";
    case "round_ended":
      return `Round ${event.round} is over (${ROUND_END_REASONS[event.reason] || event.reason}): ${listing(event.penalties.map((value, seat) => `${ctx.name(seat)} ${value}`))}.`;
    default:
      return null;
  }
}

const REASONS = {
  rounds: "all rounds played: the smallest penalty total wins",
  minus_50: "someone reached -50: the smallest penalty total wins",
  turn_limit: "the turn limit was reached: the smallest penalty total wins",
};

export function resultReason(result) {
  return REASONS[result.reason] || result.reason || "";
}
