// The lobby: the game types and their options, a form to create a game with any mix of
// people and bots, the open games to join, and the games this browser holds a seat in.

import { CardroomClient, Problem } from "./client.js";
import { botName, botsOf, dealNotice, fill, h, plural } from "./dom.js";
import * as generic from "./games/generic.js";
import { loadGameModule } from "./games/index.js";
import { savedName, savedSeats, saveName, saveSeat } from "./seats.js";

const api = new CardroomClient();
const REFRESH_MS = 15000;

const SEAT_CHOICES = [
  ["you", "You"],
  ["friend", "A friend (you get a link to send them)"],
];

// --- words ----------------------------------------------------------------------------------

/** A bot as a seat menu offers it: its name and what it is like, in the game type's words
 * ("Search bot (looks ahead by playing out many possible deals: hard to beat)"); a bot the
 * game type does not describe is named only. */
function botChoice(gameType, policy) {
  const description = botsOf(gameType).find((bot) => bot.name === policy)?.description;
  return description ? `${botName(policy)} (${description})` : botName(policy);
}

// The turn clock's options, which every game has (kit/clock.py); the ruling that describes
// them is the game module's `clockRule` (a small reference beside the "Turn clock" words).
const CLOCK_WORDS = {
  turn_seconds: {
    label: "Seconds per move",
    help:
      "How long each player has for each move. When the time (and any time bank) runs out, the " +
      "game makes a default move for them; the rules say which. Bots have no clock.",
    empty: "no clock, the game waits as long as it takes",
    placeholder: "No clock",
  },
  bank_seconds: {
    label: "Time bank (seconds)",
    help:
      "Extra time each player may spend over the whole game once a move takes longer than the " +
      "seconds per move, as in chess; it is never refilled. A bank alone also starts the clock.",
    empty: "no time bank",
    placeholder: "No bank",
  },
  away_after: {
    label: "Timeouts in a row before a player is away",
    help:
      "With a clock: a player whose time runs out this many moves in a row is marked away, and " +
      "the game stops waiting for them until they press “I'm back” at the table.",
    unit: "timeouts",
  },
  away_bot: {
    label: "Who plays for an away player",
    help: "With a clock, while a player is away.",
    none: "Nobody: their default moves are made at once",
  },
};

// A player's words for each option come from the game's module (docs/web.md, "Renderers"):
// its `optionTexts`, by option name: label and help say what the option changes; rule is the
// ruling it belongs to, shown as a small reference; choices names each value; empty says what
// an empty number means; unit follows a number; seats: the value is a seat, chosen among the
// game's seats. In a game with its own words, an option with none goes under "Advanced", with
// the API's description; a game without (the generic module) is described in its own words
// from GET /v1/game-types (`optionWords`).
const modules = {}; // game type -> the module that draws it, loaded once

function wordsFor(gameType, option) {
  const module = modules[gameType] || generic;
  const own = module.optionTexts?.[option.name];
  if (own) return own;
  // The clock's ruling is cited once, beside the words that open the "Turn clock" group.
  if (CLOCK_WORDS[option.name]) return CLOCK_WORDS[option.name];
  if (module.optionTexts) return null;
  return (module.optionWords || generic.optionWords)(option);
}

/** Options a person chooses, in words; the others only a developer needs (JSON, seeds). */
function isAdvanced(words, option) {
  return !words || !words.help || option.type === "array" || option.type === "object";
}

function choiceWords(words, option, value, gameType = null) {
  if (value === null) return words.none || "None";
  if (words.seats) return `Seat ${value + 1}`;
  if (words.choices?.[value]) return words.choices[value];
  if (option.name === "away_bot") return botChoice(gameType, value);
  return String(value);
}

/** What the option is when left alone, as a sentence. */
function defaultWords(words, option, gameType) {
  const value = option.default ?? null;
  if (option.type === "boolean") return value ? "On by default." : "Off by default.";
  if (option.choices || words.seats) return `Default: “${choiceWords(words, option, value, gameType)}”.`;
  if (value === null) return `Empty by default: ${words.empty || "not set"}.`;
  return `Default: ${words.unit ? `${value} ${words.unit}` : value}.`;
}

