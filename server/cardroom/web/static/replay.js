// The replay: /replay/{game}. A finished game from GET /v1/games/{id}/replay, step by step,
// every hand face up. Each step lists only the hands and scores it changed; the table at step
// n is the deal with the steps up to n applied (as the SDK's Replay does). A game module may
// also follow its public table through the events (replayStart, replayEvent, replayTable:
// Exact Plays shows the round, the field, the tokens and the declarations), say the deal its
// own way (replayDeal) and name the events its words leave out (saidElsewhere).

import { CardroomClient, Problem } from "./client.js";
import { fill, h, listing, plural } from "./dom.js";
import { gameModule, loadGameModule } from "./games/index.js";

const api = new CardroomClient();
const gameId = decodeURIComponent(window.location.pathname.split("/")[2] || "");
const state = { replay: null, game: gameModule(null), position: 0, tables: [] };
const $ = (id) => document.getElementById(id);

function seatName(seat) {
  return state.replay?.seats?.[seat]?.name || `Seat ${seat + 1}`;
}

const ctx = {
  me: null,
  get view() {
    return null;
  },
  get players() {
    return state.replay?.players ?? null;
  },
  name(seat) {
    return seat === null || seat === undefined ? "nobody" : seatName(seat);
  },
  Name(seat) {
    const text = ctx.name(seat);
    return text.charAt(0).toUpperCase() + text.slice(1);
  },
};

// A replay shows every secret: an event's private part (by seat) is shown as its own.
function revealed(event) {
  const parts = Object.values(event.private || {});
  return parts.length === 1 ? { ...event, ...parts[0] } : event;
}

function describe(event) {
  switch (event.type) {
    case "game_created":
      return `The table is set for ${event.players} players.`;
    case "seat_taken":
      return `${event.name || seatName(event.seat)} sat down in seat ${event.seat + 1}.`;
    case "game_started":
      return "Every seat is taken: the game begins.";
    case "timed_out":
      return `Time ran out for ${seatName(event.seat)}: the server moved for them.${event.away ? ` ${seatName(event.seat)} is now away.` : ""}`;
    case "seat_back":
      return `${seatName(event.seat)} is back.`;
    case "game_over": {
      const winners = event.result?.winners ?? event.winners ?? [];
      return `Game over: ${winners.length ? listing(winners.map(seatName)) : "nobody"} won.`;
    }
    default: {
      let text = null;
      try {
        text = state.game.describe(revealed(event), ctx);
      } catch {
        text = null;
      }
      if (text) return text;
      if (event.type === "turn_ended" && event.seat !== undefined) return `End of ${seatName(event.seat)}'s turn.`;
      if (state.game.saidElsewhere?.includes(event.type)) return null;
      return event.seat === undefined ? `${words(event.type)}.` : `${words(event.type)} (${seatName(event.seat)}).`;
    }
  }
}

