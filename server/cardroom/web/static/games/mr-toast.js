// Mr Toast at the web table: cards, seats, the centre, the controls and the words for events.
// Rules: docs/rules/mr-toast.md (MT-1 … MT-15). Everything here reads the view; the rules
// themselves stay on the server: the controls are exactly the view's legal_actions.

import { h, listing } from "../dom.js";

const COLOUR_ORDER = { green: 0, purple: 1, red: 2, blue: 3, "no-way": 4 };
const COLOUR_WORDS = {
  green: "green",
  purple: "purple",
  red: "red chore",
  blue: "blue action",
  "no-way": "No Way",
};
const BLUE_HELP = {
  TB: "the target skips their next turn",
  FP: "draw 2 cards",
  IT: "discard the chore in front of you",
};

export const title = "Mr Toast";

// The words on a card's face, with soft hyphens so that long ones break inside small cards.
const FACE_WORDS = { G: "Recre\u00adation", R: "Respon\u00adsibility", P: "Buddy" };

function faceWords(card) {
  return card.value === null || card.value === undefined ? card.name : FACE_WORDS[card.code[0]] || card.name;
}

function possessive(seat, ctx) {
  return seat === ctx.me ? "your" : `${ctx.name(seat)}'s`;
}

export function renderCard(card, { small = false } = {}) {
  const value = card.value ?? "";
  const label =
    card.value === null || card.value === undefined
      ? `${card.name} (${COLOUR_WORDS[card.colour] || card.colour} card)`
      : `${card.name} (${COLOUR_WORDS[card.colour] || card.colour}, ${card.value})`;
  return h(
    "span",
    {
      class: ["card", "mt", `mt-${card.colour}`, small && "small"],
      dataset: { cardId: card.id, code: card.code },
      role: "img",
      "aria-label": label,
      title: label,
    },
    h("span", { class: "card-value", "aria-hidden": "true" }, String(value)),
    h("span", { class: "card-name", "aria-hidden": "true" }, faceWords(card)),
  );
}

export function sortHand(cards) {
  return [...cards].sort(
    (a, b) =>
      (COLOUR_ORDER[a.colour] ?? 9) - (COLOUR_ORDER[b.colour] ?? 9) ||
      (a.value ?? 0) - (b.value ?? 0) ||
      a.code.localeCompare(b.code),
  );
}

function cardsById(view) {
  const byId = new Map();
  for (const card of view.you?.hand || []) byId.set(card.id, card);
  return byId;
}

export function seatDetails(view, seat, ctx) {
  const info = view.public.seats[seat];
  const fun = info.fun.length
    ? h(
        "ul",
        { class: "card-row", "aria-label": "Fun cards scored" },
        info.fun.map((entry) =>
          h(
            "li",
            { class: "fun" },
            renderCard(entry.green, { small: true }),
            entry.purple ? renderCard(entry.purple, { small: true }) : null,
            h("span", { class: "points" }, `${entry.points}`),
          ),
        ),
      )
    : h("span", { class: "muted" }, "nothing scored yet");
  return [
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Fun"),
      h("dd", { class: "score" }, `${info.score} point${info.score === 1 ? "" : "s"}`),
      h("dt", {}, "Hand"),
      h("dd", {}, `${info.hand_size} card${info.hand_size === 1 ? "" : "s"}`),
      h("dt", {}, "Chore"),
      h("dd", {}, info.red ? renderCard(info.red, { small: true }) : h("span", { class: "muted" }, "none")),
      info.take_a_break
        ? [h("dt", {}, "Break"), h("dd", {}, renderCard(info.take_a_break, { small: true }), " skips next turn")]
        : null,
    ),
    h("div", { class: "fun-row" }, h("span", { class: "label" }, "Scored: "), fun),
  ];
}

