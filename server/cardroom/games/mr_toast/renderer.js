// Mr Toast at the web table: cards, seats, the centre, the controls and the words for events.
// Rules: /rules/mr-toast (MT-1 … MT-17). Everything here reads the view; the rules
// themselves stay on the server: the controls are exactly the view's legal_actions. The
// reasons why a card cannot be used now (whyUnusable) only explain what the view already
// says by leaving the card out of every legal action.

import { h, listing, plural } from "../dom.js";

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
const WIN_SCORE = 15;

export const title = "Mr Toast";

// The words on a card's face, with soft hyphens so that long ones break inside small cards.
const FACE_WORDS = { G: "Recre\u00adation", R: "Respon\u00adsibility", P: "Buddy" };

function faceWords(card) {
  return card.value === null || card.value === undefined ? card.name : FACE_WORDS[card.code[0]] || card.name;
}

function possessive(seat, ctx) {
  return seat === ctx.me ? "your" : `${ctx.name(seat)}'s`;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const OPTION_NAMES = { deck: "The stacked deck" };

/** An option's name as a player reads it (the secret ones are revealed at the end). */
export function optionName(name) {
  return OPTION_NAMES[name] || name.replaceAll("_", " ");
}

export function cardName(card) {
  return card.name || card.code;
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
            h("span", { class: "points" }, `= ${plural(entry.points, "point")}`),
          ),
        ),
      )
    : h("span", { class: "muted" }, "nothing scored yet");
  return [
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Fun"),
      h("dd", { class: "score" }, plural(info.score, "point")),
      h("dt", {}, "Hand"),
      h("dd", {}, plural(info.hand_size, "card")),
      h("dt", {}, "Chore"),
      h("dd", {}, info.red ? renderCard(info.red, { small: true }) : h("span", { class: "muted" }, "none")),
      info.take_a_break
        ? [h("dt", {}, "Break"), h("dd", {}, renderCard(info.take_a_break, { small: true }), " skips the next turn")]
        : null,
    ),
    h("div", { class: "fun-row" }, h("span", { class: "label" }, "Scored: "), fun),
  ];
}

// --- the No Way window -------------------------------------------------------------------

/** What the pending blue card does if it happens, in words said mid-sentence ("Bea skips
 * their next turn", "you skip your next turn"). */
function effectWords(pending, ctx) {
  const me = (seat) => seat === ctx.me;
  switch (pending.card.code) {
    case "TB":
      return `${ctx.name(pending.target)} ${me(pending.target) ? "skip your" : "skips their"} next turn`;
    case "FP":
      return `${ctx.name(pending.seat)} ${me(pending.seat) ? "draw" : "draws"} 2 cards`;
    case "IT":
      return `${ctx.name(pending.seat)} ${me(pending.seat) ? "throw your" : "throws their"} chore away`;
    default:
      return `${pending.card.name} happens`;
  }
}

/** The window as it stands: who played what, who said No Way to what, and what happens if
 * nobody answers any more (an even number of No Ways: the blue card happens, MT-13). */
function windowWords(pending, ctx) {
  const blue = `${possessive(pending.seat, ctx)} ${pending.card.name}`;
  const count = pending.no_ways.length;
  const happens = count % 2 === 0;
  const target = pending.target === null || pending.target === undefined ? "" : ` on ${ctx.name(pending.target)}`;
  let situation;
  if (!count) {
    situation = `${ctx.Name(pending.seat)} played ${pending.card.name}${target}: unless someone says No Way, ${effectWords(pending, ctx)}.`;
  } else {
    const last = pending.no_ways[count - 1].seat;
    const against = count === 1 ? blue : `${possessive(pending.no_ways[count - 2].seat, ctx)} No Way`;
    situation = `${ctx.Name(last)} said No Way to ${against}, so as it stands ${blue} ${happens ? "happens" : "is cancelled"}.`;
  }
  return { blue, happens, situation };
}