/** " (rule MT-11)", small, linking to that ruling on the game's rules page (docs/web.md). */
function ruleReference(rule, rulesUrl) {
  if (!rule) return null;
  const text = `rule ${rule}`;
  const href = rulesUrl ? `${rulesUrl}#${rule.toLowerCase()}` : null;
  return [
    " ",
    h("small", { class: "rule-ref" }, "(", href ? h("a", { href, target: "_blank", rel: "noopener" }, text) : text, ")"),
  ];
}

// --- problems -------------------------------------------------------------------------------

const UNREACHABLE = "The server cannot be reached. Check that it is running, then try again.";

/** A refusal in words: the server's detail, the field it names as the lobby labels it. */
function problemNodes(error, gameType = null) {
  if (!(error instanceof Problem)) return [UNREACHABLE];
  const option = error.field?.startsWith("options.") ? error.field.slice("options.".length) : null;
  const known = gameType?.options.find((entry) => entry.name === option);
  const label = known ? wordsFor(gameType.game_type, known)?.label : null;
  return [
    label ? `${label}: ` : "",
    error.detail || error.title || "The server refused this.",
    ruleReference(error.rule, gameType?.rules_url),
  ];
}

function showAlert(nodes) {
  fill(document.getElementById("alert"), nodes ? h("p", {}, nodes) : null);
}

function nameInput() {
  return document.getElementById("player-name");
}

function currentName() {
  return nameInput().value.trim();
}

// --- options ------------------------------------------------------------------------------

function seatOptions(select, words, option, players) {
  // The choice kept when the players change; at first, the option's default.
  const chosen = select.options.length ? select.value : JSON.stringify(option.default ?? null);
  const highest = Math.min(players - 1, option.maximum ?? players - 1);
  const values = [null];
  for (let seat = 0; seat <= highest; seat += 1) values.push(seat);
  fill(
    select,
    values.map((value) => {
      const text = JSON.stringify(value);
      return h("option", { value: text, selected: text === chosen }, choiceWords(words, option, value));
    }),
  );
}

function optionField(gameType, option, players) {
  const words = wordsFor(gameType.game_type, option) || {};
  const advanced = isAdvanced(wordsFor(gameType.game_type, option), option);
  const id = `opt-${gameType.game_type}-${option.name}`;
  const hintId = `${id}-hint`;
  const common = { id, name: option.name, "aria-describedby": hintId, dataset: { option: option.name } };
  let input;
  if (words.seats) {
    input = h("select", { ...common, dataset: { option: option.name, seats: "true" } });
    seatOptions(input, words, option, players);
  } else if (option.choices) {
    // A nullable choice (such as away_bot) may also be left unset.
    const choices = option.nullable ? [null, ...option.choices] : option.choices;
    input = h(
      "select",
      common,
      choices.map((choice) =>
        h(
          "option",
          { value: JSON.stringify(choice), selected: choice === (option.default ?? null) },
          choiceWords(words, option, choice, gameType),
        ),
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
      placeholder: option.nullable ? words.placeholder || "None" : null,
    });
  } else {
    input = h("textarea", {
      ...common,
      rows: 2,
      spellcheck: "false",
      placeholder: option.default === null ? "null (JSON)" : JSON.stringify(option.default),
    });
  }
  const label = h("label", { for: id }, words.label || option.name);
  const hint = advanced
    ? h(
        "p",
        { class: "hint", id: hintId },
        h("code", {}, option.name),
        `: ${option.description || ""} Default: ${JSON.stringify(option.default ?? null)}.`,
        option.secret
          ? h(
              "strong",
              { class: "secret" },
              " Secret: the players see it as “stacked” while the game runs (they know the deck " +
                "was set, not how); it is revealed when the game ends.",
            )
          : null,
      )
    : h(
        "p",
        { class: "hint", id: hintId },
        words.help,
        ruleReference(words.rule, gameType.rules_url),
        ` ${defaultWords(words, option, gameType)}`,
      );
  const checkbox = option.type === "boolean" && !advanced;
  return h(
    "div",
    { class: ["option", checkbox && "checkbox"], dataset: { advanced: advanced ? "true" : "false" } },
    checkbox ? [input, label] : [label, input],
    hint,
  );
}

function optionLabel(gameType, option) {
  return wordsFor(gameType.game_type, option)?.label || option.name;
}