/** A name from the API ("end_turn") as words ("End turn"). */
function words(name) {
  const text = String(name ?? "").replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function stepTitle(step) {
  if (!step) return "The deal";
  const who = step.seat === null || step.seat === undefined ? "" : seatName(step.seat);
  switch (step.kind) {
    case "join":
      return `${step.name} took seat ${step.seat + 1}`;
    case "action":
      return `${who}: ${state.game.actionTitle ? state.game.actionTitle(step.action) : words(step.action?.type).toLowerCase()}`;
    case "timeout":
      return "A deadline passed";
    case "back":
      return `${who} came back`;
    default:
      return step.kind;
  }
}

// The tables at every step, built once: hands as card ids, the scores, and what the game's
// module follows of the public table (null if it follows nothing).
function tables(replay) {
  let hands = replay.deal.hands.map((hand) => [...hand]);
  let scores = [...replay.deal.scores];
  const follows = state.game.replayStart && state.game.replayEvent;
  let shown = follows ? state.game.replayStart(replay) : null;
  if (follows) for (const event of replay.opening_events) shown = state.game.replayEvent(shown, revealed(event));
  const built = [{ hands, scores, shown }];
  for (const step of replay.steps) {
    if (step.hands) {
      hands = hands.map((hand, seat) => step.hands[String(seat)] ?? hand);
    }
    if (step.scores) scores = step.scores;
    if (follows) for (const event of step.events) shown = state.game.replayEvent(shown, revealed(event));
    built.push({ hands, scores, shown });
  }
  return built;
}

/** Step 0 in words: how many cards each seat holds; the game's module may say it its own way
 * (`replayDeal`: why one seat holds more, say). */
function dealWords(replay) {
  const own = state.game.replayDeal ? state.game.replayDeal(replay, ctx) : null;
  if (own) return own;
  const sizes = replay.deal.hands.map((hand) => hand.length);
  return `The cards are dealt: ${listing(sizes.map((size, seat) => `${seatName(seat)} ${plural(size, "card")}`))}.`;
}

/** The game's title as GET /v1/game-types gives it (for a module that has none), else its type. */
async function gameTitle(gameType) {
  try {
    const types = await api.gameTypes();
    return types.find((type) => type.game_type === gameType)?.title || gameType;
  } catch {
    return gameType;
  }
}

function go(position) {
  const last = state.replay.steps.length;
  state.position = Math.max(0, Math.min(last, position));
  render();
}

function render() {
  const replay = state.replay;
  const last = replay.steps.length;
  const position = state.position;
  const step = position ? replay.steps[position - 1] : null;
  const table = state.tables[position];
  $("replay-slider").value = String(position);
  $("replay-start").disabled = position === 0;
  $("replay-back").disabled = position === 0;
  $("replay-forward").disabled = position === last;
  $("replay-end").disabled = position === last;
  $("replay-position").textContent = `Step ${position} of ${last}: ${stepTitle(step)}`;

  // A join step's title already says who sat down ("Tess took seat 1"): no line repeats it.
  const events = (step ? step.events : replay.opening_events).filter((event) => !(step?.kind === "join" && event.type === "seat_taken" && event.seat === step.seat));
  const lines = events.map((event) => [event, describe(event)]).filter(([, text]) => text);
  fill(
    $("replay-step"),
    h("h2", { id: "step-heading" }, stepTitle(step)),
    step ? null : h("p", { id: "deal-words" }, dealWords(replay)),
    h("ol", { id: "step-events" }, lines.map(([event, text]) => h("li", { dataset: { seq: String(event.seq) } }, text))),
  );
  $("replay-step").hidden = false;

  const gameTable = $("replay-table");
  if (table.shown && state.game.replayTable) {
    fill(gameTable, h("h2", { id: "table-heading" }, "The table"), state.game.replayTable(table.shown, ctx));
    gameTable.hidden = false;
  } else {
    gameTable.hidden = true;
  }

  fill(
    $("replay-hands"),
    h("h2", { id: "hands-heading" }, "Every hand, face up"),
    table.hands.map((hand, seat) =>
      h(
        "article",
        { class: "seat", dataset: { seat: String(seat) }, "aria-label": `${seatName(seat)}'s hand` },
        h("h3", {}, `${seatName(seat)}${replay.seats[seat]?.bot ? ` (bot: ${replay.seats[seat].bot})` : ""}`),
        h(
          "div",
          { class: "hand-cards" },
          hand.length ? hand.map((id) => state.game.renderCard(replay.cards[id] || { id, code: id }, { small: true })) : h("span", { class: "note" }, "no cards"),
        ),
      ),
    ),
  );
  $("replay-hands").hidden = false;

  fill(
    $("replay-scores"),
    h("h2", { id: "scores-heading" }, "Scores"),
    h(
      "table",
      { class: "scores" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"))),
      h(
        "tbody",
        { id: "replay-score-rows" },
        table.scores.map((score, seat) =>
          h("tr", { class: position === last && replay.result?.winners?.includes(seat) ? "winner" : null }, h("th", { scope: "row" }, seatName(seat)), h("td", {}, String(score))),
        ),
      ),
    ),
  );
  $("replay-scores").hidden = false;
  const main = $("main");
  main.dataset.position = String(position);
  main.dataset.steps = String(last);
}

function onKey(event) {
  if (!state.replay || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement && target.type !== "range") return;
  const moves = { ArrowRight: state.position + 1, ArrowLeft: state.position - 1, Home: 0, End: state.replay.steps.length };
  if (!(event.key in moves)) return;
  if (target instanceof HTMLInputElement && target.type === "range") return; // the slider moves itself
  event.preventDefault();
  go(moves[event.key]);
}

async function start() {
  try {
    const replay = await api.replay(gameId);
    state.replay = replay;
    state.game = await loadGameModule(replay.game_type);
    state.tables = tables(replay);
    const title = state.game.title || (await gameTitle(replay.game_type));
    document.title = `Replay · ${title} · cardroom`;
    $("game-title").textContent = title;
    $("replay-heading").textContent = `Replay of this ${title} game`;
    $("replay-slider").max = String(replay.steps.length);
    $("replay-slider").addEventListener("input", (event) => go(Number(event.target.value)));
    $("replay-start").addEventListener("click", () => go(0));
    $("replay-back").addEventListener("click", () => go(state.position - 1));
    $("replay-forward").addEventListener("click", () => go(state.position + 1));
    $("replay-end").addEventListener("click", () => go(replay.steps.length));
    document.addEventListener("keydown", onKey);
    $("controls").hidden = false;
    render();
  } catch (error) {
    const text = error instanceof Problem ? error.detail || error.title : "The server cannot be reached.";
    $("replay-heading").textContent = "No replay to show";
    $("problem").textContent = text;
  } finally {
    $("main").removeAttribute("aria-busy");
    document.body.dataset.ready = "replay";
  }
}

start();
