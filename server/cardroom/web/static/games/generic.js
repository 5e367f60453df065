// Any other game type: the table shows its public state and legal actions as the API gives
// them, so a new game on the server is playable here before it gets its own module. The raw
// state is folded away under "Advanced"; the moves and events are said as plainly as their
// names allow.

import { h } from "../dom.js";

export const title = null;

export function cardName(card) {
  return card.name || card.code;
}

export function renderCard(card, { small = false } = {}) {
  return h(
    "span",
    { class: ["card", "generic", small && "small"], dataset: { cardId: card.id, code: card.code }, role: "img", "aria-label": card.name || card.code },
    h("span", { class: "card-value", "aria-hidden": "true" }, card.code),
  );
}

export function sortHand(cards) {
  return [...cards];
}

function advanced(summary, value) {
  return h("details", { class: "advanced" }, h("summary", {}, summary), h("pre", { class: "raw" }, JSON.stringify(value, null, 1)));
}

export function seatDetails(view, seat) {
  const info = Array.isArray(view.public?.seats) ? view.public.seats[seat] : null;
  return info ? [advanced("Advanced: this seat as the server describes it", info)] : [];
}

function words(name) {
  return String(name).replaceAll("_", " ");
}

export function phaseText(view) {
  return view.public?.phase ? `Phase: ${words(view.public.phase)}.` : "";
}

export function centre(view) {
  const rest = { ...(view.public || {}) };
  delete rest.seats;
  return [advanced("Advanced: the table as the server describes it", rest)];
}

export function youDetails() {
  return [];
}

/** "Type (field value; field value)": a move or an event in the words of its names. */
function plainly(type, fields) {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== "object")
    .map(([name, value]) => `${words(name)} ${value}`);
  const text = `${words(type)}${parts.length ? ` (${parts.join("; ")})` : ""}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function actionGroups(view) {
  if (!view.legal_actions.length) return [];
  const items = view.legal_actions.map((action) => {
    const { type, ...fields } = action;
    const lists = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value]));
    return { action, label: plainly(type, lists), cards: [] };
  });
  // The table offers one button per label: moves that read the same are numbered apart.
  const seen = new Map();
  for (const item of items) {
    const count = (seen.get(item.label) || 0) + 1;
    seen.set(item.label, count);
    if (count > 1) item.label = `${item.label}, choice ${count}`;
  }
  return [{ key: "all", title: "Moves", hint: null, items }];
}

export function describe(event) {
  const { seq, version, type, ...rest } = event;
  return `${plainly(type, rest)}.`;
}

export function resultReason(result) {
  return words(result.reason || "");
}
