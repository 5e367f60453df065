// Any game that ships no renderer of its own: the table draws it from the shapes the game
// declares (its Card, Public, You, Result, action and event schemas, which the live
// /openapi.json publishes as components) and from the view itself. It knows which values are
// cards, piles, seats, counts and scores, names each by its schema's title or its field's
// name, offers the legal actions as labelled buttons and says the events in sentences; the
// raw state is shown only under an "Advanced" fold. Without the document (it could not be
// read) the same words come from the data alone: a card is an object with an `id` and a
// `code` or `name`, a seat a number in a field named like one.
//
// The server serves this file as /web/renderers/<game_type>.js for a game without a
// renderer, and the table imports it as games/generic.js when a game's module cannot load.

import { h, listing, plural } from "../dom.js";

export const title = null;

// --- the declared shapes ----------------------------------------------------------------------

const COMPONENTS = "#/components/schemas/";
let documentRead = null; // the promise of /openapi.json, read once per page
const shapesByType = new Map(); // game type -> its shapes, or null (none known)
let currentType = null; // the game last prepared: a replay's events carry no game type

function readDocument() {
  documentRead ||= fetch("/openapi.json", { headers: { Accept: "application/json" } }).then((response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  });
  return documentRead;
}

/** Read (once) the API document for `gameType`'s declared shapes; the table calls this before
 * it draws. Never throws: without the document the data alone guides the drawing. */
export async function prepare(gameType) {
  if (!gameType) return;
  currentType = gameType;
  if (shapesByType.has(gameType)) return;
  let found = null;
  try {
    found = gameShapes(await readDocument(), gameType);
  } catch (error) {
    console.warn(`cardroom: the API document cannot be read (${error}): ${gameType} is drawn from its views alone`);
  }
  shapesByType.set(gameType, found);
}

/** A game's components: its view names its game type; the others share the view's prefix
 * (api/apidoc/game_parts.py: <Prefix>Card, …Public, …You, …Result, …Action, …Event). */
function gameShapes(document, gameType) {
  const schemas = document?.components?.schemas || {};
  const viewName = Object.keys(schemas).find((name) => name.endsWith("View") && schemas[name]?.properties?.game_type?.const === gameType);
  if (!viewName) return null;
  const prefix = viewName.slice(0, -"View".length);
  const byType = (union) => {
    const mapping = schemas[union]?.discriminator?.mapping || {};
    return Object.fromEntries(Object.entries(mapping).map(([type, target]) => [type, schemas[target.replace(COMPONENTS, "")] || null]));
  };
  return {
    schemas,
    card: `${prefix}Card`,
    public: schemas[`${prefix}Public`] || null,
    you: schemas[`${prefix}You`] || null,
    actions: byType(`${prefix}Action`),
    events: byType(`${prefix}Event`),
  };
}

/** The schema itself behind `$ref`s and a nullable `anyOf`, keeping the outer title and
 * description; `ref` is the last component named on the way. */
function resolve(shapes, schema) {
  let ref = null;
  let label = { title: schema?.title, description: schema?.description };
  for (let hops = 0; schema && hops < 8; hops += 1) {
    if (schema.$ref) {
      ref = schema.$ref.replace(COMPONENTS, "");
      schema = shapes.schemas[ref];
      continue;
    }
    const real = (schema.anyOf || schema.oneOf || []).filter((variant) => variant.type !== "null");
    if (real.length === 1) {
      label = { title: label.title ?? schema.title, description: label.description ?? schema.description };
      schema = real[0];
      continue;
    }
    break;
  }
  if (!schema) return { schema: null, ref, label };
  return { schema, ref, label: { title: label.title ?? schema.title, description: label.description ?? schema.description } };
}

function typesOf(schema) {
  const type = schema?.type;
  return new Set(Array.isArray(type) ? type : type ? [type] : []);
}

function propertiesOf(shapes, schema) {
  if (!shapes || !schema) return {};
  return resolve(shapes, schema).schema?.properties || {};
}

