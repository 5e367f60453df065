// The lobby: the game types and their options, a form to create a game with any mix of
// people and bots, the open games to join, and the games this browser holds a seat in.

import { CardroomClient, Problem } from "./client.js";
import { dealNotice, fill, h } from "./dom.js";
import { savedName, savedSeats, saveName, saveSeat } from "./seats.js";

const api = new CardroomClient();
const REFRESH_MS = 15000;

const SEAT_CHOICES = [
  ["you", "You"],
  ["friend", "A friend (you get an invitation link)"],
];

function problemText(error) {
  if (error instanceof Problem) {
    const where = error.field ? ` (${error.field})` : "";
    const rule = error.rule ? ` [${error.rule}]` : "";
    return `${error.detail || error.title}${where}${rule}`;
  }
  return "The server cannot be reached. Check that it is running, then try again.";
}

function showAlert(text) {
  fill(document.getElementById("alert"), text ? h("p", {}, text) : null);
}

function nameInput() {
  return document.getElementById("player-name");
}

function currentName() {
  return nameInput().value.trim();
}

// --- options ------------------------------------------------------------------------------

function optionField(gameType, option) {
  const id = `opt-${gameType}-${option.name}`;
  const hintId = `${id}-hint`;
  let input;
  const common = { id, name: option.name, "aria-describedby": hintId, dataset: { option: option.name } };
  if (option.choices) {
    // A nullable choice (such as away_bot) may also be left unset: "none" sends null.
    const choices = option.nullable ? [null, ...option.choices] : option.choices;
    input = h(
      "select",
      common,
      choices.map((choice) =>
        h("option", { value: JSON.stringify(choice), selected: choice === option.default }, choice === null ? "none" : String(choice)),
      ),
    );
  } else if (option.type === "boolean") {
    input = h("input", { ...common, type: "checkbox", checked: option.default === true });
  } else if (option.type === "integer" || option.type === "number") {
    input = h("input", {
      ...common,
      type: "number",
      inputmode: option.type === "integer" ? "numeric" : "decimal",
      step: option.type === "integer" ? "1" : "any",
      min: option.minimum ?? null,
      max: option.maximum ?? null,
      value: option.default === null || option.default === undefined ? "" : String(option.default),
      placeholder: option.nullable ? "none" : null,
    });
  } else {
    input = h("textarea", {
      ...common,
      rows: 2,
      spellcheck: "false",
      placeholder: option.default === null ? "none (JSON)" : JSON.stringify(option.default),
    });
  }
  const defaultText =
    option.default === null || option.default === undefined ? "none" : JSON.stringify(option.default);
  return h(
    "div",
    { class: "option" },
    h("label", { for: id }, option.name.replaceAll("_", " ")),
    input,
    h(
      "p",
      { class: "hint", id: hintId },
      option.description || "",
      ` Default: ${defaultText}.`,
      option.secret
        ? h(
            "strong",
            { class: "secret" },
            " Secret: players see it as “stacked” while the game runs (they know the deck was set, not how); it is revealed when the game ends.",
          )
        : null,
    ),
  );
}

/** The options that differ from their defaults, parsed; throws an Error naming a bad field. */
function readOptions(form, gameType) {
  const options = {};
  for (const option of gameType.options) {
    const input = form.querySelector(`[data-option="${option.name}"]`);
    let value;
    if (option.choices) value = JSON.parse(input.value);
    else if (option.type === "boolean") value = input.checked;
    else if (option.type === "integer" || option.type === "number") {
      if (input.value.trim() === "") value = option.nullable ? null : option.default;
      else value = Number(input.value);
      if (Number.isNaN(value)) throw new Error(`${option.name} must be a number`);
    } else {
      const text = input.value.trim();
      if (text === "") value = option.default ?? null;
      else {
        try {
          value = JSON.parse(text);
        } catch {
          throw new Error(`${option.name} must be JSON (for example ${option.name === "deck" ? '["G3", "R2", …]' : "[…]"})`);
        }
      }
    }
    if (JSON.stringify(value) !== JSON.stringify(option.default ?? null)) options[option.name] = value;
  }
  return options;
}