/** The options that differ from their defaults, parsed; throws an Error naming a bad field. */
function readOptions(form, gameType) {
  const options = {};
  for (const option of gameType.options) {
    const input = form.querySelector(`[data-option="${option.name}"]`);
    let value;
    if (input.tagName === "SELECT") value = JSON.parse(input.value);
    else if (option.type === "boolean") value = input.checked;
    else if (option.type === "integer" || option.type === "number") {
      if (input.value.trim() === "") value = option.nullable ? null : option.default;
      else value = Number(input.value);
      if (Number.isNaN(value)) throw new Error(`“${optionLabel(gameType, option)}” must be a number.`);
    } else {
      const text = input.value.trim();
      if (text === "") value = option.default ?? null;
      else {
        try {
          value = JSON.parse(text);
        } catch {
          const example = wordsFor(gameType.game_type, option)?.example || "[…]";
          throw new Error(`“${optionLabel(gameType, option)}” (under Advanced) must be JSON, for example ${example}.`);
        }
      }
    }
    if (JSON.stringify(value) !== JSON.stringify(option.default ?? null)) options[option.name] = value;
  }
  return options;
}

// --- seats --------------------------------------------------------------------------------

function seatRows(container, gameType, players) {
  // Every bot the game type offers, each with what it is like.
  const bots = botsOf(gameType);
  const choices = [...SEAT_CHOICES, ...bots.map((bot) => [`bot:${bot.name}`, botChoice(gameType, bot.name)])];
  // The game's own first policy that moves at once (a plug-in's, "greedy" for ours), else
  // "random": a search level is there to choose, not the default.
  const ownBot = (bots.find((bot) => bot.name !== "random" && !bot.thinks) || bots[0])?.name;
  const defaultBot = `bot:${ownBot}`;
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
  const title = gameType.title || gameType.game_type;
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
  seatRows(seatBox, gameType, gameType.min_players);
  const fields = gameType.options.map((option) => ({
    option,
    element: optionField(gameType, option, gameType.min_players),
  }));
  const everyday = fields.filter(({ element }) => element.dataset.advanced === "false");
  const clockNames = Object.keys(CLOCK_WORDS);
  const inClock = ({ option }) => clockNames.includes(option.name);
  players.addEventListener("change", () => {
    seatRows(seatBox, gameType, Number(players.value));
    for (const { option, element } of fields) {
      const select = element.querySelector("select[data-seats]");
      if (select) seatOptions(select, wordsFor(gameType.game_type, option), option, Number(players.value));
    }
  });
  const clockRule = modules[gameType.game_type]?.clockRule || null;
  const status = h("p", { class: "form-status", role: "status" });
  const rulesLink = gameType.rules_url
    ? h(
        "p",
        { class: "rules-link" },
        h("a", { href: gameType.rules_url, target: "_blank", rel: "noopener" }, `How to play ${title}`),
        h("span", { class: "muted" }, ": the full rules, in a new tab."),
      )
    : null;
  const form = h(
    "form",
    { class: "game-type card-panel", dataset: { gameType: gameType.game_type }, "aria-labelledby": `title-${gameType.game_type}` },
    h("h3", { id: `title-${gameType.game_type}` }, title),
    h("p", { class: "description" }, gameType.description || ""),
    rulesLink,
    h(
      "fieldset",
      { class: "seats-fieldset" },
      h("legend", {}, "Who plays"),
      h(
        "div",
        { class: "option inline" },
        h("label", { for: playersId }, `Players (${gameType.min_players} to ${gameType.max_players})`),
        players,
      ),
      seatBox,
      h(
        "p",
        { class: "hint" },
        "The game starts once every seat is taken: bots sit down at once, a friend when they open the link you send them.",
      ),
    ),
    h(
      "details",
      { class: "options" },
      h("summary", {}, "Options (the usual rules unless you change them)"),
      everyday.filter((field) => !inClock(field)).map(({ element }) => element),
      everyday.some(inClock)
        ? h(
            "fieldset",
            { class: "clock-fieldset" },
            h("legend", {}, "Turn clock"),
            h(
              "p",
              { class: "hint" },
              "Off unless you set the seconds per move (or a time bank): then each player has a time limit for each move.",
              ruleReference(clockRule, gameType.rules_url),
            ),
            everyday.filter(inClock).map(({ element }) => element),
          )
        : null,
      h(
        "details",
        { class: "advanced" },
        h("summary", {}, "Advanced: seed and stacked decks, for testing"),
        h("p", { class: "hint" }, "Options a developer uses to replay or set up a game, written as the API takes them."),
        fields.filter(({ element }) => element.dataset.advanced === "true").map(({ element }) => element),
        h(
          "div",
          { class: "option" },
          h("label", { for: seedId }, "Seed"),
          h("input", { id: seedId, name: "seed", type: "number", min: "0", step: "1", inputmode: "numeric", placeholder: "random", "aria-describedby": `${seedId}-hint` }),
          h(
            "p",
            { class: "hint", id: `${seedId}-hint` },
            h("code", {}, "seed"),
            ": a whole number. The same seed and the same moves replay the same game. The other players are told that you chose it (you could know every hand); it is shown to everyone when the game ends.",
          ),
        ),
      ),
    ),
    h("button", { type: "submit", class: "primary" }, `Play ${title}`),
    status,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    createGame(form, gameType, status);
  });
  return form;
}