export function phaseText(view, ctx) {
  const pub = view.public;
  if (pub.phase === "over") return "The game is over.";
  const whose = possessive(pub.current_seat, ctx);
  if (pub.phase === "reaction" && pub.pending) return `Turn ${pub.turn}, ${whose} turn. ${windowWords(pub.pending, ctx).situation}`;
  if (pub.current_seat !== ctx.me || !view.legal_actions?.length) return `Turn ${pub.turn}, ${whose} turn.`;
  if (pub.phase === "blue") {
    const blue = view.legal_actions.some((action) => action.type === "play_blue");
    return `Turn ${pub.turn}, your turn: ${blue ? "play a blue card or end your turn" : "no blue card to play, so end your turn"}.`;
  }
  return `Turn ${pub.turn}, your turn: score, give or clear a chore, or end your turn.`;
}

/** What the status line says when the game awaits you (the table adds it to phaseText):
 * empty on your turn, which phaseText already spells out. */
export function yourMove(view) {
  const pending = view.public?.pending;
  if (view.public?.phase !== "reaction" || !pending) return "";
  const canSayNoWay = view.legal_actions.some((action) => action.type === "no_way");
  const letIt = pending.no_ways.length % 2 === 0 ? "let it happen" : "accept";
  return canSayNoWay ? `Answer now: say No Way or ${letIt}.` : `Answer now: ${letIt} (you have no No Way card).`;
}

/** Who started the game: turn 1's seat (each turn, a skipped one too, passes to the next
 * seat), for the log, since the first turn starts before any event is sent. */
export function whoStarts(view) {
  const pub = view.public;
  if (!pub || !pub.turn || pub.current_seat === null || pub.current_seat === undefined) return null;
  const players = pub.seats.length;
  return (((pub.current_seat - (pub.turn - 1)) % players) + players) % players;
}

/** The game's own timed rule: a No Way window with a reaction deadline (MT-13). The table
 * counts down to it (ruleCountdown), unlike a seat's turn clock. */
export function ruleDeadline(view) {
  return view.public?.pending?.deadline ?? null;
}

/** The countdown to the No Way window's close: `seconds` left, or 0 once it is due. */
export function ruleCountdown(seconds) {
  if (seconds > 0) return `The No Way window closes in ${seconds} s: not answering by then counts as no No Way.`;
  return "The No Way window is closing…";
}