/** What the table draws with: the game's shapes (or null) and how many seats it has. */
function envFor(view) {
  const gameType = view?.game_type || currentType;
  return {
    shapes: shapesByType.get(gameType) || null,
    players: view?.seats?.length || view?.public?.players || null,
  };
}

// --- what a value is --------------------------------------------------------------------------

// Names that count things (never a seat), names that count cards, names that hold a seat.
const COUNT_NAME = /(^|_)(size|count|counts|left|remaining|number|total|totals|score|scores|points|tokens|turns|round|rounds|limit|value|pile|deck|stock|cards|step)$/;
const NOT_CARDS = /token|point|score|coin|chip|turn|round|step|limit|value/;
const CARD_COUNT_NAME = /(^|_)(hand|pile|deck|stock|cards|discard|draw|drawn)(_size|_count|_left)?$|(^|_)(size|count)$/;
const SEAT_NAME = /(^|_)(seat|actor|target|player|by|dealer|leader|winner|starter|start_player|turn|opponent|victim|to|from)$/;
const SEAT_LIST_NAME = /(^|_)(seats|players|winners|losers|leaders|passed|out)$/;

function isCard(value) {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value) && typeof value.id === "string" && (typeof value.code === "string" || typeof value.name === "string");
}

function isScalar(value) {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function countsCards(name, description) {
  if (NOT_CARDS.test(name)) return false;
  return CARD_COUNT_NAME.test(name) || /\bcards?\b/i.test(description || "");
}

function isSeatNumber(value, env) {
  return Number.isInteger(value) && value >= 0 && (!env.players || value < env.players);
}

/** What `value` (the field `name`, declared as `schema` if known) is: card, cards, seat, seats,
 * perSeat (one scalar per seat), seatTable (one object per seat), count (of cards), number,
 * text, flag, values (a list of scalars), object, list (of anything else) or none (null). */
function kindOf(name, schema, value, env) {
  if (value === null || value === undefined) return "none";
  const declared = env.shapes && schema ? resolve(env.shapes, schema) : null;
  const kind = declared?.schema ? declaredKind(name, declared, value, env) : null;
  return kind || dataKind(name, value, env);
}

function declaredKind(name, declared, value, env) {
  const { schema, ref, label } = declared;
  if (ref === env.shapes.card) return isCard(value) ? "card" : null;
  const types = typesOf(schema);
  if (types.has("array") && Array.isArray(value)) {
    const item = resolve(env.shapes, schema.items || {});
    if (item.ref === env.shapes.card) return "cards";
    const itemTypes = typesOf(item.schema);
    if (itemTypes.has("object")) return item.schema?.properties?.seat ? "seatTable" : "list";
    if (itemTypes.has("array")) return "list";
    if (itemTypes.has("integer") && item.schema.minimum === 0 && item.schema.maximum === undefined && !COUNT_NAME.test(name)) return "seats";
    return env.players && value.length === env.players && value.every(isScalar) ? "perSeat" : "values";
  }
  if (types.has("object") && typeof value === "object") return isCard(value) ? "card" : "object";
  if (typeof value === "boolean") return "flag";
  if (typeof value === "number") {
    if (COUNT_NAME.test(name)) return countsCards(name, label.description) ? "count" : "number";
    // The kit's SEAT: a whole number from 0 with no upper bound (kit/shapes.py).
    if (types.has("integer") && schema.minimum === 0 && schema.maximum === undefined && isSeatNumber(value, env)) return "seat";
    return countsCards(name, label.description) ? "count" : "number";
  }
  if (typeof value === "string") return "text";
  return null;
}

function dataKind(name, value, env) {
  if (isCard(value)) return "card";
  if (Array.isArray(value)) {
    if (value.length && value.every(isCard)) return "cards";
    if (!value.length) return /pile|discard|cards|hand|deck|stock|field|trick|drawn/.test(name) ? "cards" : "values";
    if (value.every((item) => item && typeof item === "object" && "seat" in item)) return "seatTable";
    if (SEAT_LIST_NAME.test(name) && value.every((item) => isSeatNumber(item, env))) return "seats";
    if (value.every(isScalar)) return env.players && value.length === env.players ? "perSeat" : "values";
    return "list";
  }
  if (typeof value === "boolean") return "flag";
  if (typeof value === "number") {
    if (SEAT_NAME.test(name) && !COUNT_NAME.test(name) && isSeatNumber(value, env)) return "seat";
    return countsCards(name) ? "count" : "number";
  }
  if (typeof value === "string") return "text";
  return "object";
}

// --- words --------------------------------------------------------------------------------

/** A name from the API as words: "draw_pile" → "draw pile". */
function words(name) {
  return String(name ?? "").replaceAll("_", " ").replaceAll("-", " ");
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A field's label: its schema's title, else its name in words ("hand_size" → "Hand"; a
 * seat's "card_count" → "Hand"). */
function labelOf(name, schema, env, { seat = false } = {}) {
  const declared = env.shapes && schema ? resolve(env.shapes, schema).label : {};
  if (declared.title) return declared.title;
  const base = String(name).replace(/_(size|count|left)$/, "");
  if (/^(cards?|hand)$/.test(base)) return seat ? "Hand" : "Cards";
  return capital(words(base));
}

/** A number of cards where they are: "5 cards in hand", "30 cards in stock". */
function cardsWhere(name, count) {
  const base = String(name).replace(/_(size|count|left)$/, "");
  const where = /^(cards?|hand)$/.test(base) ? "hand" : words(base);
  return `${plural(count, "card")} in ${where}`;
}

function descriptionOf(schema, env) {
  return (env.shapes && schema ? resolve(env.shapes, schema).label.description : null) || null;
}

/** "totals" → "total", "hand_sizes" → "hand_size": one seat's entry of a per-seat list. */
function singular(name) {
  if (/ies$/.test(name)) return name.replace(/ies$/, "y");
  return name.replace(/s$/, "");
}

/** A move or an event's description without the API's "Phase: …; RULE." tail. */
function plainDescription(text) {
  const plain = String(text || "").replace(/\s*Phase: [^;]*;\s*[^.]*\.\s*$/, "").trim();
  return plain && !/[.!?]$/.test(plain) ? `${plain}.` : plain;
}

// Event types whose first word is a past tense read as "Bea played …".
const PAST_TENSE = new Set(["drew", "won", "took", "gave", "threw", "chose", "went", "dealt", "lost", "began", "said", "put", "made", "left", "sat", "became", "paid", "got", "held", "ran", "swapped", "bid", "read", "met", "led", "fell"]);

function pastTense(word) {
  return PAST_TENSE.has(word) || (word.length > 3 && word.endsWith("ed"));
}

// --- cards ---------------------------------------------------------------------------------

const RED_SUITS = new Set(["hearts", "heart", "diamonds", "diamond", "H", "D"]);
const SUIT_SYMBOLS = { clubs: "\u2663", diamonds: "\u2666", hearts: "\u2665", spades: "\u2660" };

/** The big text on a card's face: a French suit's rank and symbol ("10♠", "Q♥"), else its code. */
function faceText(card) {
  const symbol = SUIT_SYMBOLS[String(card.suit || "").toLowerCase()];
  const rank = card.rank === undefined || card.rank === null ? "" : String(card.rank);
  if (symbol && rank) return `${/^\d+$/.test(rank) ? rank : rank.charAt(0).toUpperCase()}${symbol}`;
  return card.code || card.id;
}

export function cardName(card) {
  return card?.name || card?.code || card?.id || "a card";
}

export function renderCard(card, { small = false } = {}) {
  const name = cardName(card);
  const face = faceText(card);
  return h(
    "span",
    {
      class: ["card", "generic", small && "small", RED_SUITS.has(card.suit) && "red-suit"],
      dataset: { cardId: card.id, code: card.code },
      role: "img",
      "aria-label": name,
      title: name,
    },
    h("span", { class: "card-value", "aria-hidden": "true" }, face),
    name !== face ? h("span", { class: "card-name", "aria-hidden": "true" }, name) : null,
  );
}

export function sortHand(cards) {
  return [...cards]; // the server's order
}

/** A pile: its top card and how many it holds ("top first" in its description: the first). */
function pile(cards, description) {
  if (!cards.length) return "empty";
  const top = /top first|first is the top|top card first/i.test(description || "") ? cards[0] : cards[cards.length - 1];
  return [renderCard(top, { small: true }), " ", `(${plural(cards.length, "card")})`];
}

function cardRow(cards, label) {
  if (!cards.length) return "none";
  return h("ul", { class: "card-row", "aria-label": label }, cards.map((card) => h("li", {}, renderCard(card, { small: true }))));
}

// --- showing values ---------------------------------------------------------------------------

/** A value drawn for a player (nodes or text), or null for one left to the Advanced fold. */
function shown(kind, name, value, schema, env, ctx) {
  switch (kind) {
    case "card":
      return renderCard(value, { small: true });
    case "cards": {
      const many = /pile|discard|deck|stock|cleared|trash|played|history/.test(name) || value.length > 8;
      return many ? pile(value, descriptionOf(schema, env)) : cardRow(value, labelOf(name, schema, env));
    }
    case "seat":
      return ctx.Name(value);
    case "seats":
      return value.length ? capital(listing(value.map((seat) => ctx.name(seat)))) : "nobody";
    case "count":
      return plural(value, "card");
    case "number":
      return String(value);
    case "text":
      return words(value);
    case "flag":
      return value ? "yes" : "no";
    case "values":
      return value.length ? listing(value.map((item) => (item === null ? "none" : words(item)))) : "none";
    case "none":
      return "none";
    case "object":
      return inline(value, schema, env, ctx);
    default:
      return null;
  }
}

/** A small object (the last play: a seat, a card, a suit) on one line; null if it holds
 * nothing simple. */
function inline(value, schema, env, ctx) {
  const properties = propertiesOf(env.shapes, schema);
  const parts = [];
  let who = null;
  for (const [name, item] of Object.entries(value)) {
    const kind = kindOf(name, properties[name], item, env);
    if (name === "seat" && kind === "seat") who = ctx.Name(item);
    else if (kind === "card") parts.push(cardName(item));
    else if (kind === "cards") parts.push(item.length ? listing(item.map(cardName)) : "no cards");
    else if (kind === "count") parts.push(cardsWhere(name, item));
    else if (kind === "flag") parts.push(item ? words(name) : null);
    else if (["seat", "seats", "number", "text"].includes(kind)) parts.push(`${words(name)} ${shown(kind, name, item, properties[name], env, ctx)}`);
  }
  const text = parts.filter(Boolean).join(", ");
  if (who) return text ? `${who}: ${text}` : who;
  return text ? capital(text) : null;
}

/** Rows of a facts list (dt, dd) for the fields of `object` that a player reads. A count
 * beside the card it counts ("discard" and "discard_count") goes on that card's row. */
function factRows(object, properties, env, ctx, { skip = new Set(), seat = false } = {}) {
  const entries = Object.entries(object || {});
  const kinds = new Map(entries.map(([name, value]) => [name, kindOf(name, properties[name], value, env)]));
  const countOf = new Map(); // a card field -> the field that counts its pile
  for (const [name] of entries) {
    const base = name.match(/^(.+)_(count|size)$/)?.[1];
    if (base && kinds.get(name) === "count" && kinds.get(base) === "card") countOf.set(base, name);
  }
  const merged = new Set(countOf.values());
  const rows = [];
  for (const [name, value] of entries) {
    if (skip.has(name) || merged.has(name)) continue;
    const kind = kinds.get(name);
    if (kind === "perSeat" || kind === "seatTable" || kind === "list") continue;
    let nodes = shown(kind, name, value, properties[name], env, ctx);
    if (nodes === null) continue;
    if (countOf.has(name)) nodes = [nodes, " ", `(${plural(object[countOf.get(name)], "card")})`];
    const label = labelOf(name, properties[name], env, { seat });
    rows.push(h("dt", { title: descriptionOf(properties[name], env) }, label), h("dd", {}, nodes));
  }
  return rows;
}

function advanced(summary, value) {
  return h("details", { class: "advanced" }, h("summary", {}, summary), h("pre", { class: "raw" }, JSON.stringify(value, null, 1)));
}

// --- the table ----------------------------------------------------------------------------

// Public fields the table shows elsewhere: the seats, the result, the options of the lobby.
const CENTRE_SKIP = new Set(["players", "phase", "result", "options", "scores", "seats"]);

/** The public per-seat entries: `seats` (or another list of objects with a `seat`). */
function seatTable(pub, env) {
  const properties = propertiesOf(env.shapes, env.shapes?.public);
  if (Array.isArray(pub.seats)) return { rows: pub.seats, schema: properties.seats };
  for (const [name, value] of Object.entries(pub)) {
    if (kindOf(name, properties[name], value, env) === "seatTable") return { rows: value, schema: properties[name] };
  }
  return { rows: [], schema: null };
}

export function seatDetails(view, seat, ctx) {
  const pub = view.public || {};
  const env = envFor(view);
  const table = seatTable(pub, env);
  const info = table.rows.find((entry) => entry?.seat === seat) ?? table.rows[seat] ?? null;
  const itemSchema = table.schema && env.shapes ? resolve(env.shapes, table.schema).schema?.items : null;
  const rows = info && typeof info === "object" ? factRows(info, propertiesOf(env.shapes, itemSchema), env, ctx, { skip: new Set(["seat"]), seat: true }) : [];
  const publicProperties = propertiesOf(env.shapes, env.shapes?.public);
  for (const [name, value] of Object.entries(pub)) {
    if (name === "scores" || kindOf(name, publicProperties[name], value, env) !== "perSeat") continue;
    const one = singular(name);
    if (info && typeof info === "object" && one in info) continue; // the seat's own entry says it
    const item = value[seat];
    const kind = item === null ? "none" : typeof item === "number" ? (countsCards(one) ? "count" : "number") : typeof item === "boolean" ? "flag" : "text";
    rows.push(h("dt", {}, labelOf(one, null, env, { seat: true })), h("dd", {}, shown(kind, one, item, null, env, ctx)));
  }
  const scored = Object.keys(info || {}).some((name) => /score|points|total/.test(name));
  if (Array.isArray(view.scores) && view.scores[seat] !== undefined && !scored) {
    rows.unshift(h("dt", {}, "Score"), h("dd", { class: "score" }, String(view.scores[seat])));
  }
  return rows.length ? [h("dl", { class: "facts" }, rows)] : [];
}

export function phaseText(view) {
  const phase = view.public?.phase;
  if (!phase || phase === "over") return "";
  return `Phase: ${words(phase)}.`;
}

export function centre(view, ctx) {
  const pub = view.public;
  if (!pub || typeof pub !== "object") return [];
  const env = envFor(view);
  const rows = factRows(pub, propertiesOf(env.shapes, env.shapes?.public), env, ctx, { skip: CENTRE_SKIP });
  return [rows.length ? h("dl", { class: "facts piles" }, rows) : null, advanced("Advanced: the table as the server describes it", pub)];
}

export function youDetails(view, ctx) {
  const env = envFor(view);
  const rows = factRows(view.you, propertiesOf(env.shapes, env.shapes?.you), env, ctx, { skip: new Set(["seat", "hand"]) });
  return rows.length ? [h("dl", { class: "facts" }, rows)] : [];
}

// --- moves ----------------------------------------------------------------------------------

/** What an action's field holds: a card or cards of your hand, a seat, or a plain value. */
function fieldKind(name, schema, value, hand, env) {
  const declared = env.shapes && schema ? resolve(env.shapes, schema).schema : null;
  const types = typesOf(declared);
  if (typeof value === "string" && hand.has(value)) return "card";
  if (Array.isArray(value) && value.length && value.every((id) => hand.has(id))) return "cards";
  if (Number.isInteger(value) && isSeatNumber(value, env)) {
    // The kit's SeatField: a whole number from 0 to the last seat (api/apidoc/actions.py).
    const bySchema = types.has("integer") && declared.minimum === 0 && declared.maximum !== undefined && declared.maximum < (env.players || 0) + 8;
    if ((bySchema || !declared) && SEAT_NAME.test(name) && !COUNT_NAME.test(name)) return "seat";
    if (bySchema && !COUNT_NAME.test(name) && !/^(tokens|amount|bid|value)$/.test(name)) return "seat";
  }
  return "value";
}

/** One legal action as a button: "Play 8 of hearts, suit: spades". */
function actionItem(action, hand, env, ctx) {
  const { type, ...fields } = action;
  const properties = env.shapes?.actions?.[type]?.properties || {};
  const cards = [];
  const named = [];
  const extras = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    const kind = fieldKind(name, properties[name], value, hand, env);
    if (kind === "card") {
      cards.push(value);
      named.push(cardName(hand.get(value)));
    } else if (kind === "cards") {
      cards.push(...value);
      named.push(listing(value.map((id) => cardName(hand.get(id)))));
    } else if (kind === "seat") {
      extras.push(`${words(name)}: ${ctx.name(value)}`);
    } else if (Array.isArray(value)) {
      extras.push(`${words(name)}: ${listing(value.map((item) => words(item)))}`);
    } else if (typeof value === "boolean") {
      if (value) extras.push(words(name));
    } else if (typeof value !== "object") {
      extras.push(`${words(name)}: ${words(value)}`);
    }
  }
  const head = `${capital(words(type))}${named.length ? ` ${listing(named)}` : ""}`;
  return { action, label: [head, ...extras].join(", "), cards };
}

export function actionGroups(view, ctx) {
  if (!view.legal_actions?.length) return [];
  const env = envFor(view);
  const hand = new Map((view.you?.hand || []).map((card) => [card.id, card]));
  const byType = new Map();
  const plain = [];
  for (const action of view.legal_actions) {
    const item = actionItem(action, hand, env, ctx);
    const hasFields = Object.entries(action).some(([name, value]) => name !== "type" && value !== null && value !== undefined);
    if (!hasFields) {
      plain.push(item);
      continue;
    }
    if (!byType.has(action.type)) byType.set(action.type, []);
    byType.get(action.type).push(item);
  }
  const description = (type) => plainDescription(env.shapes?.actions?.[type]?.description);
  const groups = [...byType].map(([type, items]) => ({ key: `move-${type}`, title: capital(words(type)), hint: description(type) || null, items }));
  if (plain.length) {
    const hints = plain.map((item) => [capital(words(item.action.type)), description(item.action.type)]).filter(([, text]) => text);
    groups.push({
      key: "other",
      title: "Or",
      aloneTitle: "What you can do",
      hint: hints.length ? hints.map(([name, text]) => `${name}: ${text.charAt(0).toLowerCase()}${text.slice(1)}`).join(" ") : null,
      items: plain,
    });
  }
  // The table offers one button per label. Moves that read the same because they use cards of
  // one name (two Take a Break cards) are the same move, offered once; any others that read
  // the same are numbered apart.
  for (const group of groups) {
    const seen = new Map(); // label -> [meanings]
    for (const item of group.items) {
      const meaning = JSON.stringify(Object.entries(item.action).map(([name, value]) => [name, sameNamed(value, hand)]));
      const meanings = seen.get(item.label) || [];
      if (!meanings.includes(meaning)) meanings.push(meaning);
      seen.set(item.label, meanings);
      const index = meanings.indexOf(meaning);
      if (index > 0) item.label = `${item.label}, choice ${index + 1}`;
    }
  }
  return groups;
}

/** A field's value with each card of the hand named as the player reads it. */
function sameNamed(value, hand) {
  if (Array.isArray(value)) return value.map((item) => sameNamed(item, hand)).sort();
  return typeof value === "string" && hand.has(value) ? `card:${cardName(hand.get(value))}` : value;
}

/** What a move does, in a few words: a replay's step title ("Bea: play"). */
export function actionTitle(action) {
  return words(action?.type);
}

// --- events ---------------------------------------------------------------------------------

const EVENT_SKIP = new Set(["seq", "version", "type", "private", "actor"]);
// A number of cards that is what the event moved ("drew 2 cards"), not where cards are.
const CARD_COUNT_FIELD = /^(count|cards)$/;

/** One event in a sentence: "Bea played 8 of hearts (suit: spades).", "You drew 1 card." */
export function describe(event, ctx) {
  const env = envFor(ctx?.view);
  env.players ||= ctx?.players || null; // a replay has no view, but knows its seats
  const properties = env.shapes?.events?.[event.type]?.properties || {};
  const fields = Object.entries(event).filter(([name]) => !EVENT_SKIP.has(name));
  const kinds = new Map(fields.map(([name, value]) => [name, kindOf(name, properties[name], value, env)]));
  // Who did it: the event's seat (its `actor` is only whose move caused it).
  const subject = kinds.get("seat") === "seat" ? "seat" : null;
  const subjectSeat = subject ? event.seat : null;
  // The thing done: the first card or cards field, else a number of cards.
  let object = fields.find(([name]) => ["card", "cards"].includes(kinds.get(name)))?.[0];
  if (!object) object = fields.find(([name, value]) => CARD_COUNT_FIELD.test(name) && Number.isInteger(value))?.[0];
  let objectText = "";
  if (object) {
    const value = event[object];
    if (kinds.get(object) === "card") objectText = cardName(value);
    else if (kinds.get(object) === "cards") objectText = value.length ? listing(value.map(cardName)) : "no cards";
    else objectText = plural(value, "card");
  }
  const rest = [];
  const namesCards = object && ["card", "cards"].includes(kinds.get(object));
  for (const [name, value] of fields) {
    if (name === subject || name === object) continue;
    if (namesCards && CARD_COUNT_FIELD.test(name) && Number.isInteger(value)) continue; // the cards say it
    const kind = kinds.get(name);
    if (kind === "none" || kind === "list" || kind === "seatTable") continue;
    if (kind === "flag") {
      if (value) rest.push(words(name));
      continue;
    }
    if (kind === "perSeat") {
      rest.push(`${words(name)}: ${listing(value.map((item, seat) => `${ctx.name(seat)} ${item === null ? "none" : words(item)}`))}`);
      continue;
    }
    if (kind === "count") {
      rest.push(cardsWhere(name, value));
      continue;
    }
    if (kind === "seats") {
      rest.push(`${words(name)}: ${value.length ? listing(value.map((seat) => ctx.name(seat))) : "nobody"}`);
      continue;
    }
    const text = kind === "card" ? cardName(value) : kind === "cards" ? listing(value.map(cardName)) || "none" : shown(kind, name, value, properties[name], env, ctx);
    if (text === null || typeof text !== "string") continue;
    rest.push(`${words(name)}: ${kind === "seat" ? ctx.name(value) : text}`);
  }
  const verb = words(event.type);
  if (!objectText && /^(drew|draws)$/.test(verb)) objectText = "a card"; // which one is secret
  let sentence;
  if (subjectSeat !== null && pastTense(verb.split(" ")[0])) {
    sentence = `${ctx.Name(subjectSeat)} ${verb}${objectText ? ` ${objectText}` : ""}`;
  } else if (subjectSeat !== null) {
    sentence = `${capital(verb)}: ${ctx.Name(subjectSeat)}${objectText ? `, ${objectText}` : ""}`;
  } else {
    sentence = `${capital(verb)}${objectText ? `: ${objectText}` : ""}`;
  }
  return `${sentence}${rest.length ? ` (${rest.join("; ")})` : ""}.`;
}

export function resultReason(result) {
  return result?.reason ? words(result.reason) : "the game is over";
}

// --- the lobby ----------------------------------------------------------------------------------

/** A player's words for an option, from the game's own description of it (GET
 * /v1/game-types): a label made of its name, its description as the help. Options a player
 * does not set by hand (lists, objects, secret ones) get none: the lobby puts them under
 * "Advanced". */
export function optionWords(option) {
  if (!option.description || option.secret || option.type === "array" || option.type === "object") return null;
  const described = { label: capital(words(option.name)), help: option.description };
  // A seat that may be left unset (first_seat) is chosen among the game's seats, shown from 1
  // as the table shows them.
  const seat = option.type === "integer" && option.nullable && option.minimum === 0 && /(^|_)seat$/.test(option.name);
  if (seat) return { ...described, seats: true, none: "Not set" };
  return described;
}