async function createGame(form, gameType, status) {
  showAlert(null);
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
  status.textContent = "Setting up the table…";
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
    fill(status, problemNodes(error, gameType));
    button.disabled = false;
  }
}

// --- open games and your games ------------------------------------------------------------

let titles = {};

function openGameItem(game) {
  const free = game.seats.filter((seat) => !seat.taken && !seat.reserved);
  const kept = game.seats.filter((seat) => !seat.taken && seat.reserved).length;
  const seated = game.seats
    .filter((seat) => seat.taken)
    .map((seat) => seat.name)
    .join(", ");
  return h(
    "li",
    { class: "open-game", dataset: { gameId: game.id } },
    h(
      "p",
      {},
      h("strong", {}, titles[game.game_type] || game.game_type),
      ` · ${plural(game.players, "player")} · ${plural(free.length, "free seat")}`,
      kept ? ` · ${plural(kept, "seat")} kept for the last game's players` : "",
      seated ? ` · already seated: ${seated}` : "",
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
    fill(list, h("p", { class: "muted" }, problemNodes(error)));
  } finally {
    list.removeAttribute("aria-busy");
  }
}

const GAME_STATES = { waiting: "waiting for players", active: "under way", finished: "finished" };

/** Where one of your games stands, from its summary (GET /v1/games/{id}). */
async function gameState(gameId) {
  try {
    const summary = await api.game(gameId);
    return GAME_STATES[summary.status] || "";
  } catch (error) {
    return error instanceof Problem && error.status === 404 ? "no longer kept (it expired)" : "";
  }
}

async function showYourGames() {
  const seats = savedSeats().slice(0, 8);
  const section = document.getElementById("your-games");
  section.hidden = seats.length === 0;
  const states = await Promise.all(seats.map((entry) => gameState(entry.gameId)));
  fill(
    document.getElementById("your-list"),
    h(
      "ul",
      { class: "plain" },
      seats.map((entry, index) =>
        h(
          "li",
          { dataset: { gameId: entry.gameId } },
          h(
            "a",
            { href: `/play/${encodeURIComponent(entry.gameId)}` },
            `${titles[entry.gameType] || entry.gameType || "A game"}: seat ${entry.seat + 1}, as ${entry.name}`,
          ),
          states[index] ? h("span", { class: ["game-state", "muted"] }, ` · ${states[index]}`) : null,
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
    await Promise.all(
      types.map(async (type) => {
        modules[type.game_type] = await loadGameModule(type.game_type, { prepare: false });
      }),
    );
    titles = Object.fromEntries(types.map((type) => [type.game_type, type.title || type.game_type]));
    fill(box, types.map(gameTypeForm));
  } catch (error) {
    fill(box, h("p", {}, problemNodes(error)));
  } finally {
    box.removeAttribute("aria-busy");
  }
  await Promise.all([showYourGames(), refreshOpenGames()]);
  setInterval(() => {
    if (document.visibilityState === "visible") refreshOpenGames();
  }, REFRESH_MS);
  document.body.dataset.ready = "true";
}

start();