export function phaseText(view, ctx) {
  const pub = view.public;
  if (pub.phase === "over") return "The game is over.";
  const whose = possessive(pub.current_seat, ctx);
  if (pub.phase === "reaction") return `Turn ${pub.turn}, ${whose} turn: a No Way window is open.`;
  if (pub.phase === "blue") return `Turn ${pub.turn}, ${whose} turn, step 3: a blue card or end the turn.`;
  return `Turn ${pub.turn}, ${whose} turn, step 2: give a chore, score, clear a chore, or go on.`;
}

export function centre(view, ctx) {
  const pub = view.public;
  const discard = pub.discard_pile;
  const top = discard.length ? discard[discard.length - 1] : null;
  const parts = [
    h(
      "dl",
      { class: "facts piles" },
      h("dt", {}, "Draw pile"),
      h("dd", {}, `${pub.draw_pile} cards`),
      h("dt", {}, "Discard pile"),
      h(
        "dd",
        {},
        top ? [renderCard(top, { small: true }), ` (${discard.length} cards)`] : "empty",
      ),
      h("dt", {}, "Goal"),
      h(
        "dd",
        {},
        pub.mode === "exact" ? "exactly 15 Fun points" : "15 Fun points or more",
        `, turn limit ${pub.turn_limit}`,
      ),
    ),
  ];
  const pending = pub.pending;
  if (pending) {
    const target = pending.target === null || pending.target === undefined ? "" : ` on ${ctx.name(pending.target)}`;
    parts.push(
      h(
        "div",
        { class: "pending", role: "group", "aria-label": "No Way window" },
        h(
          "p",
          {},
          `${ctx.Name(pending.seat)} played `,
          renderCard(pending.card, { small: true }),
          `${target}.`,
        ),
        pending.no_ways.length
          ? h(
              "p",
              {},
              `No Way played by ${listing(pending.no_ways.map((entry) => ctx.name(entry.seat)))}: `,
              `as it stands it is ${pending.outcome === "cancelled" ? "cancelled" : "going ahead"}.`,
            )
          : h("p", {}, "No one has said No Way yet: as it stands it goes ahead."),
        pending.waiting_for.length
          ? h("p", {}, `Waiting for ${listing(pending.waiting_for.map((seat) => ctx.name(seat)))} to answer.`)
          : null,
      ),
    );
  }
  return parts;
}

export function youDetails() {
  return [];
}

function names(byId, ids) {
  return ids.map((id) => byId.get(id)?.name || id);
}

function describeAction(action, byId, ctx) {
  const card = (id) => byId.get(id)?.name || id;
  switch (action.type) {
    case "score": {
      const green = byId.get(action.green);
      const purple = action.purple ? byId.get(action.purple) : null;
      const points = (green?.value || 0) + (purple?.value || 0);
      return {
        group: "score",
        cards: [action.green, action.purple].filter(Boolean),
        label: `Score ${card(action.green)}${purple ? ` + ${purple.name}` : ""}: ${points} point${points === 1 ? "" : "s"}`,
      };
    }
    case "give_red":
      return {
        group: "give_red",
        cards: [action.card],
        label: `Give ${card(action.card)} to ${ctx.name(action.target)}`,
      };
    case "clear_red": {
      const used = [...action.greens, action.purple].filter(Boolean);
      return { group: "clear_red", cards: used, label: `Clear your chore with ${listing(names(byId, used))}` };
    }
    case "play_blue": {
      const code = byId.get(action.card)?.code;
      const target = action.target === null || action.target === undefined ? "" : ` on ${ctx.name(action.target)}`;
      return {
        group: "play_blue",
        cards: [action.card],
        label: `Play ${card(action.card)}${target}${BLUE_HELP[code] ? ` (${BLUE_HELP[code]})` : ""}`,
      };
    }
    case "end_turn":
      return { group: "end", cards: [], label: "End your turn" };
    case "no_way":
      return { group: "react", cards: [action.card], label: "Say No Way! (play a No Way card)" };
    case "allow":
      return { group: "react", cards: [], label: "Allow it" };
    default:
      return null;
  }
}