// --- seats --------------------------------------------------------------------------------

function seatRows(container, gameType, players) {
  const choices = [
    ...SEAT_CHOICES,
    ...gameType.bot_policies.map((policy) => [`bot:${policy}`, `Bot: ${policy}`]),
  ];
  const defaultBot = gameType.bot_policies.includes("greedy") ? "bot:greedy" : `bot:${gameType.bot_policies[0]}`;
  const previous = [...container.querySelectorAll("select")].map((select) => select.value);
  fill(
    container,
    Array.from({ length: players }, (_, seat) => {
      const id = `seat-${gameType.game_type}-${seat}`;
      const chosen = previous[seat] || (seat === 0 ? "you" : defaultBot);
      return h(
        "div",
        { class: "seat-choice" },
        h("label", { for: id }, `Seat ${seat + 1}`),
        h(
          "select",
          { id, name: `seat-${seat}`, dataset: { seat: String(seat) } },
          choices.map(([value, label]) => h("option", { value, selected: value === chosen }, label)),
        ),
      );
    }),
  );
}

function readSeats(form) {
  const seats = [...form.querySelectorAll("[data-seat]")].map((select) => select.value);
  const yours = seats.flatMap((value, seat) => (value === "you" ? [seat] : []));
  if (yours.length > 1) throw new Error("You can sit in one seat only: choose “A friend” for the others.");
  const bots = seats.flatMap((value, seat) => (value.startsWith("bot:") ? [{ seat, policy: value.slice(4) }] : []));
  return { players: seats.length, yourSeat: yours.length ? yours[0] : null, bots };
}

// --- game types ---------------------------------------------------------------------------

function gameTypeForm(gameType) {
  const seatBox = h("div", { class: "seat-choices" });
  const playersId = `players-${gameType.game_type}`;
  const seedId = `seed-${gameType.game_type}`;
  const counts = [];
  for (let n = gameType.min_players; n <= gameType.max_players; n += 1) counts.push(n);
  const players = h(
    "select",
    { id: playersId, name: "players" },
    counts.map((n) => h("option", { value: String(n) }, String(n))),
  );
  players.addEventListener("change", () => seatRows(seatBox, gameType, Number(players.value)));
  seatRows(seatBox, gameType, gameType.min_players);
  const status = h("p", { class: "form-status", role: "status" });
  const form = h(
    "form",
    { class: "game-type card-panel", dataset: { gameType: gameType.game_type }, "aria-labelledby": `title-${gameType.game_type}` },
    h("h3", { id: `title-${gameType.game_type}` }, gameType.title || gameType.game_type),
    h("p", { class: "description" }, gameType.description || ""),
    h(
      "p",
      { class: "muted" },
      `${gameType.min_players} to ${gameType.max_players} players. Full rules: ${gameType.rules_url || "see the API docs"} in the cardroom sources.`,
    ),
    h(
      "fieldset",
      { class: "seats-fieldset" },
      h("legend", {}, "Who plays"),
      h("div", { class: "option inline" }, h("label", { for: playersId }, "Players"), players),
      seatBox,
    ),
    h(
      "details",
      { class: "options" },
      h("summary", {}, "Options (defaults filled in)"),
      gameType.options.map((option) => optionField(gameType.game_type, option)),
      h(
        "div",
        { class: "option" },
        h("label", { for: seedId }, "seed"),
        h("input", { id: seedId, name: "seed", type: "number", min: "0", step: "1", inputmode: "numeric", placeholder: "random", "aria-describedby": `${seedId}-hint` }),
        h("p", { class: "hint", id: `${seedId}-hint` }, "Optional. The same seed and the same moves replay the same game; it is shown when the game ends."),
      ),
    ),
    h("button", { type: "submit", class: "primary" }, `Play ${gameType.title || gameType.game_type}`),
    status,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    createGame(form, gameType, status);
  });
  return form;
}