/** The word for a seat the game awaits: in a No Way window the seats answer. */
export function awaitedWord(view, seat, ctx) {
  if (view.public?.phase === "reaction") return "to answer";
  return seat === ctx.me ? "your turn" : "their turn";
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
      h("dd", {}, plural(pub.draw_pile, "card")),
      h("dt", {}, "Discard pile"),
      h("dd", {}, top ? [renderCard(top, { small: true }), ` (${plural(discard.length, "card")})`] : "empty"),
      h("dt", {}, "Goal"),
      h(
        "dd",
        {},
        pub.mode === "exact" ? `exactly ${WIN_SCORE} Fun points` : `${WIN_SCORE} Fun points or more`,
        `; the game stops after turn ${pub.turn_limit}`,
      ),
    ),
  ];
  const pending = pub.pending;
  if (pending) {
    const words = windowWords(pending, ctx);
    parts.push(
      h(
        "div",
        { class: "pending", role: "group", "aria-label": "No Way window" },
        h("p", {}, renderCard(pending.card, { small: true }), " ", words.situation),
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

function describeAction(action, byId, ctx, pending) {
  const card = (id) => byId.get(id)?.name || id;
  switch (action.type) {
    case "score": {
      const green = byId.get(action.green);
      const purple = action.purple ? byId.get(action.purple) : null;
      const points = (green?.value || 0) + (purple?.value || 0);
      return {
        group: "score",
        cards: [action.green, action.purple].filter(Boolean),
        label: `Score ${card(action.green)}${purple ? ` + ${purple.name}` : ""}: ${plural(points, "point")}`,
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
    case "no_way": {
      if (!pending) return { group: "react", cards: [action.card], label: "Say No Way! (play a No Way card)" };
      const { blue, happens } = windowWords(pending, ctx);
      return {
        group: "react",
        cards: [action.card],
        label: happens ? `Say No Way! (cancels ${blue})` : `Say No Way! (${blue} happens after all)`,
      };
    }
    case "allow": {
      if (!pending) return { group: "react", cards: [], label: "Let it happen" };
      const { blue, happens } = windowWords(pending, ctx);
      return {
        group: "react",
        cards: [],
        label: happens ? `Let it happen: ${effectWords(pending, ctx)}` : `Accept: ${blue} is cancelled`,
      };
    }
    default:
      return null;
  }
}

const GROUPS = [
  ["react", "Answer the blue card", "Cancel it with a No Way card, or let it happen."],
  ["score", "Score", "A green card, with a purple Buddy on it if you like."],
  ["give_red", "Give a chore", "A red card to a player who has scored and has no chore."],
  ["clear_red", "Clear your chore", "Greens (and a Buddy) worth at least the chore."],
  ["play_blue", "Play a blue card", "Then your turn ends (others may say No Way)."],
  ["end", "Or", null, "Nothing else to do"],
];

/** The No Way group's title and hint: what happened and what the buttons do. */
function reactionHelp(pending, items, ctx) {
  const { blue, happens, situation } = windowWords(pending, ctx);
  const canSayNoWay = items.some((item) => item.action.type === "no_way");
  const letIt = happens ? "let it happen" : "accept";
  const next = canSayNoWay
    ? `Say No Way to ${happens ? "cancel it" : "bring it back"}, or ${letIt}.`
    : `You have no No Way card to answer it: ${letIt}.`;
  return {
    title: pending.no_ways.length ? "Answer the No Way" : `Answer ${blue}`,
    hint: `${situation} ${next}`,
  };
}

/** The view's legal actions, labelled and grouped; `cards` are the hand cards each one uses. */
export function actionGroups(view, ctx) {
  const byId = cardsById(view);
  const pending = view.public?.pending;
  const grouped = new Map(GROUPS.map(([key]) => [key, []]));
  const other = [];
  for (const action of view.legal_actions) {
    const described = describeAction(action, byId, ctx, pending);
    if (described && grouped.has(described.group)) {
      grouped.get(described.group).push({ action, label: described.label, cards: described.cards });
    } else {
      other.push({ action, label: actionWords(action), cards: [] });
    }
  }
  const groups = GROUPS.filter(([key]) => grouped.get(key).length).map(([key, title, hint, aloneTitle]) => {
    const items = grouped.get(key);
    if (key === "react" && pending) return { key, items, ...reactionHelp(pending, items, ctx) };
    return { key, title, hint, items, aloneTitle };
  });
  if (other.length) groups.push({ key: "other", title: "Other moves", hint: null, items: other });
  return groups;
}

const ACTION_TITLES = {
  score: "scores",
  give_red: "gives a chore",
  clear_red: "clears a chore",
  play_blue: "plays a blue card",
  end_turn: "ends the turn",
  no_way: "says No Way",
  allow: "does not say No Way",
};

/** What a move does, in a few words: a replay's step title ("Bea: gives a chore"). */
export function actionTitle(action) {
  return ACTION_TITLES[action?.type] || String(action?.type ?? "").replaceAll("_", " ");
}

/** An action this page has no words for (a newer server), said as plainly as it can. */
function actionWords(action) {
  const { type, ...fields } = action;
  const parts = Object.entries(fields).map(([name, value]) => `${name.replaceAll("_", " ")} ${Array.isArray(value) ? value.join(", ") : value}`);
  return capital(`${String(type).replaceAll("_", " ")}${parts.length ? ` (${parts.join("; ")})` : ""}`);
}

// --- why a card cannot be used now -------------------------------------------------------

/** A reason, said of one card (`text`) and of several (`many`, when it differs). */
function reason(text, rule, many = text) {
  return { text, rule, many };
}

/** Why no legal action uses `card` now, or null. Asked only while the seat has a move. */
export function whyUnusable(view, card, ctx) {
  const pub = view.public;
  if (!pub || !view.you) return null;
  const mine = pub.seats[view.you.seat];
  const hand = view.you.hand;
  if (card.colour === "no-way") {
    return reason(
      "A No Way is never played on your turn: keep it to cancel a blue card another player plays.",
      "MT-8",
      "No Way cards are never played on your turn: keep them to cancel a blue card another player plays.",
    );
  }
  if (pub.phase === "reaction") {
    if (pub.pending && pub.pending.seat === ctx.me) {
      return reason(`Your ${pub.pending.card.name} waits for its answers: for now only a No Way card can be played.`, "MT-12");
    }
    const played = pub.pending ? `${ctx.Name(pub.pending.seat)} played a blue card` : "Someone played a blue card";
    return reason(`${played}: for now you can only answer it with a No Way card, or let it happen.`, "MT-12");
  }
  const colour = card.colour;
  if (pub.phase === "blue" && colour !== "blue") {
    return reason("You have already scored or dealt with a chore this turn: now play a blue card or end your turn.", "MT-8");
  }
  if (colour === "green" || colour === "purple") {
    const chore = mine.red;
    if (chore) {
      const greens = hand.filter((c) => c.colour === "green").reduce((sum, c) => sum + (c.value || 0), 0);
      const buddy = Math.max(0, ...hand.filter((c) => c.colour === "purple").map((c) => c.value || 0));
      const total = greens + (greens ? buddy : 0);
      if (total < chore.value) {
        return reason(
          `With a chore in front of you (${chore.name}) you cannot score. Clearing it takes greens (and a Buddy) worth ${chore.value} or more; yours add up to ${total}.`,
          "MT-7",
        );
      }
      return reason(
        `You have a chore (${chore.name}), so you cannot score; you can clear it without this card, and extra cards aren't allowed.`,
        "MT-7",
        `You have a chore (${chore.name}), so you cannot score; you can clear it without these cards, and extra cards aren't allowed.`,
      );
    }
    if (colour === "purple" && !hand.some((c) => c.colour === "green")) {
      return reason("A Buddy is scored only on top of a green Recreation card, and you hold no green.", "MT-7");
    }
    if (pub.mode === "exact") {
      const past = `past ${WIN_SCORE} Fun points (you have ${mine.score}); you must reach exactly ${WIN_SCORE}.`;
      return reason(`Scoring it would take you ${past}`, "MT-10", `Scoring any of these would take you ${past}`);
    }
    return null;
  }
  if (colour === "red") {
    // A chore goes only to another player who has scored and has no chore (MT-7): nobody fits.
    const others = pub.seats.filter((seat) => seat.seat !== view.you.seat);
    const scored = others.filter((seat) => seat.fun.length);
    if (!scored.length) {
      return reason("A chore goes only to a player who has scored, and nobody else has scored yet.", "MT-7");
    }
    if (scored.length === others.length) {
      const who = others.length === 1 ? `${ctx.name(others[0].seat)} has` : "every other player has";
      return reason(`Nobody can take a chore now: ${who} one already, and a player holds only one at a time.`, "MT-7");
    }
    return reason("Nobody can take a chore now: each other player has one already or hasn't scored yet.", "MT-7");
  }
  if (card.code === "TB") {
    return reason("Every other player already has a Take a Break in front of them.", "MT-9");
  }
  if (card.code === "IT" && !mine.red) {
    return reason(
      "It throws away a chore in front of you, and you have none.",
      "MT-9",
      "They throw away a chore in front of you, and you have none.",
    );
  }
  return null;
}

/** Why no legal action uses all the picked cards together (several picked, each usable on
 * its own), or null when no short reason fits. */
export function whyNotTogether(view, cards) {
  const count = (colour) => cards.filter((card) => card.colour === colour).length;
  if (count("no-way") > 1) return "you can play only one No Way card at a time";
  const alone = cards.find((card) => card.colour === "red" || card.colour === "blue");
  if (alone) return `a ${COLOUR_WORDS[alone.colour]} card is played on its own`;
  if (count("purple") > 1) return "a move uses at most one Buddy";
  const chore = view.public?.seats?.[view.you?.seat]?.red;
  if (chore) return `your ${chore.name} chore can be cleared with fewer of them, and extra cards aren't allowed`;
  if (count("green") > 1) return "you can score only one green (several greens go together only to clear a chore)";
  const greenAndBuddy = cards.length === 2 && count("green") === 1 && count("purple") === 1;
  if (greenAndBuddy && view.public?.mode === "exact") return `scoring them together would take you past ${WIN_SCORE} Fun points`;
  return null;
}

// --- events ------------------------------------------------------------------------------

const EFFECTS = {
  take_a_break: (event, ctx) =>
    `${ctx.Name(event.target)} must take a break: ${event.target === ctx.me ? "your" : "their"} next turn is skipped.`,
  // Said by the draw that follows ("Find a Penny: Bea drew 2 cards."): see pennyDraw.
  find_a_penny: () => null,
  in_the_trash: (event, ctx) =>
    `${ctx.Name(event.seat)} threw the chore ${event.red ? event.red.name : ""} in the trash.`.replace("  ", " "),
};

// The blue card of the latest No Way window, for the No Way lines (a no_way event names only
// its No Way card); events are described in order.
let lastBlue = null;
// The seat whose Find a Penny just happened: its draw, the next event (after a reshuffle,
// maybe), is said as the Find a Penny's effect.
let pennyDraw = null;

/** A No Way said, in words: against what, and what happens as it stands (MT-13). */
function noWayWords(event, who, ctx) {
  const blue = lastBlue?.name || ctx.view?.public?.pending?.card?.name || "blue card";
  const happens = event.outcome === "happens";
  // "As it stands": others may still answer; the line that closes the window says what happened.
  if (!event.chain || event.chain === 1) {
    return `${who} said No Way to the ${blue}, so as it stands the ${blue} is cancelled.`;
  }
  return `${who} said No Way to the No Way, so as it stands the ${blue} ${happens ? "goes ahead again" : "is cancelled again"}.`;
}

/** One event in words, or null for one not worth a line. */
export function describe(event, ctx) {
  const who = event.seat === undefined ? "" : ctx.Name(event.seat);
  const penny = pennyDraw;
  if (event.type !== "reshuffled") pennyDraw = null;
  switch (event.type) {
    case "turn_started":
      return `Turn ${event.turn}: ${possessive(event.seat, ctx)} turn.`;
    case "drew": {
      const cards = event.cards || event.private?.cards;
      const drawer = penny === event.seat ? `Find a Penny: ${ctx.name(event.seat)}` : who;
      if (cards?.length) return `${drawer} drew ${listing(cards.map((card) => card.name))}.`;
      return `${drawer} drew ${plural(event.count, "card")}.`;
    }
    case "reshuffled":
      return `The discard pile was shuffled into a new draw pile of ${plural(event.count, "card")}.`;
    case "skipped":
      return `${who} took a break: turn skipped.`;
    case "chore_given":
      return `${who} gave ${ctx.name(event.target)} a ${event.card.name} chore.`;
    case "scored":
      return `${who} scored ${event.green.name}${event.purple ? ` + ${event.purple.name}` : ""} for ${event.points} Fun (now ${plural(event.score, "point")}).`;
    case "chore_cleared":
      return `${who} cleared the ${event.red.name} chore with ${listing([...event.greens, event.purple].filter(Boolean).map((card) => card.name))}.`;
    case "blue_played": {
      lastBlue = event.card;
      const target = event.target === null || event.target === undefined ? "" : ` on ${ctx.name(event.target)}`;
      return `${who} played ${event.card.name}${target}.`;
    }
    case "no_way":
      return noWayWords(event, who, ctx);
    case "allowed":
      return `${who} did not say No Way${event.auto ? " (no No Way card: answered automatically)" : ""}.`;
    case "window_closed":
      return event.defaulted?.length
        ? `Time is up: ${listing(event.defaulted.map((seat) => ctx.name(seat)))} did not answer, which counts as no No Way.`
        : "Time is up for the No Way window.";
    case "blue_resolved":
      if (event.effect === "find_a_penny") pennyDraw = event.seat;
      return (EFFECTS[event.effect] || (() => `${event.card.name} happened.`))(event, ctx);
    case "blue_cancelled":
      return `${capital(possessive(event.seat, ctx))} ${event.card.name} was cancelled by No Way.`;
    case "turn_ended":
      return null;
    default:
      return null;
  }
}

const REASONS = {
  exact_15: `scored exactly ${WIN_SCORE} Fun points`,
  reached_15: `reached ${WIN_SCORE} Fun points`,
  turn_limit: "the turn limit was reached: whoever has the most Fun points wins",
};

export function resultReason(result) {
  return REASONS[result.reason] || result.reason || "";
}

// --- the replay --------------------------------------------------------------------------

/** The deal in words, when one seat holds one card more than the others: the first player's
 * turn has begun, and its draw is made (MT-5). Null otherwise: the replay counts the cards. */
export function replayDeal(replay, ctx) {
  const sizes = replay.deal.hands.map((hand) => hand.length);
  const fewest = Math.min(...sizes);
  const more = sizes.map((size, seat) => (size > fewest ? seat : null)).filter((seat) => seat !== null);
  if (more.length !== 1 || sizes[more[0]] !== fewest + 1) return null;
  return `Everyone is dealt ${plural(fewest, "card")}. ${ctx.name(more[0])} plays first and holds one more: the first card of a turn is drawn as the turn begins.`;
}

// --- the lobby ---------------------------------------------------------------------------

// The ruling that describes the turn clock's options (MT-17), cited beside them in the lobby.
export const clockRule = "MT-17";

// A player's words for each option (the API's descriptions are written for programmers), read
// by the lobby (docs/web.md, "Renderers"): label and help say what the option changes; rule is
// the ruling it belongs to; choices names each value; empty says what an empty number means;
// unit follows a number; seats: the value is a seat; example shows a value written as JSON.
// An option with no help here goes under "Advanced", with the API's description.
export const optionTexts = {
  mode: {
    label: "How to win",
    rule: "MT-10",
    help:
      "With “Exactly 15”, the usual rule, a score that would take you past 15 Fun points is " +
      "not allowed. With “15 or more”, the first to reach 15 wins, however far past it.",
    choices: { exact: "Exactly 15 Fun points", irresponsible: "15 Fun points or more" },
  },
  turn_limit: {
    label: "Turn limit",
    rule: "MT-11",
    help:
      "A house rule so that no game goes on for ever: after this many turns (skipped turns " +
      "count too) the game ends, and whoever has the most Fun points wins.",
    unit: "turns",
  },
  first_seat: {
    label: "Who plays first",
    rule: "MT-4",
    help: "Then play goes round the table in seat order.",
    none: "Drawn at random",
    seats: true,
  },
  reaction_deadline: {
    label: "Time to answer a No Way (seconds)",
    rule: "MT-13",
    help:
      "When someone plays a blue card, the others may cancel it with a No Way card. This is " +
      "how long they have to answer; whoever has not answered by then lets the card through.",
    empty: "no time limit, the game waits until everyone has answered",
    placeholder: "No limit",
  },
  auto_allow: {
    label: "Don't wait for players who hold no No Way card",
    rule: "MT-14",
    help: "Faster, above all with bots, but everyone can then tell who holds no No Way card.",
  },
  deck: { label: "Stacked deck", example: '["G3", "R2", …]' },
  composition: { label: "Cards in the deck" },
};
