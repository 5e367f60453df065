// Seat tokens kept in this browser (localStorage), one entry per game, so that a reload or a
// later visit puts you back in your seat. A token is the only key to a seat's hand: it never
// leaves this browser except in the Authorization header of the API calls.

const SEAT_PREFIX = "cardroom.seat.";
const NAME_KEY = "cardroom.name";

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled: seats last as long as the page
  }
}

const memory = new Map();

function read(key) {
  const store = storage();
  const text = store ? store.getItem(key) : memory.get(key);
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function write(key, value) {
  const text = JSON.stringify(value);
  const store = storage();
  if (store) store.setItem(key, text);
  else memory.set(key, text);
}

/** Remember your seat in a game: {seat, token, name}. */
export function saveSeat(gameId, { seat, token, name, gameType = null }) {
  write(SEAT_PREFIX + gameId, { seat, token, name, gameType, savedAt: Date.now() });
}

/** Your seat in a game ({seat, token, name, gameType, savedAt}), or null. */
export function loadSeat(gameId) {
  const entry = read(SEAT_PREFIX + gameId);
  return entry && typeof entry.token === "string" ? entry : null;
}

export function forgetSeat(gameId) {
  const store = storage();
  if (store) store.removeItem(SEAT_PREFIX + gameId);
  else memory.delete(SEAT_PREFIX + gameId);
}

/** Every game this browser holds a seat in, newest first: [{gameId, seat, name, …}]. */
export function savedSeats() {
  const store = storage();
  const keys = store ? Object.keys(store) : [...memory.keys()];
  return keys
    .filter((key) => key.startsWith(SEAT_PREFIX))
    .map((key) => ({ gameId: key.slice(SEAT_PREFIX.length), ...read(key) }))
    .filter((entry) => typeof entry.token === "string")
    .sort((a, b) => (b.savedAt || 0) - (a.savedAt || 0));
}

/** The name you last played under ("" if none). */
export function savedName() {
  const entry = read(NAME_KEY);
  return typeof entry === "string" ? entry : "";
}

export function saveName(name) {
  write(NAME_KEY, name);
}