async function createGame(form, gameType, status) {
  showAlert("");
  let seats;
  let options;
  try {
    seats = readSeats(form);
    options = readOptions(form, gameType);
  } catch (error) {
    status.textContent = error.message;
    return;
  }
  const name = currentName();
  if (seats.yourSeat !== null && !name) {
    status.textContent = "Type your name first (at the top of the page).";
    nameInput().focus();
    return;
  }
  const seedText = form.querySelector('[name="seed"]').value.trim();
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  status.textContent = "Creating the game…";
  try {
    const game = await api.createGame({
      gameType: gameType.game_type,
      players: seats.players,
      options,
      seed: seedText === "" ? null : Number(seedText),
      bots: seats.bots,
    });
    if (seats.yourSeat !== null) {
      saveName(name);
      const joined = await api.join(game.id, name, seats.yourSeat);
      saveSeat(game.id, { seat: joined.seat, token: joined.token, name, gameType: gameType.game_type });
    }
    window.location.assign(`/play/${encodeURIComponent(game.id)}`);
  } catch (error) {
    status.textContent = problemText(error);
    button.disabled = false;
  }
}

// --- open games and your games ------------------------------------------------------------

let titles = {};

function openGameItem(game) {
  const free = game.seats.filter((seat) => !seat.taken);
  const people = game.seats
    .filter((seat) => seat.taken)
    .map((seat) => (seat.bot ? `${seat.name}` : seat.name))
    .join(", ");
  return h(
    "li",
    { class: "open-game", dataset: { gameId: game.id } },
    h(
      "p",
      {},
      h("strong", {}, titles[game.game_type] || game.game_type),
      ` · ${game.players} players · ${free.length} free seat${free.length === 1 ? "" : "s"}`,
      people ? ` · seated: ${people}` : "",
    ),
    dealNotice(game.deal) ? h("p", { class: "note deal-notice" }, dealNotice(game.deal)) : null,
    h(
      "p",
      { class: "links" },
      free.map((seat) =>
        h("a", { class: "button", href: `/play/${encodeURIComponent(game.id)}?seat=${seat.seat}` }, `Take seat ${seat.seat + 1}`),
      ),
      h("a", { href: `/watch/${encodeURIComponent(game.id)}` }, "Watch"),
    ),
  );
}

async function refreshOpenGames() {
  const list = document.getElementById("open-list");
  list.setAttribute("aria-busy", "true");
  try {
    const page = await api.listGames({ status: "waiting", limit: 20 });
    fill(
      list,
      page.games.length
        ? h("ul", { class: "plain" }, page.games.map(openGameItem))
        : h("p", { class: "muted" }, "No game is waiting for players right now. Start one above!"),
    );
  } catch (error) {
    fill(list, h("p", { class: "muted" }, problemText(error)));
  } finally {
    list.removeAttribute("aria-busy");
  }
}

function showYourGames() {
  const seats = savedSeats().slice(0, 8);
  const section = document.getElementById("your-games");
  section.hidden = seats.length === 0;
  fill(
    document.getElementById("your-list"),
    h(
      "ul",
      { class: "plain" },
      seats.map((entry) =>
        h(
          "li",
          {},
          h(
            "a",
            { href: `/play/${encodeURIComponent(entry.gameId)}` },
            `${titles[entry.gameType] || entry.gameType || "Game"} ${entry.gameId}, seat ${entry.seat + 1} as ${entry.name}`,
          ),
        ),
      ),
    ),
  );
}

async function start() {
  nameInput().value = savedName();
  nameInput().addEventListener("change", () => saveName(currentName()));
  document.getElementById("refresh-open").addEventListener("click", refreshOpenGames);
  const box = document.getElementById("game-types");
  try {
    const types = await api.gameTypes();
    titles = Object.fromEntries(types.map((type) => [type.game_type, type.title || type.game_type]));
    fill(box, types.map(gameTypeForm));
  } catch (error) {
    fill(box, h("p", {}, problemText(error)));
  } finally {
    box.removeAttribute("aria-busy");
  }
  showYourGames();
  await refreshOpenGames();
  setInterval(() => {
    if (document.visibilityState === "visible") refreshOpenGames();
  }, REFRESH_MS);
  document.body.dataset.ready = "true";
}

start();
