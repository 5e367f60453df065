// A tiny DOM builder: h("button", {class: "x", onclick: fn}, "text", child, …).

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (name in element && typeof value !== "string") {
      element[name] = value; // properties such as checked, value, disabled
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** "1 card", "2 cards", "1 No Way", "3 No Ways"; `many` for a noun whose plural is not one more "s". */
export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 || count === -1 ? one : many}`;
}

/** A rule's id as a small reference beside the words that explain it: "(rule EP-14)" (the
 * table links each id to its ruling on the game's rules page). */
export function ruleRef(...rules) {
  return h("small", { class: "rule-ref", dataset: { rules: rules.join(" ") } }, `(rule${rules.length === 1 ? "" : "s"} ${listing(rules)})`);
}

/** A sentence said after a colon ("Buddy 2: a Buddy is…"): its first letter in lower case,
 * unless it starts with one of `names` (a player's, a card's) or a word such as "EP-7". */
export function midSentence(text, names = []) {
  if (!text) return text;
  const named = names.some((name) => name && text.startsWith(name) && !/\w/.test(text.charAt(name.length)));
  const firstWord = text.split(/[\s:,.;]/, 1)[0];
  if (named || /[A-Z0-9]/.test(firstWord.slice(1))) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** "a", "a and b", "a, b and c". */
export function listing(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

// How the cards were dealt (a game's `deal`), said plainly when a player should know it:
// a creator who chose the seed or stacked the deck may know every hand.
export function dealNotice(deal) {
  if (deal === "seeded") return "The creator chose this game's seed: they can know every hand.";
  if (deal === "stacked") return "The creator stacked the deck: they set the order of every card.";
  return "";
}

/** A server bot's name from its policy, as the server names a bot seat: "Greedy bot",
 * "Search-strong bot" (table/seating.py, `name_bots`). */
export function botName(policy) {
  const words = policy.replaceAll("_", " ");
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} bot`;
}

/** The bots a game type offers, [{name, description, thinks}]: its `bots`, or for a server
 * that does not describe them, its `bot_policies` named only. */
export function botsOf(gameType) {
  if (Array.isArray(gameType?.bots)) return gameType.bots;
  return (gameType?.bot_policies || []).map((name) => ({ name, description: "", thinks: false }));
}