const GROUPS = [
  ["react", "Answer the blue card", "Cancel it with a No Way card, or let it happen."],
  ["score", "Score", "A green card, with a purple buddy on it if you like."],
  ["give_red", "Give a chore", "A red card to a player who has scored and has no chore."],
  ["clear_red", "Clear your chore", "Greens (and a purple) worth at least the chore."],
  ["play_blue", "Play a blue card", "Then your turn ends (others may say No Way)."],
  ["end", "Or", null],
];

/** The view's legal actions, labelled and grouped; `cards` are the hand cards each one uses. */
export function actionGroups(view, ctx) {
  const byId = cardsById(view);
  const grouped = new Map(GROUPS.map(([key]) => [key, []]));
  const other = [];
  for (const action of view.legal_actions) {
    const described = describeAction(action, byId, ctx);
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
  }));
  if (other.length) groups.push({ key: "other", title: "Other actions", hint: null, items: other });
  return groups;
}

const EFFECTS = {
  take_a_break: (event, ctx) =>
    `${ctx.Name(event.target)} must take a break: ${event.target === ctx.me ? "your" : "their"} next turn is skipped.`,
  find_a_penny: (event, ctx) => `${ctx.Name(event.seat)} found a penny and drew 2 cards.`,
  in_the_trash: (event, ctx) =>
    `${ctx.Name(event.seat)} threw the chore ${event.red ? event.red.name : ""} in the trash.`.replace("  ", " "),
};

/** One event in words, or null for one not worth a line. */
export function describe(event, ctx) {
  const who = event.seat === undefined ? "" : ctx.Name(event.seat);
  switch (event.type) {
    case "turn_started":
      return `Turn ${event.turn}: ${possessive(event.seat, ctx)} turn.`;
    case "drew": {
      const cards = event.cards || event.private?.cards;
      if (cards?.length) return `${who} drew ${listing(cards.map((card) => card.name))}.`;
      return `${who} drew ${event.count} card${event.count === 1 ? "" : "s"}.`;
    }
    case "reshuffled":
      return `The discard pile was shuffled into a new draw pile of ${event.count} cards.`;
    case "skipped":
      return `${who} took a break: turn skipped.`;
    case "chore_given":
      return `${who} gave ${ctx.name(event.target)} a ${event.card.name} chore.`;
    case "scored":
      return `${who} scored ${event.green.name}${event.purple ? ` + ${event.purple.name}` : ""} for ${event.points} Fun (now ${event.score}).`;
    case "chore_cleared":
      return `${who} cleared the ${event.red.name} chore with ${listing([...event.greens, event.purple].filter(Boolean).map((card) => card.name))}.`;
    case "blue_played": {
      const target = event.target === null || event.target === undefined ? "" : ` on ${ctx.name(event.target)}`;
      return `${who} played ${event.card.name}${target}.`;
    }
    case "no_way":
      return `${who} said No Way!${event.outcome ? ` (it is ${event.outcome === "cancelled" ? "cancelled" : "going ahead"})` : ""}`;
    case "allowed":
      return `${who} let it happen${event.auto ? " (no No Way card: answered automatically)" : ""}.`;
    case "window_closed":
      return event.defaulted?.length
        ? `Time is up: ${listing(event.defaulted.map((seat) => ctx.name(seat)))} let it happen.`
        : "Time is up.";
    case "blue_resolved":
      return (EFFECTS[event.effect] || (() => `${event.card.name} happened.`))(event, ctx);
    case "blue_cancelled":
      return `${possessive(event.seat, ctx).replace(/^./, (c) => c.toUpperCase())} ${event.card.name} was cancelled by No Way.`;
    case "turn_ended":
      return null;
    default:
      return null;
  }
}

const REASONS = {
  exact_15: "scored exactly 15 Fun points",
  reached_15: "reached 15 Fun points",
  turn_limit: "the turn limit was reached: most Fun points wins",
};

export function resultReason(result) {
  return REASONS[result.reason] || result.reason || "";
}
