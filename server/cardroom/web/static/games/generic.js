// Any other game type: the table shows its public state and legal actions as the API gives
// them, so a new game on the server is playable here before it gets its own module.

import { h } from "../dom.js";

export const title = null;

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

export function seatDetails(view, seat) {
  const info = Array.isArray(view.public?.seats) ? view.public.seats[seat] : null;
  return info ? [h("pre", { class: "raw" }, JSON.stringify(info, null, 1))] : [];
}

export function phaseText(view) {
  return view.public?.phase ? `Phase: ${view.public.phase}.` : "";
}

export function centre(view) {
  const rest = { ...(view.public || {}) };
  delete rest.seats;
  return [h("pre", { class: "raw" }, JSON.stringify(rest, null, 1))];
}

export function youDetails() {
  return [];
}

export function actionGroups(view) {
  if (!view.legal_actions.length) return [];
  const items = view.legal_actions.map((action) => ({ action, label: JSON.stringify(action), cards: [] }));
  return [{ key: "all", title: "Actions", hint: null, items }];
}

export function describe(event) {
  const { seq, version, type, ...rest } = event;
  return `${type} ${JSON.stringify(rest)}`;
}

export function resultReason(result) {
  return result.reason || "";
}
